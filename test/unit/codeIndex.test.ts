import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { CallGraph, type CallTreeNode } from '../../src/core/code/index/callGraph';
import { CodeIndex, type MethodEntry } from '../../src/core/code/index/codeIndex';
import { readCacheFile, writeCacheFile } from '../../src/core/code/index/indexCache';
import { dropCodeIntel } from '../../src/core/code/intel/intel';
import { setCodeIntel } from '../../src/core/code/intel/state';
import { extractFile } from '../../src/core/code/languages/registry';
import { MAX_CALL_SITES } from '../../src/core/code/packedSymbols';
import { QUERY_LIMITS } from '../../src/core/code/parse/exprBounds';
import { callChainTool } from '../../src/core/tools/callChain';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { callTool } from '../support/tools';
import { JAVA_PROJECT } from '../support/javaProject';

/** The code index and call graph on a small hand-made Java project. */


async function build(files: Record<string, string> = JAVA_PROJECT): Promise<{ root: string; index: CodeIndex; graph: CallGraph }> {
  const root = makeTree(files, 'ab-code-');
  const index = new CodeIndex(new NodeWorkspace(root));
  await index.ready();
  return { root, index, graph: new CallGraph(index) };
}

function method(graph: CallGraph, spec: string): MethodEntry {
  const { matches } = graph.findMethods(spec);
  assert.equal(matches.length, 1, `${spec}: ${matches.length} matches`);
  return matches[0] as MethodEntry;
}

const calleeKeys = (graph: CallGraph, m: MethodEntry) =>
  graph.callees(m).filter((r) => r.owner).map((r) => `${r.site.line} ${r.owner}.${r.site.kind === 'call' ? r.site.name : '<init>'}`);

test('lists sources, skipping build output beside a build file', async () => {
  const { index } = await build();
  assert.equal(index.fileCount, 8);
  assert.equal(index.findTypes('Ignored').length, 0);
  assert.deepEqual(index.lastBuild && { parsed: index.lastBuild.parsed, cached: index.lastBuild.cached }, { parsed: 8, cached: 0 });
});

test('nested types by simple, qualified, fully qualified and binary name', async () => {
  const { index } = await build();
  for (const name of ['Deeper', 'Nested.Deeper', 'Main.Nested.Deeper', 'com.acme.app.Main.Nested.Deeper', 'com.acme.app.Main$Nested$Deeper']) {
    const found = index.findTypes(name);
    assert.equal(found.length, 1, name);
    assert.equal(found[0]?.type.fqn, 'com.acme.app.Main.Nested.Deeper');
    assert.equal(found[0]?.type.outer, 'Main.Nested');
  }
  const main = index.findTypes('Main')[0];
  assert.equal(main?.type.doc, 'Entry point.');
  assert.deepEqual(main?.type.fields.map((f) => `${f.type} ${f.name}`), ['Service service', 'List<User> users']);
});

test('the same simple name in two packages: both listed, with paths', async () => {
  const { index } = await build();
  const users = index.findTypes('User');
  assert.deepEqual(users.map((u) => `${u.type.fqn} ${u.path}`).sort(), [
    'com.acme.model.User src/main/java/com/acme/model/User.java',
    'com.other.model.User src/main/java/com/other/model/User.java',
  ]);
  const rec = index.findTypes('com.other.model.User')[0]?.type;
  assert.equal(rec?.kind, 'record');
  assert.deepEqual(rec?.components.map((c) => `${c.type} ${c.name}`), ['String id', 'int age']);
});

test('callees: fields, locals, static imports, imports, same package, for-each and return types resolve', async () => {
  const { graph } = await build();
  const run = method(graph, 'Main.run');
  assert.deepEqual(calleeKeys(graph, run), [
    '20 com.acme.util.Checks.notNull',
    '21 com.acme.app.Service.handle',
    '22 com.acme.app.Service.handle',
    '23 com.acme.util.Strings.trim',
    '24 java.util.List.add',
    '24 com.acme.model.User.<init>',
    '25 com.acme.model.User.greet',
    '26 com.acme.app.Service.process',
    '26 com.acme.app.Main.helper',
  ]);
  const unresolved = graph.callees(run).filter((r) => !r.owner).map((r) => `${r.site.line} ${r.site.name}: ${r.reason}`);
  assert.equal(unresolved.length, 2, unresolved.join('\n'));
  assert.match(unresolved[0] as string, /^27 call: unknown/);
  assert.match(unresolved[1] as string, /^28 mystery: no method mystery/);
});

test('overloads: a name matches all of them, parameter types pick one, argument types pick the target', async () => {
  const { graph } = await build();
  assert.equal(graph.findMethods('Service.handle').matches.length, 2);
  assert.equal(graph.findMethods('com.acme.app.Service.handle(String)').matches.length, 1);
  assert.equal(graph.findMethods('Service#handle(int n)').matches.length, 1);
  const run = method(graph, 'Main.run');
  const targets = graph.callees(run).filter((r) => r.site.name === 'handle').map((r) => r.targets.map((t) => t.method.params[0]?.type).join('|'));
  assert.deepEqual(targets, ['int', 'String']);
  const callers = graph.callers(method(graph, 'Service.handle(int)')).map((c) => `${c.caller.method.name}:${c.site.line}`);
  assert.deepEqual(callers.sort(), ['handle:5', 'run:21']);
});

test('callers include calls through a supertype declaration, marked virtual', async () => {
  const { graph } = await build();
  const callers = graph.callers(method(graph, 'Service.process')).map((c) => `${c.caller.owner.type.name}.${c.caller.method.name}:${c.site.line}${c.virtual ? ' virtual' : ''}`);
  assert.deepEqual(callers.sort(), ['Client.use:5 virtual', 'Main.run:26', 'Service.handle:9']);
});

test('unqualified calls reach enclosing classes; static nested classes their own', async () => {
  const { graph } = await build();
  assert.deepEqual(calleeKeys(graph, method(graph, 'Deeper.m')), ['40 com.acme.app.Main.run']);
  assert.deepEqual(calleeKeys(graph, method(graph, 'Main.Inner.go')), ['34 com.acme.app.Main.Inner.pong']);
});

const flat = (n: CallTreeNode, depth = 0): string[] => [
  `${'  '.repeat(depth)}${n.method ? `${n.method.owner.type.name}.${n.method.method.name}` : n.external}${n.cycle ? ' (cycle)' : ''}${n.repeated ? ' (repeated)' : ''}`,
  ...n.children.flatMap((c) => flat(c, depth + 1)),
];

test('trees: depth 2, cycles cut and marked', async () => {
  const { graph } = await build();
  const t = graph.tree([method(graph, 'Service.a')], 'callees', 5);
  assert.deepEqual(flat(t.nodes[0] as CallTreeNode), ['Service.a', '  Service.b', '    Service.a (cycle)']);
  const recursive = graph.tree([method(graph, 'Service.handle(int)')], 'callees', 3);
  assert.deepEqual(flat(recursive.nodes[0] as CallTreeNode), ['Service.handle', '  Service.handle (cycle)']);
  const two = graph.tree([method(graph, 'Main.main')], 'callees', 2);
  const lines = flat(two.nodes[0] as CallTreeNode);
  assert.deepEqual(lines.slice(0, 3), ['Main.main', '  Main.run', '    Checks.notNull']);
  assert.ok(lines.includes('  com.acme.app.Main.<init>'), 'the implicit default constructor is a leaf');
  assert.ok(two.nodes[0]?.children.some((c) => c.implicit && c.external === 'com.acme.app.Main.<init>'));
  assert.ok(lines.includes('    Strings.trim'), lines.join('\n'));
  assert.ok(!lines.some((l) => l.startsWith('      ')), 'depth 2 goes no deeper');
  const callers = graph.tree([method(graph, 'Strings.trim')], 'callers', 2);
  assert.deepEqual(flat(callers.nodes[0] as CallTreeNode), ['Strings.trim', '  Main.run', '    Main.main', '    Deeper.m']);
});

test('the cache file is written in several chunks and read back line for line, in order', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-cache-chunks-'));
  try {
    const file = path.join(dir, 'sub', 'index.jsonl');
    // about 1.5 MB of lines of varied lengths: several writes, and a last chunk short of a full one
    const lines = Array.from({ length: 1500 }, (_, i) => `${i}:${'x'.repeat((i * 37) % 2000)}`);
    await writeCacheFile(file, lines);
    const back: string[] = [];
    await readCacheFile(file, (l) => (back.push(l), true));
    assert.equal(back.length, lines.length);
    assert.deepEqual(back, lines);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['index.jsonl'], 'no temporary file left beside it');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('persistence: a second index loads the cache and reparses only what changed', async () => {
  const { root, index } = await build();
  const copy = new CodeIndex(new NodeWorkspace(root));
  assert.equal(copy.load(index.serialize()), 8);
  assert.deepEqual(copy.findTypes('Deeper').map((e) => e.type.fqn), ['com.acme.app.Main.Nested.Deeper']);
  assert.equal(copy.load('{"format":"agent-bridge-code-index","version":0}\n'), 0, 'another version is ignored');
  const cacheFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-code-cache-')), 'index.json');
  await index.save(cacheFile);
  const again = new CodeIndex(new NodeWorkspace(root), { cacheFile });
  await again.ready();
  assert.deepEqual(again.lastBuild && { parsed: again.lastBuild.parsed, cached: again.lastBuild.cached }, { parsed: 0, cached: 8 });
  assert.deepEqual(again.fileSymbols('src/main/java/com/acme/app/Main.java'), index.fileSymbols('src/main/java/com/acme/app/Main.java'));
  const file = path.join(root, 'src/main/java/com/acme/util/Strings.java');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('trim(String s)', 'trim(String s, int n)'));
  const third = new CodeIndex(new NodeWorkspace(root), { cacheFile });
  await third.ready();
  assert.deepEqual(third.lastBuild && { parsed: third.lastBuild.parsed, cached: third.lastBuild.cached }, { parsed: 1, cached: 7 });
  assert.equal(third.findTypes('Strings')[0]?.type.methods.find((m) => m.name === 'trim')?.params.length, 2);
  fs.rmSync(path.dirname(cacheFile), { recursive: true, force: true });
});

test('a save removes the half-written caches of hosts that ended, never a live one', async () => {
  const { index } = await build();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-code-cache-'));
  const cacheFile = path.join(dir, 'index.json');
  const ended = spawnSync(process.execPath, ['-e', '0']).pid; // a process that has exited
  const names = { ended: `index.json.${ended}.tmp`, live: `index.json.${process.ppid}.tmp`, other: `other.json.${ended}.tmp`, odd: 'index.json.x.tmp' };
  for (const n of Object.values(names)) fs.writeFileSync(path.join(dir, n), 'partial');
  await index.save(cacheFile);
  const left = fs.readdirSync(dir).sort();
  assert.deepEqual(left, ['index.json', names.live, names.odd, names.other].sort());
  // A name the cleanup cannot remove (a folder) does not stop the save.
  fs.mkdirSync(path.join(dir, names.ended));
  fs.writeFileSync(path.join(dir, names.ended, 'x'), 'x');
  fs.rmSync(cacheFile);
  await index.save(cacheFile);
  assert.ok(fs.existsSync(cacheFile));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('incremental: update() reparses one file, remove() drops it', async () => {
  const { root, index, graph } = await build();
  const file = path.join(root, 'src/main/java/com/acme/app/Service.java');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('    a();\n  }\n\n  void a()', '    a();\n    c();\n  }\n\n  void c() {}\n\n  void a()'));
  const before = index.generation;
  await index.update(file);
  assert.ok(index.generation > before);
  assert.deepEqual(calleeKeys(graph, method(graph, 'Service.process')), ['14 com.acme.app.Service.a', '15 com.acme.app.Service.c']);
  index.remove('src/main/java/com/acme/util/Strings.java');
  assert.equal(index.findTypes('Strings').length, 0);
  const run = graph.callees(method(graph, 'Main.run')).find((r) => r.site.name === 'trim');
  assert.equal(run?.owner, 'com.acme.util.Strings', 'an imported type outside the index is still its owner');
  assert.equal(run?.targets.length, 0);
});

test('class names as agents write them: file names, paths, other letter case', async () => {
  const { index } = await build();
  for (const name of ['Service.java', 'com/acme/app/Service', 'service', 'COM.ACME.APP.SERVICE', 'Service<T>']) {
    assert.deepEqual(index.findTypes(name).map((e) => e.type.fqn), ['com.acme.app.Service'], name);
  }
});

test('generated code: a 5,000-term expression and a 2,000-call chain keep every call site, in bounded expressions', async () => {
  const sum = (n: number) => Array(n).fill('"a"').join(' + ');
  const { index, graph } = await build({
    'gen/Gen.java': [
      'package gen;',
      'public class Gen {',
      '  static String s(String x) { return x; }',
      `  void deep() { s(${sum(5000)}); }`,
      `  void chain() { new StringBuilder()${'.append(1)'.repeat(2000)}; s("c"); }`,
      '  void other() { s("b"); }',
      '}',
    ].join('\n'),
    // Before the walk was a loop, these overflowed the stack and the files were not indexed at all.
    'web/deep.ts': `export class Deep {\n  run(): void { f(${sum(5000)}); }\n}\nfunction f(x: string): string { return x; }\n`,
    'py/deep.py': `def run():\n    f(${sum(5000)})\n\ndef f(x):\n    return x\n`,
    // A local copies its value's tree into every use: doubled 40 times, 2^40 nodes unbounded.
    'gen/Locals.java': `package gen;\nclass Locals {\n  void twice() {\n    var x0 = 1;\n${Array.from({ length: 40 }, (_, i) => `    var x${i + 1} = x${i} + x${i};`).join('\n')}\n    Gen.s(x40);\n  }\n}\n`,
    // Each local one call longer than the last, and a type of 20,000 characters used 2,000 times.
    'web/chain.ts': `export class Chain {\n  run(t: T${'|T'.repeat(10_000)}): void {\n    const x0 = a.m();\n${Array.from({ length: 5000 }, (_, i) => `    const x${i + 1} = x${i}.m();`).join('\n')}\n${'    t.f();\n'.repeat(2000)}  }\n}\n`,
  });
  assert.equal(index.progress.phase, 'ready');
  assert.deepEqual(calleeKeys(graph, method(graph, 'Gen.other')), ['6 gen.Gen.s']);
  assert.deepEqual(calleeKeys(graph, method(graph, 'Gen.deep')), ['4 gen.Gen.s']);
  const chain = method(graph, 'Gen.chain');
  const sites = index.callsOf(chain);
  assert.equal(sites.filter((c) => c.name === 'append').length, 2000);
  assert.ok(calleeKeys(graph, chain).includes('5 gen.Gen.s'));
  // Each receiver repeats the chain before it: 2 million nodes unbounded, at most EXPR_LIMITS.nodes kept.
  const nodes = (x: unknown): number => (x && typeof x === 'object' ? Object.values(x).reduce((n: number, v) => n + nodes(v), 'k' in x ? 1 : 0) : 0);
  assert.ok(nodes(sites) <= 100_000 + 2 * sites.length, `${nodes(sites)} expression nodes`); // past the bound, one unknown per receiver and argument
  const twice = index.callsOf(method(graph, 'Locals.twice'));
  assert.deepEqual(twice.map((c) => c.name), ['s']);
  assert.ok(nodes(twice) < 200, `${nodes(twice)} expression nodes for one call`);
  const run = index.callsOf(method(graph, 'Chain.run'));
  assert.equal(run.length, 5001 + 2000);
  assert.ok(nodes(run) <= 100_000 + 2 * run.length, `${nodes(run)} expression nodes`);
  assert.ok(JSON.stringify(run).length < 20_000_000, 'no type text copied into every call');
  assert.deepEqual(index.findTypes('Deep').map((e) => e.path), ['web/deep.ts']);
  assert.ok(index.fileSymbols('py/deep.py'), 'the Python file is indexed');
});

test('a file with more call sites than the index keeps, or whose call-site query runs out of time: kept in part, and call_chain says so', async () => {
  const many = MAX_CALL_SITES + 10_000;
  const { index, graph } = await build({
    'gen/Task.java': 'package gen;\npublic class Task { public static void run() {} static void f() {} }\n',
    'gen/Huge.java': `package gen;\nclass Huge {\n  void early() { Task.run(); }\n  void bulk() {\n${'    Task.f();\n'.repeat(many)}  }\n  void late() { Task.run(); }\n}\n`,
    'gen/Small.java': 'package gen;\nclass Small { void go() { Task.run(); } }\n',
  });
  assert.deepEqual(index.callSitesCut(), ['gen/Huge.java']);
  const bulk = index.callsOf(method(graph, 'Huge.bulk'));
  assert.equal(bulk.length, MAX_CALL_SITES - 1, 'the first MAX_CALL_SITES sites in declaration order, early() first');
  assert.deepEqual(index.callsOf(method(graph, 'Huge.late')), []);
  const ws = index.ws;
  setCodeIntel(ws, { index, graph });
  try {
    const out = (await callTool(callChainTool, ws, { method: 'gen.Task.run', direction: 'callers' })) as { result: string; structured: { callSitesCut?: string[] } };
    assert.match(out.result, /Huge\.early/);
    assert.match(out.result, /Small\.go/);
    assert.doesNotMatch(out.result, /Huge\.late/);
    assert.match(out.result, /Calls made in 1 file\(s\) are listed only in part: past 50,000 call sites in one file, past the 10 s a file's call sites may take, or nested deeper than 5,000 levels, the rest are left out: gen\/Huge\.java\./);
    assert.deepEqual(out.structured.callSitesCut, ['gen/Huge.java']);
  } finally {
    dropCodeIntel(ws);
  }
  // The Java call-site query's time budget: past it the calls found so far are kept, and the file says it is cut.
  const text = `package gen;\nclass Slow {\n  void go() {\n${'    Task.f();\n'.repeat(2000)}  }\n}\n`;
  assert.equal((await extractFile('gen/Slow.java', text))?.callsCut, undefined);
  const budget = QUERY_LIMITS.ms;
  const root = makeTree({ 'gen/Slow.java': text }, 'ab-code-');
  // beside the tree, in a folder of its own that goes with the test file
  const cacheFile = path.join(makeTree({}, 'ab-cache-'), 'index.cache');
  QUERY_LIMITS.ms = -1;
  try {
    const cut = await extractFile('gen/Slow.java', text);
    assert.equal(cut?.callsCut, 'time');
    assert.ok((cut?.types[0]?.methods[0]?.calls.length ?? 0) < 2000);
    assert.equal(cut?.types[0]?.methods[0]?.name, 'go', 'declarations are whole');
    const busy = new CodeIndex(new NodeWorkspace(root), { cacheFile });
    await busy.ready();
    assert.deepEqual(busy.callSitesCut(), ['gen/Slow.java']);
  } finally {
    QUERY_LIMITS.ms = budget;
  }
  // A cut for time is not taken from the cache: the file is parsed again, and this time whole.
  const again = new CodeIndex(new NodeWorkspace(root), { cacheFile });
  await again.ready();
  assert.equal(again.lastBuild?.parsed, 1);
  assert.deepEqual(again.callSitesCut(), []);
  assert.equal(again.callsOf(method(new CallGraph(again), 'Slow.go')).length, 2000);
  // Calls nested deeper than the query looks (a generated expression): the file says it is cut.
  const nested = (n: number) => `package gen;\nclass Deep {\n  int go() {\n    Task.f();\n    return ${'('.repeat(n)}Task.run()${')'.repeat(n)};\n  }\n}\n`;
  const shallow = await extractFile('gen/Deep.java', nested(QUERY_LIMITS.depth - 100));
  assert.deepEqual(shallow?.types[0]?.methods[0]?.calls.map((c) => c.name), ['f', 'run']);
  assert.equal(shallow?.callsCut, undefined);
  const deep = await extractFile('gen/Deep.java', nested(QUERY_LIMITS.depth + 100));
  assert.deepEqual(deep?.types[0]?.methods[0]?.calls.map((c) => c.name), ['f'], 'the query does not look that deep');
  assert.equal(deep?.callsCut, 'depth');
  // nesting that deep with no call in it leaves nothing out
  const noCall = await extractFile('gen/Deep.java', nested(QUERY_LIMITS.depth + 100).replace('Task.run()', '1'));
  assert.deepEqual(noCall?.types[0]?.methods[0]?.calls.map((c) => c.name), ['f']);
  assert.equal(noCall?.callsCut, undefined);
  // A cut for count is: parsing again would cut it the same way.
  const third = new CodeIndex(new NodeWorkspace(index.ws.root), { cacheFile: `${cacheFile}.huge` });
  await third.ready();
  const fourth = new CodeIndex(new NodeWorkspace(index.ws.root), { cacheFile: `${cacheFile}.huge` });
  await fourth.ready();
  assert.equal(fourth.lastBuild?.parsed, 0);
  assert.deepEqual(fourth.callSitesCut(), ['gen/Huge.java']);
  // The lists are kept per change of the index (each call_chain answer asks): an edit that brings
  // the file under the cap takes it off.
  fs.writeFileSync(path.join(index.ws.root, 'gen/Huge.java'), 'package gen;\nclass Huge { void early() { Task.run(); } }\n');
  await index.update('gen/Huge.java');
  assert.deepEqual(index.callSitesCut(), []);
});
