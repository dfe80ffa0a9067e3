/**
 * The hostile-agent suite: Java source that makes call resolution costly. Typing a call's
 * arguments to pick an overload and again to infer each candidate's return type doubled the work
 * at each level of nesting: a 252-byte file of 20 nested calls held the event loop 44 s, and no
 * deadline fires while the loop is held. Each shape runs through the real tools in a child
 * process (test/support/javaTypingProbe.ts) that is killed if it overruns: the answer must come within
 * a few seconds, and neither the event loop nor a concurrent read_method may wait long meanwhile.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { SLICE_LIMITS, slicePauses } from '../../src/core/code/index/slices';
import { readyCodeIntel } from '../../src/core/code/intel/intel';
import { TYPING_LIMITS } from '../../src/core/code/java/typingBudget';
import { callChainTool } from '../../src/core/tools/callChain';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { callTool } from '../support/tools';
import type { ProbeLine } from '../support/javaTypingProbe';
import { runWatched } from '../support/watchedChild';

const LEVELS = 20;
/** The whole child's run: on the unbounded code the first shape alone takes about 44 s. */
const WATCHDOG_MS = 60_000;
/** Bounds on a loaded two-core machine; the bounded typing takes a few milliseconds per call. */
const ANSWER_MS = 4_000;
const BLOCKED_MS = 2_000;

const nest = (open: string, inner: string, close: string, n = LEVELS): string => `${open.repeat(n)}${inner}${close.repeat(n)}`;
/** A balanced tree of calls, `depth` levels: 2^depth leaves. */
const tree = (depth: number): string => (depth === 0 ? 'x' : `pick(${tree(depth - 1)}, ${tree(depth - 1)})`);

const HELPERS = `
  static <T> T id(T t) { return t; }
  static String id(String s) { return s; }
  static <T> T pick(T a, T b) { return a; }
  static <T> T pick(T a, Object b) { return a; }
  static String pick(String a, String b) { return a; }
  static <T, R> R apply(Function<T, R> f, T t) { return null; }
  static <T> T apply(UnaryOperator<T> f, T t) { return t; }
`;

/** A class `p.A` whose method `m` holds `body`. */
const classWith = (body: string): string =>
  `package p;\n\nimport java.util.function.Function;\nimport java.util.function.UnaryOperator;\n\nclass Box<T> {\n  Box(T t) {}\n  Box(String s) {}\n}\n\nclass A {${HELPERS}\n  void m(String x, boolean b) {\n    Object o = ${body};\n  }\n}\n`;

const SHAPES: Record<string, string> = {
  // The reviewer's file: overloaded generic `id`, 20 levels.
  reviewer: `package p;\nclass A {\n  static <T> T id(T t) { return t; }\n  static String id(String s) { return s; }\n  void m(String x) {\n    Object o = ${nest('id(', 'x', ')')};\n  }\n}\n`,
  overloadsByNesting: classWith(nest('pick(', 'x', ', x)')),
  ternaries: classWith(nest('id(b ? ', 'x', ' : x)')),
  lambdas: classWith(nest('apply(z -> id(z), ', 'x', ')')),
  chain: classWith(nest('id(', 'x', ').trim()')),
  diamond: classWith(nest('new Box<>(id(', nest('id(', 'x', ')'), '))')),
  concatenation: classWith(nest('id(', 'x', ' + x)')),
  // 1,023 calls in one expression: its outermost calls are past the budget of one call.
  wideTree: classWith(tree(10)),
};

/** Runs the probe over `shapes`, killing it after WATCHDOG_MS; the lines it printed, and how it ended. */
async function runProbe(shapes: Record<string, string>): Promise<{ lines: ProbeLine[]; killed: boolean; code: number | null; stderr: string }> {
  const run = await runWatched(path.join(__dirname, '..', 'support', 'javaTypingProbe.ts'), [], { watchdogMs: WATCHDOG_MS, stdin: JSON.stringify(shapes) });
  return { ...run, lines: run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as ProbeLine) };
}

test('nested calls to overloaded generic methods are typed in bounded time, and never hold the event loop', { timeout: WATCHDOG_MS + 30_000 }, async () => {
  assert.ok(Buffer.byteLength(SHAPES.reviewer as string) < 300, 'the reviewer file is a few hundred bytes');
  const run = await runProbe(SHAPES);
  const finished = run.lines.map((l) => l.name);
  assert.ok(!run.killed, `the probe was still running after ${WATCHDOG_MS} ms; finished: ${finished.join(', ') || 'none'}`);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(finished, Object.keys(SHAPES));
  for (const l of run.lines) {
    const what = `${l.name}: answer ${Math.round(l.answerMs)} ms, loop held ${Math.round(l.maxLoopDelayMs)} ms, slowest read ${Math.round(l.slowestReadMs)} ms`;
    assert.ok(l.answerMs < ANSWER_MS, what);
    assert.ok(l.maxLoopDelayMs < BLOCKED_MS, what);
    assert.ok(l.slowestReadMs < BLOCKED_MS, what);
    assert.ok(l.reads > 0, `${l.name}: no read answered meanwhile`);
    assert.match(l.answer, /### Callees/, l.name);
  }
  const byName = new Map(run.lines.map((l) => [l.name, l.answer]));
  // Typed once per call, the nesting resolves in full: every level is A.id, none cut.
  const reviewer = byName.get('reviewer') as string;
  assert.equal(reviewer.match(/`A\.id\(T\)` — A\.java:3 · called at line 6/g)?.length, LEVELS, reviewer);
  assert.doesNotMatch(reviewer, /unresolved/);
  for (const name of ['overloadsByNesting', 'ternaries', 'chain', 'concatenation']) assert.doesNotMatch(byName.get(name) as string, /steps/, name);
  // Past the budget a call is listed unresolved, saying why, as other unresolvable calls are.
  assert.match(byName.get('wideTree') as string, /unresolved: `pick\(…\)` at line \d+ — typing it takes more than [\d,]+ steps/);
});

test('call_chain pauses between the calls it resolves, before the index is built and after', async () => {
  // Each call is bounded; a method of many calls must not be resolved in one block either.
  const CALLS = 150;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-typing-turns-'));
  const saved = { ...SLICE_LIMITS };
  SLICE_LIMITS.ms = 0; // a pause at every place the answer may pause
  try {
    fs.writeFileSync(path.join(root, 'A.java'), classWith('null;\n' + '    id(x);\n'.repeat(CALLS)));
    const ws = new NodeWorkspace(root);
    // The pauses the sliced runs make: I/O turns the loop too, but only a pause comes between two calls.
    const pausesDuring = async (): Promise<number> => {
      const from = slicePauses.count;
      const out = await callTool(callChainTool, ws, { method: 'p.A.m', direction: 'callees', depth: 1 });
      assert.equal(String(out.result).match(/`A\.id\(String\)`/g)?.length, CALLS);
      return slicePauses.count - from;
    };
    const cold = await pausesDuring();
    assert.ok(cold >= CALLS, `before the index was built the answer paused ${cold} times for ${CALLS} calls`);
    await readyCodeIntel({ workspace: ws, signal: new AbortController().signal }, 'calls');
    const built = await pausesDuring();
    assert.ok(built >= CALLS, `from the built index the answer paused ${built} times for ${CALLS} calls`);
  } finally {
    Object.assign(SLICE_LIMITS, saved);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("past its file's budget a file's further calls are listed unresolved, saying why; another file's calls still resolve", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-typing-file-'));
  const saved = { ...TYPING_LIMITS };
  // Lowered so that a small file spends it: the bound is the same at any size.
  TYPING_LIMITS.fileSteps = 2_000;
  try {
    fs.writeFileSync(path.join(root, 'A.java'), classWith('null;\n' + '    id(pick(x, x));\n'.repeat(100)));
    fs.writeFileSync(path.join(root, 'B.java'), 'package p;\n\nclass B {\n  void n(String x) {\n    A.id(x);\n  }\n}\n');
    const ws = new NodeWorkspace(root);
    // From the built index: one resolver answers both questions, so A's spent budget is there to meet.
    await readyCodeIntel({ workspace: ws, signal: new AbortController().signal }, 'calls');
    const a = String((await callTool(callChainTool, ws, { method: 'p.A.m', direction: 'callees', depth: 1 })).result);
    assert.match(a, /`A\.id\(String\)` — A\.java:\d+ · called at line 22/, 'the first calls resolve');
    assert.match(a, /unresolved: `id\(…\)` at line 121 — the calls of this file take more than 2,000 steps to type/);
    const b = String((await callTool(callChainTool, ws, { method: 'p.B.n', direction: 'callees', depth: 1 })).result);
    assert.match(b, /`A\.id\(String\)` — A\.java:\d+ · called at line 5/);
    assert.doesNotMatch(b, /unresolved/);
  } finally {
    Object.assign(TYPING_LIMITS, saved);
    fs.rmSync(root, { recursive: true, force: true });
  }
});
