import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { callChainTool } from '../../src/core/tools/callChain';
import { readClassTool } from '../../src/core/tools/readClass';
import { readMethodTool } from '../../src/core/tools/readMethod';
import { codeIntelFor, configureCodeIndexes, dropCodeIntel } from '../../src/core/code/intel/intel';
import type { ToolDefinition } from '../../src/core/tools/tool';
import type { Workspace } from '../../src/core/workspace/workspace';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { CallGraph } from '../../src/core/code/index/callGraph';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { setCodeIntel } from '../../src/core/code/intel/state';
import { makeTree } from '../support/fixtures';
import { JAVA_PROJECT } from '../support/javaProject';
import { callTool, failsWith } from '../support/tools';

/** read_class, read_method and call_chain end to end on a small Java project. */


const ws = new NodeWorkspace(makeTree(JAVA_PROJECT, 'ab-codetools-'));

const call = (tool: ToolDefinition, params: Record<string, unknown>, workspace: Workspace = ws) => callTool(tool, workspace, params);

test('read_class structure: package, declaration, fields, constructors, methods with lines and Javadoc', async () => {
  const out = await call(readClassTool, { className: 'Main' });
  const s = out.structured as Record<string, unknown> & { methods: Array<{ name: string; line: number; doc?: string }> };
  assert.equal(s.source, 'parser');
  assert.equal(s.className, 'com.acme.app.Main');
  assert.equal(s.path, 'src/main/java/com/acme/app/Main.java');
  assert.deepEqual(s.methods.map((m) => `${m.name}:${m.line}`), ['main:14', 'run:19', 'helper:31']);
  assert.equal(s.methods[1]?.doc, 'Runs the app.');
  assert.match(out.result, /^## Class: com\.acme\.app\.Main/);
  assert.match(out.result, /public class Main/);
  assert.match(out.result, /- L19–29 `void run\(int n\)` — Runs the app\./);
  assert.match(out.result, /### Nested types \(2\)\n- L33 class `Main.Inner`\n- L38 class `Main.Nested`/);
});

test('read_class: an ambiguous simple name lists the candidates; a qualified name or relativePath picks one', async () => {
  const amb = await call(readClassTool, { className: 'User' });
  const s = amb.structured as { ambiguous: boolean; candidates: Array<{ className: string; path: string }> };
  assert.equal(s.ambiguous, true);
  assert.deepEqual(s.candidates.map((c) => c.className).sort(), ['com.acme.model.User', 'com.other.model.User']);
  assert.match(amb.result, /Several classes match `User`/);
  assert.match(amb.result, /src\/main\/java\/com\/other\/model\/User\.java/);
  const byPath = await call(readClassTool, { className: 'User', relativePath: 'src/main/java/com/other/model/User.java' });
  assert.equal((byPath.structured as { kind: string }).kind, 'record');
  const byFolder = await call(readClassTool, { className: 'User', relativePath: 'src/main/java/com/acme' });
  assert.equal((byFolder.structured as { className: string }).className, 'com.acme.model.User');
  const byName = await call(readClassTool, { className: 'com.acme.model.User', mode: 'FULL' });
  // From its Javadoc (line 3), under the file's package line.
  assert.match(byName.result, /File: src\/main\/java\/com\/acme\/model\/User\.java · lines 3–14/);
  assert.match(byName.result, / 1 \| package com\.acme\.model;\n {3}⋮\n 3 \| \/\*\* A user of the app\. \*\//);
  assert.match(byName.result, / 7 \| {3}public User\(String name\) \{/);
});

test('read_class: nested classes by qualified name; unknown classes are NOT_FOUND with suggestions', async () => {
  const deeper = await call(readClassTool, { className: 'Main.Nested.Deeper' });
  assert.equal((deeper.structured as { outer: string }).outer, 'Main.Nested');
  await failsWith(call(readClassTool, { className: 'Usr' }), 'NOT_FOUND', /Class not found: Usr/);
  await failsWith(call(readClassTool, { className: 'Serv' }), 'NOT_FOUND', /Similar: com\.acme\.app\.Service/);
  await failsWith(call(readClassTool, { className: 'Main', relativePath: '../outside' }), 'PERMISSION_DENIED');
});

test('read_method: every overload with Javadoc and line numbers; parameter types pick one', async () => {
  const both = await call(readMethodTool, { className: 'Service', methodName: 'handle' });
  const s = both.structured as { source: string; methods: Array<{ signature: string; line: number; code: string }> };
  assert.equal(s.source, 'parser');
  assert.deepEqual(s.methods.map((m) => `${m.signature}@${m.line}`), ['public void handle(int n)@4', 'public void handle(String s)@8']);
  assert.match(both.result, /5 \| {5}if \(n > 0\) handle\(n - 1\);/);
  const one = await call(readMethodTool, { className: 'Service', methodName: 'handle(String)' });
  assert.equal((one.structured as { methods: unknown[] }).methods.length, 1);
  const run = await call(readMethodTool, { className: 'Main', methodName: 'run' });
  assert.match(run.result, /18 \| {3}\/\*\* Runs the app\. Twice\. \*\/\n19 \| {3}void run\(int n\) \{/);
  const ctor = await call(readMethodTool, { className: 'com.acme.model.User', methodName: 'User' });
  assert.match(ctor.result, /public User\(String name\)/);
  await failsWith(call(readMethodTool, { className: 'Service', methodName: 'nope' }), 'NOT_FOUND', /Methods: a, b, handle, process/);
});

test('call_chain: callers and callees with file and line of each call, unresolved listed, source "parser"', async () => {
  const out = await call(callChainTool, { method: 'Service.process', direction: 'both', depth: 1 });
  const s = out.structured as {
    source: string;
    callees: Array<{ children: Array<{ className: string; methodName: string; callLine: number }> }>;
    callers: Array<{ children: Array<{ className: string; methodName: string; callLine: number; path: string; virtual?: boolean }> }>;
  };
  assert.equal(s.source, 'parser');
  assert.deepEqual(s.callees[0]?.children.map((c) => `${c.className}.${c.methodName}@${c.callLine}`), ['com.acme.app.Service.a@14']);
  assert.deepEqual(
    s.callers[0]?.children.map((c) => `${c.className}.${c.methodName}@${c.path}:${c.callLine}${c.virtual ? ' virtual' : ''}`).sort(),
    [
      'com.acme.app.Client.use@src/main/java/com/acme/app/Client.java:5 virtual',
      'com.acme.app.Main.run@src/main/java/com/acme/app/Main.java:26',
      'com.acme.app.Service.handle@src/main/java/com/acme/app/Service.java:9',
    ],
  );
  assert.match(out.result, /Source: parser/);
  assert.match(out.result, /calls it at line 5: `h\.process\(\)` · via supertype/);
  const run = await call(callChainTool, { method: 'Main.run', direction: 'callees' });
  assert.match(run.result, /unresolved: `unknown\.call\(\)` at line 27/);
  assert.match(run.result, /`java\.util\.List\.add` \(outside the project\)/);
});

test('call_chain: depth, cycles, includeSource, defaults and errors', async () => {
  const deep = await call(callChainTool, { method: 'Service.a', direction: 'callees', depth: '3', includeSource: 'true' });
  assert.match(deep.result, /`Service\.a\(\)`.*\n {2}- `Service\.b\(\)`.*\n {4}- `Service\.a\(\)`.*↻ cycle/);
  assert.match(deep.result, /### Sources/);
  assert.ok(Object.keys((deep.structured as { sources: Record<string, string> }).sources).length >= 2);
  const defaults = await call(callChainTool, { method: 'Strings.trim' });
  const d = defaults.structured as { direction: string; depth: number; callers: unknown[]; callees: unknown[] };
  assert.deepEqual([d.direction, d.depth], ['both', 1]);
  assert.ok(d.callers && d.callees);
  await failsWith(call(callChainTool, { method: 'Service.nope' }), 'NOT_FOUND', /No method matches Service\.nope/);
  await failsWith(call(callChainTool, { method: 'Nope.run' }), 'NOT_FOUND', /Class not found: Nope/);
  assert.throws(() => callChainTool.params.parse({ method: 'A.b', depth: 0 }));
  const amb = await call(callChainTool, { method: 'User.User' });
  assert.equal((amb.structured as { ambiguous: boolean }).ambiguous, true);
});

test('tools answer TIMEOUT while the first build outlasts the wait, then answer once it is done', async () => {
  // no ripgrep: a simple name cannot be answered from the files that declare it (quick.ts)
  const other = new NodeWorkspace(makeTree(JAVA_PROJECT, 'ab-codetools-slow-'), { ripgrep: false });
  configureCodeIndexes({ waitMs: 0 });
  after(() => {
    configureCodeIndexes({});
    dropCodeIntel(other);
  });
  await failsWith(call(readClassTool, { className: 'Main' }, other), 'TIMEOUT', /still being built/);
  await codeIntelFor(other).index.ready();
  const out = await call(readClassTool, { className: 'Main' }, other);
  assert.equal((out.structured as { className: string }).className, 'com.acme.app.Main');
});

test('read_class full: the header (package and imports, not the licence above it), then the class from its Javadoc and annotations to its end', async () => {
  const java = [
    '/*',
    ' * Licence text that a reader of the class does not need.',
    ' */',
    'package com.acme.full;',
    '',
    'import java.util.List;',
    'import java.util.Map;',
    '',
    '/** A documented service. */',
    '@Deprecated',
    '@SuppressWarnings("unused")',
    'public class Documented {',
    '  List<String> names;',
    '  Map<String, Integer> counts;',
    '',
    '  /** Inner docs. */',
    '  @Deprecated',
    '  static class Inner {}',
    '}',
    '',
  ].join('\n');
  const local = new NodeWorkspace(makeTree({ 'src/com/acme/full/Documented.java': java }, 'ab-readclass-full-'));
  const out = await call(readClassTool, { className: 'Documented', mode: 'full' }, local);
  const s = out.structured as { header?: { startLine: number; endLine: number; content: string }; startLine: number; endLine: number; content: string };
  assert.deepEqual(s.header, { startLine: 4, endLine: 7, content: 'package com.acme.full;\n\nimport java.util.List;\nimport java.util.Map;' });
  assert.equal(s.startLine, 9);
  assert.equal(s.endLine, 19);
  assert.match(s.content, /^\/\*\* A documented service\. \*\/\n@Deprecated\n@SuppressWarnings\("unused"\)\npublic class Documented \{/);
  assert.ok(!out.result.includes('Licence text'), 'the licence comment is not part of the answer');
  assert.match(out.result, / 4 \| package com\.acme\.full;\n 5 \| \n 6 \| import java\.util\.List;\n 7 \| import java\.util\.Map;\n {3}⋮\n 9 \| \/\*\* A documented service/);
  const inner = await call(readClassTool, { className: 'Documented.Inner', mode: 'full' }, local);
  const si = inner.structured as { header?: { startLine: number }; startLine: number; content: string };
  assert.equal(si.header?.startLine, 4, 'a nested class gets the file header too');
  assert.equal(si.startLine, 16);
  assert.match(si.content, /^ {2}\/\*\* Inner docs\. \*\/\n {2}@Deprecated\n {2}static class Inner \{\}$/);
  dropCodeIntel(local);
});

test('read_class lists each field with its own doc, in Java, Kotlin and TypeScript, and from the index cache', async () => {
  const files = {
    'src/p/Doc.java': 'package p;\npublic class Doc {\n  /** The count. */\n  int count;\n  int plain;\n  /** The name. */\n  String name;\n  int toString;\n  /** The proto. */\n  int __proto__;\n}\n',
    'src/k/Doc.kt': 'package k\nclass KDoc {\n  /** The size. */\n  val size: Int = 0\n  val plain: Int = 1\n}\n',
    'src/t/doc.ts': 'export class TDoc {\n  /** The id. */\n  id = 0;\n  plain = 1;\n}\n',
  };
  for (const pass of ['parsed', 'cached']) {
    const root = makeTree(files, 'ab-fielddocs-');
    const w = new NodeWorkspace(root);
    try {
      const cacheFile = path.join(makeTree({}, 'ab-cache-'), 'index.cache');
      // A first index writes the cache; the second, the tools', takes every record from it.
      if (pass === 'cached') await new CodeIndex(w, { cacheFile }).ready();
      const index = new CodeIndex(w, pass === 'cached' ? { cacheFile } : {});
      await index.ready();
      if (pass === 'cached') assert.equal(index.lastBuild?.parsed, 0, 'nothing reparsed');
      setCodeIntel(w, { index, graph: new CallGraph(index) });
      const fields = async (className: string) =>
        ((await callTool(readClassTool, w, { className })).structured as { fields: Array<{ name: string; doc?: string }> }).fields.map((f) => `${f.name}:${f.doc ?? '-'}`);
      assert.deepEqual(await fields('p.Doc'), ['count:The count.', 'plain:-', 'name:The name.', 'toString:-', '__proto__:The proto.'], pass);
      assert.deepEqual(await fields('k.KDoc'), ['size:The size.', 'plain:-'], pass);
      assert.deepEqual(await fields('TDoc'), ['id:The id.', 'plain:-'], pass);
      const text = (await callTool(readClassTool, w, { className: 'p.Doc' })).result;
      assert.match(text, /`int count` — The count\./);
      assert.match(text, /`int plain`\n/);
      assert.match(text, /`int toString`(\n|$)/, 'a field named like an Object method has no doc');
    } finally {
      dropCodeIntel(w);
    }
  }
});
