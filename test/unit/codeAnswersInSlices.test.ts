import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { CallGraph } from '../../src/core/code/index/callGraph';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { runSliced, SLICE_LIMITS, type Sliced } from '../../src/core/code/index/slices';
import { dropCodeIntel } from '../../src/core/code/intel/intel';
import { setCodeIntel } from '../../src/core/code/intel/state';
import { ToolError } from '../../src/core/protocol/errors';
import { callChainTool } from '../../src/core/tools/callChain';
import { readClassTool } from '../../src/core/tools/readClass';
import { readMethodTool } from '../../src/core/tools/readMethod';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { TablesProbe } from '../support/tablesProbe';
import { callTool, failsWith } from '../support/tools';

/**
 * call_chain from the built index runs in slices (index/slices.ts): a question reading thousands
 * of call sites (callers of `add` on the JDK, about 2 s) gives the event loop back between them,
 * hears its cancel in the middle, and, when a save changes the index during its pauses, answers
 * as the index is after the save, never a mix of both.
 */

const CALLERS = 40;
const saved = { ...SLICE_LIMITS };
// a pause at every yield: the pauses the answer makes are many even on a small project
before(() => (SLICE_LIMITS.ms = 0));
after(() => Object.assign(SLICE_LIMITS, saved));

function project(): Record<string, string> {
  const files: Record<string, string> = {
    'a/Target.java': 'package a;\npublic class Target {\n  public void hit() {}\n}\n',
  };
  for (let i = 0; i < CALLERS; i++) files[`c/C${i}.java`] = `package c;\nimport a.Target;\nclass C${i} {\n  void go${i}(Target t) { t.hit(); }\n}\n`;
  return files;
}

async function builtIndex(extra: Record<string, string> = {}, Index: typeof CodeIndex = CodeIndex): Promise<{ ws: NodeWorkspace; index: CodeIndex; root: string }> {
  const root = makeTree({ ...project(), ...extra }, 'ab-sliced-');
  const ws = new NodeWorkspace(root);
  const index = new Index(ws, { workers: 0 });
  await index.ready();
  setCodeIntel(ws, { index, graph: new CallGraph(index) });
  return { ws, index, root };
}

/** Counts the turns of the event loop until stopped: how often a running answer let it run. */
function countTurns(): { readonly turns: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return { turns: () => turns, stop: () => (running = false) };
}

const callersOf = (ws: NodeWorkspace, signal?: AbortSignal) => callTool(callChainTool, ws, { method: 'a.Target.hit', direction: 'callers' }, signal);

test('a callers answer from the built index lets the event loop run between its lookups, and is the answer computed at once', async () => {
  const { ws, root } = await builtIndex();
  try {
    const loop = countTurns();
    const sliced = await callersOf(ws);
    loop.stop();
    // 40 files and 40 call sites read, each followed by a pause (one turn each at least)
    assert.ok(loop.turns() >= CALLERS, `the event loop ran ${loop.turns()} times during the answer`);
    for (let i = 0; i < CALLERS; i++) assert.match(sliced.result, new RegExp(`C${i}\\.go${i}`));
    SLICE_LIMITS.ms = Number.POSITIVE_INFINITY;
    const whole = await callersOf(ws);
    SLICE_LIMITS.ms = 0;
    assert.equal(sliced.result, whole.result);
    assert.deepEqual(sliced.structured, whole.structured);
  } finally {
    SLICE_LIMITS.ms = 0;
    dropCodeIntel(ws);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a save during the pauses of an answer: the answer is the index after the save, not a mix', async () => {
  // Whether the save lands before the answer ends depends on the machine's load: tried until it does.
  let landed = false;
  for (let attempt = 0; attempt < 10 && !landed; attempt++) {
    const { ws, index, root } = await builtIndex();
    try {
      const version = index.version();
      let savedFirst = false;
      // at the answer's first pause: C0 stops calling hit()
      setImmediate(() => {
        fs.writeFileSync(path.join(root, 'c/C0.java'), 'package c;\nclass C0 {\n  void go0() { }\n}\n');
        void index.update(path.join(root, 'c/C0.java')).then(() => (savedFirst = true));
      });
      const answer = await callersOf(ws);
      if (!savedFirst) continue;
      landed = true;
      assert.equal(index.unchanged(version), false, 'the save moved the version');
      assert.doesNotMatch(answer.result, /C0\.go0/);
      for (let i = 1; i < CALLERS; i++) assert.match(answer.result, new RegExp(`C${i}\\.go${i}`));
      const after = await callersOf(ws);
      assert.equal(answer.result, after.result);
    } finally {
      dropCodeIntel(ws);
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  assert.ok(landed, 'the save landed before the answer was given (in 10 tries)');
});

test('a save that changes what a caller imports, while the answer resolves the call sites: neither it nor a later answer keeps the old reading', async () => {
  // The save is started after a number of turns; on a loaded machine its parse can finish after
  // the answer, so each try starts it earlier, and one of them must land during the answer.
  let landed = false;
  for (const startTurn of [CALLERS + 5, Math.floor(CALLERS / 2), 3]) {
    // b.Target too: C39 will import it instead of a.Target
    const { ws, index, root } = await builtIndex({ 'b/Target.java': 'package b;\npublic class Target {\n  public void hit() {}\n}\n' });
    const last = CALLERS - 1;
    const file = path.join(root, `c/C${last}.java`);
    try {
      let turns = 0;
      let savedFirst = false;
      // past the pauses after each file, among those after each call site resolved
      const tick = (): void => {
        if (++turns < startTurn) return void setImmediate(tick);
        fs.writeFileSync(file, `package c;\nimport b.Target;\nclass C${last} {\n  void go${last}(Target t) { t.hit(); }\n}\n`);
        void index.update(file).then(() => (savedFirst = true));
      };
      setImmediate(tick);
      const first = await callersOf(ws);
      if (!savedFirst) continue;
      landed = true;
      const later = await callersOf(ws);
      const edited = new RegExp(`C${last}\\.go${last}`);
      assert.doesNotMatch(first.result, edited, 'the answer given');
      assert.doesNotMatch(later.result, edited, 'a later answer');
      assert.match(first.result, /C0\.go0/);
      break;
    } finally {
      dropCodeIntel(ws);
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  assert.ok(landed, 'the save landed before the answer was given');
});

test('lookup tables made in slices after a change are thrown away when the index changes again meanwhile', async () => {
  const { ws, index, root } = await builtIndex();
  SLICE_LIMITS.records = 4;
  try {
    const save = async (i: number): Promise<void> => {
      const file = path.join(root, `c/C${i}.java`);
      fs.writeFileSync(file, `package c;\nclass C${i} {}\nclass Fresh${i} {}\n`);
      await index.update(file);
    };
    await save(0); // the tables are dropped
    const work = index.lookupTablesSliced();
    assert.equal(work.next().done, false);
    await save(1); // at a pause: the records it read are no longer all current
    let pauses = 1;
    while (!work.next().done) pauses++;
    assert.ok(pauses >= CALLERS / 4, `${pauses} pauses over ${CALLERS + 1} files`);
    assert.equal(index.findTypes('c.Fresh1').length, 1, 'a lookup after the change sees it');
    assert.equal(index.findTypes('c.Fresh0').length, 1);
    // with no change meanwhile, the tables made in slices are the ones lookups use
    await save(2);
    for (const w = index.lookupTablesSliced(); !w.next().done; );
    assert.equal(index.findTypes('c.Fresh2').length, 1);
  } finally {
    SLICE_LIMITS.records = saved.records;
    dropCodeIntel(ws);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('after a save, call_chain, read_class and read_method make the lookup tables in slices and answer from them', async () => {
  const { ws, index, root } = await builtIndex({}, TablesProbe);
  const probe = index as TablesProbe;
  SLICE_LIMITS.records = 4;
  try {
    const save = async (i: number): Promise<void> => {
      const file = path.join(root, `c/C${i}.java`);
      fs.writeFileSync(file, `${fs.readFileSync(file, 'utf8')}\n`);
      await index.update(file);
    };
    const asks: Array<[string, () => ReturnType<typeof callTool>]> = [
      ['call_chain', () => callersOf(ws)],
      ['read_class', () => callTool(readClassTool, ws, { className: 'a.Target' })],
      ['read_method', () => callTool(readMethodTool, ws, { className: 'a.Target', methodName: 'hit' })],
    ];
    for (const [i, [name, ask]] of asks.entries()) {
      await save(i); // the tables are dropped
      const before = probe.runs.length;
      assert.match(String((await ask()).result), /hit/);
      const runs = probe.runs.slice(before);
      assert.ok(runs.some((r) => r.steps >= CALLERS / 4 && r.installed), `${name}: tables made in slices and used: ${JSON.stringify(runs)}`);
    }
  } finally {
    SLICE_LIMITS.records = saved.records;
    dropCodeIntel(ws);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a cancel during an answer stops it at its next pause', async () => {
  const { ws, root } = await builtIndex();
  try {
    const abort = new AbortController();
    setImmediate(() => abort.abort(new ToolError('CANCELLED', 'stopped by the test')));
    await failsWith(callersOf(ws, abort.signal), 'CANCELLED', /stopped by the test/);
  } finally {
    dropCodeIntel(ws);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a sliced run closes its generator when it is cancelled', async () => {
  let closed = false;
  function* work(): Sliced<number> {
    try {
      for (let i = 0; i < 1000; i++) yield;
      return 1;
    } finally {
      closed = true;
    }
  }
  const abort = new AbortController();
  setImmediate(() => abort.abort(new Error('stop')));
  await assert.rejects(runSliced(work(), { signal: abort.signal, sliceMs: 0 }), /stop/);
  assert.ok(closed);
});
