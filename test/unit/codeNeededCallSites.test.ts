import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { CallGraph } from '../../src/core/code/index/callGraph';
import { CodeIndex, type IndexVersion } from '../../src/core/code/index/codeIndex';
import type { PackedSymbols } from '../../src/core/code/packedSymbols';
import { FilesWanted, PassQueue } from '../../src/core/code/index/passQueue';
import { SLICE_LIMITS, slicePauses } from '../../src/core/code/index/slices';
import { configureCodeIndexes, dropCodeIntel } from '../../src/core/code/intel/intel';
import { NEEDED_FILES_LIMITS } from '../../src/core/code/intel/neededFilesIndex';
import { setCodeIntel } from '../../src/core/code/intel/state';
import { callChainTool } from '../../src/core/tools/callChain';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { DEFAULT_EXCLUDE_GLOBS } from '../../src/core/policy/secrets';
import { SecretGuard } from '../../src/core/workspace/globSet';
import { makeTree } from '../support/fixtures';
import { waitUntil } from '../support/waitUntil';
import { TablesProbe } from '../support/tablesProbe';
import { callTool, failsWith } from '../support/tools';

/**
 * call_chain while the index's call-site pass runs (intel/neededCallSites.ts): the files the question
 * needs are moved to the front of the pass (index/passQueue.ts), and the answer, given before
 * the pass ends, is the one the built index gives.
 */

const saved = { ...NEEDED_FILES_LIMITS };
const savedSlice = SLICE_LIMITS.ms;
const savedRecords = SLICE_LIMITS.records;
before(() => {
  // beyond a cold answer's bounds, as callers of `add` on a large project: the cold path gives up
  NEEDED_FILES_LIMITS.maxFiles = 0;
  configureCodeIndexes({ waitMs: 15_000 });
});
after(() => {
  Object.assign(NEEDED_FILES_LIMITS, saved);
  configureCodeIndexes({});
});

/** A build held back like a cold answer holds it (intel/foreground.ts), let go a file at a time or for good by the test. */
class Gate {
  busy = false;
  private release: Array<() => void> = [];
  idle(): Promise<void> {
    return this.busy ? new Promise((resolve) => this.release.push(resolve)) : Promise.resolve();
  }
  step(): void {
    this.release.shift()?.();
  }
  open(): void {
    this.busy = false;
    for (const r of this.release.splice(0)) r();
  }
}

const turn = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

const FILLERS = 120;

function project(): Record<string, string> {
  const files: Record<string, string> = {
    // listed last (the pass goes in path order): only parsing them first answers before the pass ends
    'z/a/Target.java': 'package a;\npublic class Target {\n  public void hit() {}\n  public void other() { helper(); hit(); }\n  void helper() {}\n}\n',
    'z/b/Caller.java': 'package b;\nimport a.Target;\npublic class Caller {\n  public void go(Target t) { t.hit(); }\n}\n',
    'z/c/Mid.java': 'package c;\nimport b.Caller;\nclass Mid {\n  void run() { new Caller().go(null); }\n}\n',
    'z/d/Unrelated.java': 'package d;\nclass Unrelated {\n  void hit() {}\n  void x() { hit(); }\n}\n',
  };
  for (let i = 0; i < FILLERS; i++) files[`f/F${i}.java`] = `package f;\nclass F${i} {\n  int v${i}() { return Math.abs(${i}); }\n}\n`;
  return files;
}

async function heldIndex(
  files = project(),
  Index: typeof CodeIndex = CodeIndex,
  Ws: typeof NodeWorkspace = NodeWorkspace,
  prepare: (root: string) => void = () => undefined,
): Promise<{ ws: NodeWorkspace; index: CodeIndex; gate: Gate; built: Promise<void> }> {
  const root = makeTree(files, 'ab-needed-calls-');
  prepare(root);
  const ws = new Ws(root);
  const gate = new Gate();
  const index = new Index(ws, { workers: 0, foreground: gate });
  const built = index.ready();
  await index.declarationsReady();
  gate.busy = true;
  setCodeIntel(ws, { index, graph: new CallGraph(index) });
  return { ws, index, gate, built };
}

const outlined = (index: CodeIndex, prefix: string): number => index.awaitingCalls([...index.paths()].filter((p) => p.startsWith(prefix))).length;

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
    // a pause at every yield: the rounds that find the files in, and so the answers, are worked out in slices
    SLICE_LIMITS.ms = 0;
    const pausesBefore = slicePauses.count;
    try {
      for (const q of questions) early.push((await callTool(callChainTool, ws, q)).result as string);
    } finally {
      SLICE_LIMITS.ms = savedSlice;
    }
    assert.ok(slicePauses.count - pausesBefore >= 3, `${slicePauses.count - pausesBefore} pauses in the answers given while the index builds`);
    assert.equal(index.isReady, false, 'answered before the pass ended');
    assert.match(early[0] as string, /Caller\.go/);
    assert.match(early[0] as string, /Mid\.run/, 'the second level: callers of Caller.go, parsed first in a second round');
    assert.match(early[1] as string, /helper/);
    assert.equal(outlined(index, 'z/'), 0, 'the files naming hit, go and other were parsed first');
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

/** A workspace whose secret globs a test changes, as a settings change does. */
class GlobsChange extends NodeWorkspace {
  guard = new SecretGuard([...DEFAULT_EXCLUDE_GLOBS]);
  override secretGuard(): SecretGuard {
    return this.guard;
  }
}

/**
 * Callers of `hit` asked while the index builds, the secret globs coming to cover z/b/ (Caller)
 * `turnsAfter` turns of the event loop after the round's last pause: 0, at that pause; 2, once
 * the round is done and its ripgrep search runs. The answer, given after the change.
 */
async function globsChangeDuringRound(turnsAfter: number): Promise<{ early: string; changed: boolean }> {
  const h = await heldIndex(project(), CodeIndex, GlobsChange);
  const ws = h.ws as GlobsChange;
  const q = { method: 'a.Target.hit', direction: 'callers', depth: 1 };
  try {
    // the files in first: the next call's first round finds them all, and answers
    assert.match((await callTool(callChainTool, ws, q)).result, /Caller\.go/);
    SLICE_LIMITS.ms = 0;
    let changed = false;
    try {
      // how many pauses the round makes
      const first = slicePauses.count;
      await callTool(callChainTool, ws, q);
      const pauses = slicePauses.count - first;
      assert.ok(pauses > 0);
      const start = slicePauses.count;
      let after = 0;
      const watch = (): void => {
        if (slicePauses.count < start + pauses || after++ < turnsAfter) return void setImmediate(watch);
        ws.guard = new SecretGuard([...DEFAULT_EXCLUDE_GLOBS, 'z/b/**']);
        changed = true;
      };
      setImmediate(watch);
      const early = (await callTool(callChainTool, ws, q)).result as string;
      assert.equal(h.index.isReady, false);
      return { early, changed };
    } finally {
      SLICE_LIMITS.ms = savedSlice;
    }
  } finally {
    h.gate.open();
    dropCodeIntel(ws);
  }
}

test('the secret globs change during the pauses of a round, or during its search: the file they now cover is in no answer', async () => {
  for (const turnsAfter of [0, 2]) {
    // A round's pauses vary with the machine's load: the case is tried until the change did land during the answer.
    let tried: { early: string; changed: boolean } | undefined;
    for (let attempt = 0; attempt < 10 && !tried?.changed; attempt++) tried = await globsChangeDuringRound(turnsAfter);
    assert.ok(tried?.changed, 'the globs changed during the answer (in 10 tries)');
    const { early } = tried;
    assert.doesNotMatch(early, /Caller\.go|z\/b\//, `the now-secret caller (globs changed ${turnsAfter} turns after the last pause)`);
    assert.match(early, /Target\.other/);
  }
});

test('a question whose files cannot be parsed in time answers TIMEOUT, as waiting for the whole index did', async () => {
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

/** The early answer and the built index's, for the same question, on a held index let go afterwards. */
async function heldAnswers(h: Awaited<ReturnType<typeof heldIndex>>, q: Record<string, unknown>): Promise<{ early: string; late: string }> {
  try {
    return await earlyAndLate(h.ws, h.gate, h.built, q);
  } finally {
    h.gate.open();
    dropCodeIntel(h.ws);
  }
}

/**
 * The early answer and the built index's, on a held index whose files `first` have their call
 * sites, with `meanwhile` done while the question's first search for callers runs.
 */
async function whileSearching(
  files: Record<string, string>,
  first: readonly string[],
  q: Record<string, unknown>,
  meanwhile: (index: CodeIndex, root: string) => Promise<void>,
): Promise<{ early: string; late: string }> {
  const h = await heldIndex(files, CodeIndex, SlowRgWorkspace);
  try {
    await h.index.parseCallSitesFirst(first);
    const answer = callTool(callChainTool, h.ws, q);
    await waitUntil(() => (h.ws as SlowRgWorkspace).searching(), 'the first search', 10_000);
    await meanwhile(h.index, h.ws.root);
    return await earlyAndLate(h.ws, h.gate, h.built, q, answer);
  } finally {
    h.gate.open();
    dropCodeIntel(h.ws);
  }
}

/** The early answer and the built index's, for the same question. */
async function earlyAndLate(ws: NodeWorkspace, gate: Gate, built: Promise<void>, q: Record<string, unknown>, asked = callTool(callChainTool, ws, q)): Promise<{ early: string; late: string }> {
  const early = String((await asked).result);
  gate.open();
  await built;
  return { early, late: String((await callTool(callChainTool, ws, q)).result) };
}

test('lookups made before the pass parsed a file by itself are not used: a second call_chain keeps its second level of callers', async () => {
  const { ws, index, gate, built } = await heldIndex();
  try {
    await callTool(callChainTool, ws, { method: 'a.Target.other', direction: 'callees', depth: 1 }); // wants z/a/Target.java alone
    // the pass goes on by itself, a file at a time, through the callers' files (no 5 s release of the lookups meanwhile)
    const rest = ['z/b/Caller.java', 'z/c/Mid.java'];
    while (index.awaitingCalls(rest).length) {
      gate.step();
      await turn();
    }
    const { early, late } = await earlyAndLate(ws, gate, built, { method: 'a.Target.hit', direction: 'callers', depth: 2 });
    assert.match(early, /Mid\.run/);
    assert.equal(early, late);
  } finally {
    gate.open();
    dropCodeIntel(ws);
  }
});

/** A file whose full parse fails (logged, as RecordStore.store does): it keeps its declarations only. */
class FailsOnCaller extends CodeIndex {
  protected override async store(rel: string, text: string, mtimeMs: number, size: number, mode?: 'full' | 'outline', stillWanted?: () => boolean): Promise<void> {
    if (rel === 'z/b/Caller.java' && mode === 'full') return;
    return super.store(rel, text, mtimeMs, size, mode, stillWanted);
  }
}

test('a file the pass failed on is not waited for', async () => {
  const { ws, index, gate } = await heldIndex(project(), FailsOnCaller);
  try {
    await index.parseCallSitesFirst(['z/b/Caller.java']);
    assert.deepEqual(index.awaitingCalls(['z/b/Caller.java']), [], 'the pass has been through it');
    const t0 = Date.now();
    const out = String((await callTool(callChainTool, ws, { method: 'a.Target.hit', direction: 'callers', depth: 1 })).result);
    assert.ok(Date.now() - t0 < 5000, `answered without waiting for the failed file (${Date.now() - t0} ms)`);
    assert.doesNotMatch(out, /Caller\.go/, 'its calls are not in the index');
  } finally {
    gate.open();
    dropCodeIntel(ws);
  }
});

/** A file whose read for the call-site pass takes seconds (a busy disk, a large generated file). */
class SlowCaller extends CodeIndex {
  protected override async readIfChanged(rel: string, leaveRead?: boolean, wantCalls?: boolean): ReturnType<CodeIndex['readIfChanged']> {
    if (rel === 'z/b/Caller.java' && wantCalls) await new Promise((r) => setTimeout(r, 3000));
    return super.readIfChanged(rel, leaveRead, wantCalls);
  }
}

test('files not parsed by the deadline: TIMEOUT, never an answer without them', async () => {
  configureCodeIndexes({ waitMs: 800 });
  const { ws, gate } = await heldIndex(project(), SlowCaller);
  try {
    await failsWith(callTool(callChainTool, ws, { method: 'a.Target.hit', direction: 'callers', depth: 1 }), 'TIMEOUT');
  } finally {
    configureCodeIndexes({ waitMs: 15_000 });
    gate.open();
    dropCodeIntel(ws);
  }
});

test('a source file that is a symbolic link (ripgrep does not follow it) and a method name with a combining mark are waited for', async () => {
  const name = 'cafe\u0301';
  const files = {
    ...project(),
    'z/e/Uni.java': `package e;\npublic class Uni {\n  public void ${name}() {}\n}\n`,
    'z/e/UniCaller.java': `package e;\nclass UniCaller {\n  void go(Uni u) { u.${name}(); }\n}\n`,
    'shared/Real.java': 'package shared;\nimport a.Target;\nclass Real {\n  void r(Target t) { t.hit(); }\n}\n',
  };
  // the index lists the link as a file of its own; ripgrep, not following links, finds only its target
  const { ws, gate, built } = await heldIndex(files, CodeIndex, NodeWorkspace, (root) => {
    fs.mkdirSync(path.join(root, 'zz'));
    fs.symlinkSync(path.join(root, 'shared', 'Real.java'), path.join(root, 'zz', 'Linked.java'));
  });
  try {
    const uni = await callTool(callChainTool, ws, { method: `e.Uni.${name}`, direction: 'callers', depth: 1 });
    assert.match(String(uni.result), /UniCaller\.go/);
    const { early, late } = await earlyAndLate(ws, gate, built, { method: 'a.Target.hit', direction: 'callers', depth: 1 });
    assert.match(early, /`Real\.r\(Target\)` — zz\/Linked\.java/);
    assert.equal(early, late);
  } finally {
    gate.open();
    dropCodeIntel(ws);
  }
});

/** ripgrep as it runs in a project with one folder it cannot read: the same output, exit status 2. */
class RgFailsWorkspace extends NodeWorkspace {
  override ripgrepPath(): string | undefined {
    const script = path.join(makeTree({}, 'ab-rgfail-'), 'rg.sh');
    fs.writeFileSync(script, `#!/bin/sh\n"${super.ripgrepPath()}" "$@"\nexit 2\n`, { mode: 0o755 });
    return script;
  }
}

test('ripgrep failing: the question waits for the whole index, as before', async () => {
  const { ws, gate, built } = await heldIndex(project(), CodeIndex, RgFailsWorkspace);
  try {
    const answer = callTool(callChainTool, ws, { method: 'a.Target.hit', direction: 'callers', depth: 1 });
    setTimeout(() => gate.open(), 300);
    assert.match(String((await answer).result), /Caller\.go/);
    await built;
  } finally {
    gate.open();
    dropCodeIntel(ws);
  }
});

/** An editor with one unsaved buffer: the pass parses it, ripgrep reads the disk. */
class UnsavedWorkspace extends NodeWorkspace {
  override dirtyText(abs: string): string | undefined {
    return abs === path.join(this.root, 'g', 'Edited.java') ? 'package g;\nimport a.Target;\nclass Edited {\n  void e(Target t) { t.hit(); }\n}\n' : undefined;
  }
  dirtyPaths(): string[] {
    return [path.join(this.root, 'g', 'Edited.java'), '/elsewhere/Other.java'];
  }
}

test('a call only in an unsaved buffer, and one in a file whose extension is in capitals, are waited for', async () => {
  const files = {
    ...project(),
    'g/Edited.java': 'package g;\nclass Edited {\n  void e() {}\n}\n',
    'g/Up.JAVA': 'package g;\nimport a.Target;\nclass Up {\n  void u(Target t) { t.hit(); }\n}\n',
  };
  const { early, late } = await heldAnswers(await heldIndex(files, CodeIndex, UnsavedWorkspace), { method: 'a.Target.hit', direction: 'callers', depth: 1 });
  assert.match(early, /Edited\.e/);
  assert.match(early, /Up\.u/);
  assert.equal(early, late);
});

/**
 * ripgrep whose searches for the files naming a method (neededCallSites.ts: `-F`) take a second to
 * start, each leaving a mark first: a save, a parse, lands while the question waits for it.
 */
class SlowRgWorkspace extends NodeWorkspace {
  readonly marks = makeTree({}, 'ab-slowrg-');
  override ripgrepPath(): string | undefined {
    const script = path.join(this.marks, 'rg.sh');
    fs.writeFileSync(script, `#!/bin/sh\ncase " $* " in *" -F "*) touch "${this.marks}/searching"; sleep 1;; esac\nexec "${super.ripgrepPath()}" "$@"\n`, { mode: 0o755 });
    return script;
  }
  searching(): boolean {
    return fs.existsSync(path.join(this.marks, 'searching'));
  }
}

test('a file saved while the question searches: the question is asked again on the saved file', async () => {
  const files = {
    ...project(),
    'z/p/A.java': 'package p;\nclass A {\n  void m(B b) { b.n(); }\n}\n',
    'z/p/B.java': 'package p;\nclass B {\n  void n() {}\n}\n',
    'z/p/D.java': 'package p;\nclass D {\n  void q(E e) { e.r(); }\n}\n',
    'z/p/E.java': 'package p;\nclass E {\n  void r() {}\n}\n',
  };
  const q = { method: 'p.A.m', direction: 'both', depth: 2 };
  const { early, late } = await whileSearching(files, ['z/p/A.java', 'z/p/B.java'], q, async (index, root) => {
    fs.writeFileSync(path.join(root, 'z/p/A.java'), 'package p;\nclass A {\n  void m(D d) { d.q(null); }\n}\n');
    await index.update('z/p/A.java');
  });
  assert.match(early, /E\.r/, 'the saved file calls D.q, which calls E.r');
  assert.equal(early, late);
});

test('a file parsed while the question searches, and the lookup tables dropped meanwhile by another call: asked again', async () => {
  const q = { method: 'a.Target.hit', direction: 'callers', depth: 2 };
  // every other file naming `hit` already has its call sites: the first round waits for nothing else
  const { early, late } = await whileSearching(project(), ['z/a/Target.java', 'z/d/Unrelated.java'], q, async (index) => {
    // the pass parses a file the first round saw without call sites, then another call drops the tables
    await index.parseCallSitesFirst(['z/b/Caller.java']);
    index.freshLookups();
  });
  assert.match(early, /Mid\.run/, 'the second level: callers of Caller.go');
  assert.equal(early, late);
});

/**
 * An index that holds back the put of one file's record by the pass until the `landAt`-th pause of
 * the sliced runs after `arm`: the record lands there (a run asks `unchanged` once the event loop
 * has turned), between two steps of a round, which do not see it (the pass's puts leave the index
 * version alone).
 */
class PutAtPause extends CodeIndex {
  holdPutOf: string | undefined;
  landAt = 1;
  landed = false;
  private held: (() => void) | undefined;
  private pausesAt: number | undefined;
  arm(): void {
    this.pausesAt = slicePauses.count;
  }
  protected override put(rel: string, mtimeMs: number, size: number, p: PackedSymbols): void {
    if (rel !== this.holdPutOf) return super.put(rel, mtimeMs, size, p);
    this.holdPutOf = undefined;
    this.held = () => super.put(rel, mtimeMs, size, p);
  }
  override unchanged(version: IndexVersion): boolean {
    if (this.pausesAt !== undefined && this.held && slicePauses.count - this.pausesAt >= this.landAt) {
      const put = this.held;
      this.held = undefined;
      put();
      this.landed = true;
    }
    return super.unchanged(version);
  }
}

test('a needed file whose call sites land at any pause of a round: that round is not the answer, the question is asked again', async () => {
  const q = { method: 'a.Target.hit', direction: 'callers', depth: 1 };
  // every pause in turn, until the rounds end before the put lands (the round reads Caller's record after its first few)
  let at = 1;
  for (; ; at++) {
    const h = await heldIndex(project(), PutAtPause);
    const index = h.index as PutAtPause;
    try {
      // every file naming `hit` but Caller has its call sites; Caller's are parsed now and land mid-round
      await index.parseCallSitesFirst(['z/a/Target.java', 'z/d/Unrelated.java']);
      index.holdPutOf = 'z/b/Caller.java';
      await index.parseCallSitesFirst(['z/b/Caller.java']);
      index.freshLookups();
      index.landAt = at;
      // a pause at every yield, and a yield every 32 records: some pauses fall while the round makes the lookup tables
      SLICE_LIMITS.ms = 0;
      SLICE_LIMITS.records = 32;
      let early: string;
      try {
        index.arm();
        early = String((await callTool(callChainTool, h.ws, q)).result);
      } finally {
        SLICE_LIMITS.ms = savedSlice;
        SLICE_LIMITS.records = savedRecords;
      }
      if (!index.landed) break;
      assert.equal(index.isReady, false, 'answered before the pass ended');
      assert.match(early, /Caller\.go/, `the call site that landed at pause ${at} is in the answer`);
      const { late } = await earlyAndLate(h.ws, h.gate, h.built, q);
      assert.equal(early, late);
    } finally {
      h.gate.open();
      dropCodeIntel(h.ws);
    }
  }
  assert.ok(at > 3, `the record landed at ${at - 1} pauses`);
});

test('a round makes the lookup tables in slices before its question, and its lookups use them (the pass and the rounds let go of them)', async () => {
  const h = await heldIndex(project(), TablesProbe);
  const index = h.index as TablesProbe;
  // a yield every few records, and a pause at every yield
  SLICE_LIMITS.records = 8;
  SLICE_LIMITS.ms = 0;
  try {
    index.freshLookups();
    const early = String((await callTool(callChainTool, h.ws, { method: 'a.Target.hit', direction: 'callers', depth: 1 })).result);
    assert.equal(index.isReady, false, 'answered before the pass ended');
    assert.match(early, /Caller\.go/);
    const sliced = index.runs.filter((r) => r.steps > 0 && r.installed);
    // one per round: the first waits for the files naming `hit`, the second answers
    assert.ok(sliced.length >= 2, `tables made in slices and used: ${JSON.stringify(index.runs)}`);
  } finally {
    SLICE_LIMITS.records = savedRecords;
    SLICE_LIMITS.ms = savedSlice;
    h.gate.open();
    dropCodeIntel(h.ws);
  }
});

test('the pass order: wanted files first and once each; a wanted file already taken is waited for until the pass is done with it', async () => {
  const wanted = new FilesWanted();
  const queue = new PassQueue(['a', 'b', 'c', 'd'], wanted);
  assert.equal(queue.take(), 'a');
  let done = false;
  const waiting = wanted.want(['c', 'a', 'x']).then(() => (done = true));
  assert.deepEqual(queue.ahead(2), ['c', 'b'], 'read ahead: the wanted file first, then the list');
  assert.equal(queue.take(), 'c');
  assert.equal(queue.take(), 'b', "'a' is taken already, 'x' is not this pass's");
  wanted.doneWith('c');
  await Promise.resolve();
  assert.equal(done, false, "'a' is still being parsed");
  wanted.doneWith('a');
  await waiting;
  assert.equal(queue.take(), 'd');
  assert.equal(queue.take(), undefined, 'each file once');
  // a request for more files than a call's arguments can spread, wanted twice: taken once each, quickly
  const many = Array.from({ length: 200_000 }, (_, i) => `m${i}`);
  const big = new PassQueue(many, wanted);
  const t0 = Date.now();
  const all = Promise.all([wanted.want(many), wanted.want(many)]);
  let count = 0;
  for (let rel = big.take(); rel !== undefined; rel = big.take()) {
    count++;
    wanted.doneWith(rel);
  }
  await all;
  assert.equal(count, many.length);
  assert.ok(Date.now() - t0 < 3000, `${Date.now() - t0} ms`);
  // a stopped answer stops waiting
  const ctl = new AbortController();
  const stopped = wanted.want(['zz'], ctl.signal);
  ctl.abort();
  await stopped;
});
