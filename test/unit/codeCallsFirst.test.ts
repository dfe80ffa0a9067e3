import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CallGraph } from '../../src/core/code/index/callGraph';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { CallPulls, PassQueue } from '../../src/core/code/index/passQueue';
import { configureCodeIndexes, dropCodeIntel } from '../../src/core/code/intel/intel';
import { ON_DEMAND_LIMITS } from '../../src/core/code/intel/onDemand';
import { byWorkspace } from '../../src/core/code/intel/state';
import { callChainTool } from '../../src/core/tools/callChain';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from './helpers/fixtures';
import { callTool, failsWith } from './helpers/tools';

/**
 * call_chain while the index's call-site pass runs (intel/callsFirst.ts): the files the question
 * needs are pulled to the front of the pass (index/passQueue.ts), and the answer, given before
 * the pass ends, is the one the built index gives.
 */

const saved = { ...ON_DEMAND_LIMITS };
before(() => {
  // beyond a cold answer's bounds, as callers of `add` on a large project: the cold path gives up
  ON_DEMAND_LIMITS.maxFiles = 0;
  configureCodeIndexes({ waitMs: 15_000 });
});
after(() => {
  Object.assign(ON_DEMAND_LIMITS, saved);
  configureCodeIndexes({});
});

/** A build held back like a cold answer holds it (intel/foreground.ts), released by the test. */
class Gate {
  busy = false;
  private release: Array<() => void> = [];
  idle(): Promise<void> {
    return this.busy ? new Promise((resolve) => this.release.push(resolve)) : Promise.resolve();
  }
  open(): void {
    this.busy = false;
    for (const r of this.release.splice(0)) r();
  }
}

const FILLERS = 120;

function project(): Record<string, string> {
  const files: Record<string, string> = {
    // listed last (the pass goes in path order): only pulling them first answers before the pass ends
    'z/a/Target.java': 'package a;\npublic class Target {\n  public void hit() {}\n  public void other() { helper(); hit(); }\n  void helper() {}\n}\n',
    'z/b/Caller.java': 'package b;\nimport a.Target;\npublic class Caller {\n  public void go(Target t) { t.hit(); }\n}\n',
    'z/c/Mid.java': 'package c;\nimport b.Caller;\nclass Mid {\n  void run() { new Caller().go(null); }\n}\n',
    'z/d/Unrelated.java': 'package d;\nclass Unrelated {\n  void hit() {}\n  void x() { hit(); }\n}\n',
  };
  for (let i = 0; i < FILLERS; i++) files[`f/F${i}.java`] = `package f;\nclass F${i} {\n  int v${i}() { return Math.abs(${i}); }\n}\n`;
  return files;
}

async function heldIndex(): Promise<{ ws: NodeWorkspace; index: CodeIndex; gate: Gate; built: Promise<void> }> {
  const ws = new NodeWorkspace(makeTree(project(), 'ab-callsfirst-'));
  const gate = new Gate();
  const index = new CodeIndex(ws, { workers: 0, foreground: gate });
  const built = index.ready();
  await index.declarationsReady();
  gate.busy = true;
  byWorkspace.set(ws, { index, graph: new CallGraph(index) });
  return { ws, index, gate, built };
}

const outlined = (index: CodeIndex, prefix: string): number => index.outlinedAmong([...index.paths()].filter((p) => p.startsWith(prefix))).length;

test('callers and callees answered while the call-site pass is held back: only the files the question needs are parsed, and the answer is the built index’s', async () => {
  const { ws, index, gate, built } = await heldIndex();
  try {
    assert.ok(outlined(index, 'f/') >= FILLERS - 2, 'the pass has barely started');
    const questions = [
      { method: 'a.Target.hit', direction: 'callers', depth: 2 },
      { method: 'a.Target.other', direction: 'callees', depth: 1 },
      { method: 'a.Target.hit', direction: 'both', depth: 1 },
    ];
    const early: string[] = [];
    for (const q of questions) early.push((await callTool(callChainTool, ws, q)).result as string);
    assert.equal(index.isReady, false, 'answered before the pass ended');
    assert.match(early[0] as string, /Caller\.go/);
    assert.match(early[0] as string, /Mid\.run/, 'the second level: callers of Caller.go, pulled in a second round');
    assert.match(early[1] as string, /helper/);
    assert.equal(outlined(index, 'z/'), 0, 'the files naming hit, go and other were pulled');
    assert.ok(outlined(index, 'f/') >= FILLERS - 2, `no filler was parsed for the answers (${outlined(index, 'f/')} of ${FILLERS} still outlined)`);
    gate.open();
    await built;
    assert.equal(index.isReady, true);
    for (const [i, q] of questions.entries()) assert.equal((await callTool(callChainTool, ws, q)).result, early[i], `${q.method} ${q.direction}: the built index's answer`);
  } finally {
    gate.open();
    dropCodeIntel(ws);
  }
});

test('a question whose files cannot be pulled in time answers TIMEOUT, as waiting for the whole index did', async () => {
  configureCodeIndexes({ waitMs: 1 });
  const { ws, index, gate } = await heldIndex();
  try {
    await failsWith(callTool(callChainTool, ws, { method: 'a.Target.hit', direction: 'callers' }), 'TIMEOUT', /still being built \(call sites: /);
    assert.equal(index.isReady, false);
  } finally {
    configureCodeIndexes({ waitMs: 15_000 });
    gate.open();
    dropCodeIntel(ws);
  }
});

test('the pass order: wanted files first and once each; a wanted file already taken is settled only when the pass is done with it', async () => {
  const pulls = new CallPulls();
  const queue = new PassQueue(['a', 'b', 'c', 'd'], pulls);
  assert.equal(queue.take(), 'a');
  let done = false;
  const waiting = pulls.want(['c', 'a', 'x']).then(() => (done = true));
  assert.deepEqual(queue.ahead(3), ['c', 'b', 'd'], 'read ahead: the wanted file first, then the list');
  assert.equal(queue.take(), 'c');
  assert.equal(queue.take(), 'b', "'a' is taken already, 'x' is not this pass's");
  pulls.settles('c');
  await Promise.resolve();
  assert.equal(done, false, "'a' is still being parsed");
  pulls.settles('a');
  await waiting;
  assert.equal(queue.take(), 'd');
  assert.equal(queue.take(), undefined, 'each file once');
  // a stopped answer stops waiting
  const ctl = new AbortController();
  const stopped = pulls.want(['zz'], ctl.signal);
  ctl.abort();
  await stopped;
});
