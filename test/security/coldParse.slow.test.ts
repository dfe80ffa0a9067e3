/**
 * Before the code index is built, read_class, read_method and call_chain answer from the few files
 * a question names (intel/quickLookup.ts, intel/neededFilesIndex.ts). A hostile repository makes
 * those files large: a 1.8 MB Java file costs the parser seconds, which on the host's thread froze
 * every other call. Here each question is asked on a fresh host: the event loop is never held more
 * than 500 ms, and the answer is the one the built index gives. Named `.slow` because each test
 * parses megabytes: `npm run test:fast` leaves it out, `npm test` runs it.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { closeColdParsePool } from '../../src/core/code/intel/coldParse';
import { codeIntelFor, configureCodeIndexes, dropCodeIntel } from '../../src/core/code/intel/intel';
import { NEEDED_FILES_LIMITS } from '../../src/core/code/intel/neededFilesIndex';
import { quickTypes } from '../../src/core/code/intel/quickLookup';
import { ToolError } from '../../src/core/protocol/errors';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import type { ToolResultMessage } from '../../src/core/protocol/messages';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { heldDuring } from '../support/loopDelay';

/** Far below the seconds one such file costs the parser, far above a loaded machine's hiccups. */
const MAX_HELD_MS = 500;
const BIG = 1_800_000;

/**
 * Arithmetic the parser must read token by token, with no call in it: what costs the host here is
 * the parse, not the call sites (at most 50,000 a file, unpacked when a question reads them).
 */
const BODY = Array.from({ length: 12 }, (_, k) => `(x * ${k + 3} - (x >> ${k % 5}) + x % ${k + 7})`).join(' + ');

/** A class of about `BIG` bytes: thousands of long methods; `extra` goes inside it. */
function bigJava(name: string, extra: string): string {
  const parts = [`package app;\n\npublic class ${name} {\n`, extra];
  let size = parts[0]!.length + extra.length;
  for (let i = 0; size < BIG; i++) {
    const m = `  int m${i}(int x) {\n    int y = ${BODY};\n    return y - ${i};\n  }\n`;
    parts.push(m);
    size += m.length;
  }
  parts.push('}\n');
  return parts.join('');
}

function bigPython(): string {
  const parts = ['class Target:\n'];
  let size = parts[0]!.length;
  for (let i = 0; size < BIG; i++) {
    const m = `    def m${i}(self, x):\n        y = ${BODY}\n        return y - ${i}\n`;
    parts.push(m);
    size += m.length;
  }
  return parts.join('');
}

const javaRoot = makeTree(
  {
    'src/app/Target.java': bigJava('Target', '  int helper(int x) { return x; }\n  public int target(int x) { return helper(x); }\n'),
    'src/app/BigCaller.java': bigJava('BigCaller', '  int helper(int x) { return new Target().target(x); }\n'),
    'src/app/Caller.java': 'package app;\n\nclass Caller {\n  int go() { return new Target().target(1); }\n}\n',
  },
  'ab-coldparse-',
);
const pythonRoot = makeTree({ 'py/target.py': bigPython() }, 'ab-coldparse-py-');

// The tools may not wait for the index: an answer proves it came from the files alone (given
// time enough on a loaded machine).
const savedBudget = NEEDED_FILES_LIMITS.budgetMs;
before(() => {
  configureCodeIndexes({ waitMs: 1 });
  NEEDED_FILES_LIMITS.budgetMs = 100_000;
});
after(async () => {
  configureCodeIndexes({});
  NEEDED_FILES_LIMITS.budgetMs = savedBudget;
  await closeColdParsePool();
});

interface Asked {
  readonly answer: ToolResultMessage;
  readonly heldMs: number;
}

/** One tool call on a fresh host (`ws`), with the event loop's worst delay meanwhile. */
async function askWatched(ws: NodeWorkspace, d: Dispatcher, toolName: string, params: Record<string, unknown>): Promise<Asked> {
  const { value: answer, heldMs } = await heldDuring(() => {
    assert.equal(codeIntelFor(ws).index.declarationsIn, false, 'a fresh host: the index is not built');
    return d.dispatch({ id: 'cold', idKey: 'toolCallId', toolName, params });
  });
  return { answer, heldMs };
}

/** One tool call on a fresh host, with the event loop's worst delay meanwhile; then the index is built, asked the same, and let go. */
async function askCold(root: string, toolName: string, params: Record<string, unknown>): Promise<Asked & { readonly warm: ToolResultMessage }> {
  const ws = new NodeWorkspace(root);
  // What is measured is the loop, not the speed: a loaded machine may take longer than a tool's 25 s.
  const d = new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log: silentLogger, limits: () => ({ timeoutMs: 120_000 }) });
  const { answer, heldMs } = await askWatched(ws, d, toolName, params);
  try {
    // the same question of the built index
    await codeIntelFor(ws).index.ready();
    const warm = await d.dispatch({ id: 'warm', idKey: 'toolCallId', toolName, params });
    return { answer, heldMs, warm };
  } finally {
    dropCodeIntel(ws);
  }
}

function assertAnswered(r: Asked & { readonly warm: ToolResultMessage }, what: RegExp): void {
  assert.ok(r.answer.data.success, `the cold call failed: ${r.answer.data.code}: ${r.answer.data.error}`);
  assert.ok(r.heldMs < MAX_HELD_MS, `the event loop was held ${Math.round(r.heldMs)} ms`);
  assert.match(JSON.stringify(r.answer.data.result), what);
  assert.deepEqual(r.answer.data.result, r.warm.data.result, 'the cold answer differs from the built index');
}

test('read_class of a 1.8 MB Java class on a fresh host: the loop stays free, the answer is the index’s', { timeout: 180_000 }, async () => {
  assertAnswered(await askCold(javaRoot, 'read_class', { className: 'Target' }), /target\(int x\)/);
});

test('read_class of a 1.8 MB Python file named by path: the loop stays free', { timeout: 180_000 }, async () => {
  assertAnswered(await askCold(pythonRoot, 'read_class', { className: 'Target', relativePath: 'py/target.py' }), /m123\b/);
});

test('read_method in a 1.8 MB Java class on a fresh host: the loop stays free, the answer is the index’s', { timeout: 180_000 }, async () => {
  assertAnswered(await askCold(javaRoot, 'read_method', { className: 'app.Target', methodName: 'target' }), /helper\(x\)/);
});

test('call_chain through two 1.8 MB Java files on a fresh host: the loop stays free, the answer is the index’s', { timeout: 180_000 }, async () => {
  assertAnswered(await askCold(javaRoot, 'call_chain', { method: 'app.Target.target', direction: 'both' }), /BigCaller[\s\S]*Caller\.go|Caller\.go[\s\S]*BigCaller/);
});

test('a cancel is heard while a large file is parsed for read_class', { timeout: 60_000 }, async () => {
  // Python has no outline to parse instead of the whole text (a Java class's is quick): the parse takes seconds
  const ws = new NodeWorkspace(pythonRoot);
  const ac = new AbortController();
  let abortedAt = 0;
  setTimeout(() => {
    abortedAt = Date.now();
    ac.abort();
  }, 300);
  await assert.rejects(quickTypes(ws, 'Target', 'py/target.py', ac.signal), (e) => e instanceof ToolError && e.code === 'CANCELLED');
  assert.ok(abortedAt > 0 && Date.now() - abortedAt < 1000, `the cancel was heard ${Date.now() - abortedAt} ms late`);
});

test('with no parse worker, a large file is not parsed on the host (the index is asked); a small one still answers at once', { timeout: 180_000 }, async () => {
  const tools = makeTree({ 'broken-worker.js': "throw new Error('no wasm here');\n" }, 'ab-coldparse-broken-');
  const small = makeTree({ 'src/app/Small.java': 'package app;\n\npublic class Small {\n  int one() { return 1; }\n}\n' }, 'ab-coldparse-small-');
  await closeColdParsePool();
  configureCodeIndexes({ waitMs: 1, coldWorkerScript: path.join(tools, 'broken-worker.js') });
  try {
    const ws = new NodeWorkspace(javaRoot);
    const big = await askWatched(ws, new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log: silentLogger }), 'read_class', { className: 'Target' });
    assert.ok(big.heldMs < MAX_HELD_MS, `the event loop was held ${Math.round(big.heldMs)} ms`);
    // not parsed here: the index was asked, and may not be waited for
    assert.equal(big.answer.data.code, 'TIMEOUT', `${big.answer.data.code}: ${big.answer.data.error}`);
    await codeIntelFor(ws).index.ready();
    dropCodeIntel(ws);

    const sws = new NodeWorkspace(small);
    const quick = await askWatched(sws, new Dispatcher({ workspace: sws, tools: ALL_TOOLS, log: silentLogger }), 'read_class', { className: 'Small' });
    assert.ok(quick.answer.data.success, `${quick.answer.data.code}: ${quick.answer.data.error}`);
    assert.match(String(quick.answer.data.result), /int one\(\)/);
    dropCodeIntel(sws);
  } finally {
    configureCodeIndexes({ waitMs: 1 });
    await closeColdParsePool();
  }
});
