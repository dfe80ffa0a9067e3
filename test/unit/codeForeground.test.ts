import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { ForegroundGate } from '../../src/core/code/intel/foreground';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

/** Cold answers first: the index build starts no new file while one runs, and is never held for long. */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('the build waits while a cold answer runs, and goes on when it ends', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 120; i++) files[`src/p/C${i}.java`] = `package p;\nclass C${i} { void f() {} }\n`;
  const gate = new ForegroundGate();
  let release!: () => void;
  const cold = gate.run(() => new Promise<void>((r) => (release = r)));
  const index = new CodeIndex(new NodeWorkspace(makeTree(files, 'ab-fg-')), { workers: 0, foreground: gate });
  const built = index.ready();
  await sleep(400);
  assert.equal(index.isReady, false, 'built while a cold answer ran');
  assert.equal(index.fileCount, 0);
  release();
  await cold;
  await built;
  assert.equal(index.fileCount, 120);
});

test('a stream of cold answers holds the build back at most 3 s at a time', async () => {
  const gate = new ForegroundGate();
  assert.equal(gate.busy, false);
  const t0 = Date.now();
  await gate.idle(); // nothing runs: at once
  assert.ok(Date.now() - t0 < 50);
  let release!: () => void;
  const cold = gate.run(() => new Promise<void>((r) => (release = r)));
  assert.equal(gate.busy, true);
  const t1 = Date.now();
  await gate.idle();
  const held = Date.now() - t1;
  assert.ok(held >= 2900 && held < 4000, `held ${held} ms`);
  // Then the build runs for a while before it can be held again.
  const t2 = Date.now();
  await gate.idle();
  assert.ok(Date.now() - t2 < 50);
  release();
  await cold;
  assert.equal(gate.busy, false);
});
