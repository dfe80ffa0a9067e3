import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { readClassTool } from '../../src/core/tools/readClass';
import { readMethodTool } from '../../src/core/tools/readMethod';
import { codeIntelFor } from '../../src/core/code/intel/intel';
import { filesDeclaring } from '../../src/core/code/intel/quickLookup';
import { findOnPath, NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { JAVA_PROJECT } from '../support/javaProject';
import { callTool } from '../support/tools';

const call = (workspace: NodeWorkspace, params: Record<string, unknown>) => callTool(readClassTool, workspace, params);

test('before the index is built, a fully qualified read_class answers from its one file, the same as the index later does', async () => {
  const ws = new NodeWorkspace(makeTree(JAVA_PROJECT, 'ab-quick-'));
  const index = codeIntelFor(ws).index;
  assert.equal(index.isReady, false);
  const quick = await call(ws, { className: 'com.acme.app.Main', mode: 'structure' });
  assert.equal(index.isReady, false, 'answered without waiting for the index');
  await index.ready();
  const indexed = await call(ws, { className: 'com.acme.app.Main', mode: 'structure' });
  assert.equal(quick.result, indexed.result);
  assert.match(quick.result, /com\.acme\.app\.Main/);
});

test('before the index is built, simple and partly qualified names answer from the files that declare them, exactly as the index later does', async () => {
  const tree = makeTree(
    {
      ...JAVA_PROJECT,
      // a second Inner, nested elsewhere; a comment and a string that mention `class Inner` but declare nothing
      'src/main/java/com/acme/util/Box.java': 'package com.acme.util;\n// not a class Inner\npublic class Box {\n  String s = "class Inner";\n  public static class Inner {}\n}\n',
      'pom.xml': '<project/>',
      'target/classes/Copy.java': 'package x;\nclass Main {}\n', // build output beside pom.xml: never indexed
    },
    'ab-quick-simple-',
  );
  const cases = ['Main', 'User', 'Inner', 'Main.Inner', 'Checks', 'Nested.Deeper'];
  const answers: string[] = [];
  for (const className of cases) {
    // a fresh host each time: the first answer starts the index build in the background
    const quickWs = new NodeWorkspace(tree);
    answers.push((await call(quickWs, { className, mode: 'structure' })).result);
    assert.equal(codeIntelFor(quickWs).index.isReady, false, `${className} answered without waiting for the index`);
  }
  assert.match(answers[1] as string, /Several classes match `User`[\s\S]*com\.acme\.model\.User[\s\S]*com\.other\.model\.User/);
  assert.match(answers[2] as string, /Several classes match `Inner`[\s\S]*com\.acme\.app\.Main\.Inner[\s\S]*com\.acme\.util\.Box\.Inner/);
  assert.doesNotMatch(answers[0] as string, /Several|Copy\.java/);
  // build output is skipped by both paths
  await assert.rejects(call(new NodeWorkspace(tree), { className: 'Ignored', mode: 'structure' }), /not found/i);
  // the same calls once the index is built, on a workspace that never took the quick path
  const indexedWs = new NodeWorkspace(tree);
  await codeIntelFor(indexedWs).index.ready();
  for (const [i, className] of cases.entries()) {
    assert.equal((await call(indexedWs, { className, mode: 'structure' })).result, answers[i], className);
  }
});

test('without ripgrep a simple name goes through the index; an unknown qualified name is NOT_FOUND', async () => {
  const ws = new NodeWorkspace(makeTree(JAVA_PROJECT, 'ab-quick2-'), { ripgrep: false });
  const simple = await call(ws, { className: 'Main', mode: 'structure' });
  assert.equal(codeIntelFor(ws).index.declarationsIn, true);
  assert.match(simple.result, /com\.acme\.app\.Main/);
  await assert.rejects(call(new NodeWorkspace(makeTree(JAVA_PROJECT, 'ab-quick3-')), { className: 'com.acme.Nope', mode: 'structure' }), /NOT_FOUND|not found/i);
});

test('read_method before the index is built answers from the declaring file, as the index later does', async () => {
  const tree = makeTree(JAVA_PROJECT, 'ab-quick-method-');
  const run = (workspace: NodeWorkspace, params: Record<string, unknown>) => callTool(readMethodTool, workspace, params);
  const quickWs = new NodeWorkspace(tree);
  const quick = await run(quickWs, { className: 'Service', methodName: 'handle' });
  assert.equal(codeIntelFor(quickWs).index.isReady, false);
  const indexedWs = new NodeWorkspace(tree);
  await codeIntelFor(indexedWs).index.ready();
  assert.equal((await run(indexedWs, { className: 'Service', methodName: 'handle' })).result, quick.result);
  assert.match(quick.result, /com\.acme\.app\.Service/);
});

test('before the index is built, read_method of a class name declared in several places lists every match with its path at once, as the index does later', async () => {
  const tree = makeTree(
    {
      'src/a/Box.java': 'package a;\n\npublic class Box {\n  /** Adds to a. */\n  public void add(int x) {}\n}\n',
      'src/b/Box.java': 'package b;\n\npublic class Box {\n  public boolean add(String s) { return true; }\n}\n',
      'src/c/Box.java': 'package c;\n\npublic class Box {\n  public void other() {}\n}\n',
    },
    'ab-quick-method-',
  );
  const coldWs = new NodeWorkspace(tree);
  const cold = await callTool(readMethodTool, coldWs, { className: 'Box', methodName: 'add' });
  assert.equal(codeIntelFor(coldWs).index.isReady, false, 'answered without waiting for the index');
  const s = cold.structured as { ambiguous?: boolean; candidates?: Array<{ className: string; path: string }> };
  assert.equal(s.ambiguous, true);
  assert.deepEqual(s.candidates?.map((c) => `${c.className} ${c.path}`), ['a.Box src/a/Box.java', 'b.Box src/b/Box.java']);
  const warmWs = new NodeWorkspace(tree);
  await codeIntelFor(warmWs).index.ready();
  const warm = await callTool(readMethodTool, warmWs, { className: 'Box', methodName: 'add' });
  assert.equal(cold.result, warm.result);
  assert.deepEqual(cold.structured, warm.structured);
});

test('a slow disk: ripgrep taking 6 s still answers which files declare a class (the index takes minutes on a large tree)', { timeout: 30_000 }, async () => {
  // With the disk cache cold, 60,000 files took ripgrep 3.6 s alone, more while the index build
  // read the same files; the search used to give up at 5 s and the tool then waited for the index.
  const rg = findOnPath('rg');
  assert.ok(rg, 'ripgrep on PATH (scripts/setup-jdk.sh and CI install it)');
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-slow-rg-'));
  const slow = path.join(bin, 'rg');
  fs.writeFileSync(slow, `#!/bin/sh\nsleep 6\nexec ${JSON.stringify(rg)} "$@"\n`, { mode: 0o755 });
  try {
    const ws = new NodeWorkspace(makeTree(JAVA_PROJECT, 'ab-quick-slow-'), { ripgrep: slow });
    const started = Date.now();
    const files = await filesDeclaring(ws, 'Main');
    assert.ok(Date.now() - started >= 6000, 'the slow ripgrep ran');
    assert.deepEqual(files, ['src/main/java/com/acme/app/Main.java']);
  } finally {
    fs.rmSync(bin, { recursive: true, force: true });
  }
});
