import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { configureCodeIndexes, codeIntelFor, dropCodeIntel } from '../../src/core/code/intel/intel';
import { NEEDED_FILES_LIMITS } from '../../src/core/code/intel/neededFilesIndex';
import { callChainTool } from '../../src/core/tools/callChain';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { callTool } from '../support/tools';

/**
 * call_chain before the index is built (intel/neededFilesIndex.ts): answered from the files the question
 * needs, and the same answer, byte for byte, as the full index gives once built. The tool may not
 * wait for the index here (a 1 ms wait would answer TIMEOUT), so an answer proves the cold path.
 */

before(() => configureCodeIndexes({ waitMs: 1 }));
after(() => configureCodeIndexes({}));

const answerOf = (r: unknown) => r as { result: string; structured: unknown };

test('a name called from more files than the cold bound is not guessed: the tool waits for the index instead', async () => {
  const files: Record<string, string> = { 'src/p/Task.java': 'package p;\npublic class Task { public void run() {} }\n' };
  for (let i = 0; i < 30; i++) files[`src/p/User${i}.java`] = `package p;\nclass User${i} { void go() { new Task().run(); } }\n`;
  const ws = new NodeWorkspace(makeTree(files));
  const saved = { ...NEEDED_FILES_LIMITS };
  NEEDED_FILES_LIMITS.maxFiles = 20;
  try {
    // callers of `run` would mean parsing 31 files: over the bound, so the 1 ms wait for the index answers
    await assert.rejects(callTool(callChainTool, ws, { method: 'p.Task.run', direction: 'callers' }), /still being built/);
    // its callees need only its own file
    assert.match(answerOf(await callTool(callChainTool, ws, { method: 'p.User7.go', direction: 'callees' })).result, /Task\.run/);
  } finally {
    Object.assign(NEEDED_FILES_LIMITS, saved);
  }
  await codeIntelFor(ws).index.ready();
  assert.equal((answerOf(await callTool(callChainTool, ws, { method: 'p.Task.run', direction: 'callers' })).structured as { callers: Array<{ children: unknown[] }> }).callers[0]?.children.length, 30);
  dropCodeIntel(ws);
});

test('cold answers keep the access policy: no secret file, no file behind a link out of the project', async () => {
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-cold-outside-'));
  after(() => fs.rmSync(outside, { recursive: true, force: true }));
  fs.writeFileSync(path.join(outside, 'Leak.java'), 'package p;\nclass Leak { void leakOutside() { new Target().hit(); } }\n');
  const root = makeTree({
    'src/p/Target.java': 'package p;\npublic class Target { public void hit() {} }\n',
    'src/p/Caller.java': 'package p;\nclass Caller { void call() { new Target().hit(); } }\n',
    'src/p/.envCaller.java': 'package p;\nclass Hidden { void secretCaller() { new Target().hit(); } }\n',
  });
  fs.symlinkSync(path.join(outside, 'Leak.java'), path.join(root, 'src/p/Leak.java'));
  const ws = new NodeWorkspace(root);
  const cold = answerOf(await callTool(callChainTool, ws, { method: 'p.Target.hit', direction: 'callers' }));
  assert.equal(codeIntelFor(ws).index.isReady, false);
  assert.match(cold.result, /Caller\.call/);
  assert.doesNotMatch(cold.result, /secretCaller|Hidden|\.envCaller|leakOutside|Leak/);
  await codeIntelFor(ws).index.ready();
  assert.equal(answerOf(await callTool(callChainTool, ws, { method: 'p.Target.hit', direction: 'callers' })).result, cold.result);
  dropCodeIntel(ws);
});
