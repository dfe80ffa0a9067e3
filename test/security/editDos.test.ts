/**
 * The hostile-agent suite: edits whose matching would hold the host's event loop. A 20 KB search
 * text on a 2 MB repetitive file, a MultiEdit of 20,000 edits and a failed edit whose closest
 * region is searched over a huge file are sent to the headless host, in its own process as in real
 * use, over a real loopback WebSocket; meanwhile a read_file goes out every 100 ms and each must be
 * answered within 2 s. Measuring the reads keeps these tests short even where the host would be
 * blocked for a minute: the first read that waits 2 s fails the test and the host is killed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { DevBackend } from '../../src/devBackend/server';
import type { HostileTree } from '../support/hostile';
import { startHostProcess, type HostProcess } from '../support/hostProcess';

/** Every other read must be answered within this while a hostile edit runs. */
const READ_LIMIT_MS = 2000;
/** A hostile edit must be answered (an error or a correct result) within this. */
const ANSWER_LIMIT_MS = 10_000;

let host: HostProcess;
let tree: HostileTree;
let backend: DevBackend;

before(async () => {
  host = await startHostProcess();
  ({ tree, backend } = host);
});

after(async () => {
  await host?.close();
});

const sha = (rel: string): string => createHash('sha256').update(fs.readFileSync(path.join(tree.root, rel))).digest('hex');

interface Measured {
  /** The hostile call's TOOL_RESULT data; undefined when it was not answered in time. */
  readonly answer?: Record<string, unknown>;
  readonly answerMs: number;
  /** The longest a read waited (answered, or still waiting when the measuring stopped). */
  readonly worstReadMs: number;
  readonly readsAnswered: number;
}

/**
 * Sends the hostile call and, from just before it until it is answered, a read_file every 100 ms.
 * Stops early, without waiting for the hostile answer, as soon as a read has waited READ_LIMIT_MS.
 */
async function hostileWithReads(tool: string, params: Record<string, unknown>): Promise<Measured> {
  const started = performance.now();
  const waiting = new Set<number>();
  let worstReadMs = 0;
  let readsAnswered = 0;
  const read = (): void => {
    const at = performance.now();
    waiting.add(at);
    backend
      .callTool('read_file', { relativePath: 'notes.md' }, { timeoutMs: 60_000 })
      .then((r) => {
        assert.equal((r.data as Record<string, unknown>).success, true, JSON.stringify(r).slice(0, 300));
        readsAnswered++;
      })
      .catch(() => undefined)
      .finally(() => {
        waiting.delete(at);
        worstReadMs = Math.max(worstReadMs, performance.now() - at);
      });
  };
  read();
  let answer: Record<string, unknown> | undefined;
  let answerMs = Infinity;
  const hostile = backend.callTool(tool, params, { timeoutMs: 120_000 }).then(
    (r) => {
      answer = r.data as Record<string, unknown>;
      answerMs = performance.now() - started;
    },
    () => undefined,
  );
  for (;;) {
    const oldest = Math.min(...waiting);
    if (waiting.size > 0 && performance.now() - oldest >= READ_LIMIT_MS) break;
    if (answer || performance.now() - started > ANSWER_LIMIT_MS) break;
    await Promise.race([hostile, sleep(100)]);
    read();
  }
  // The reads sent just before the answer get their chance to come back.
  const settleBy = performance.now() + READ_LIMIT_MS;
  while (waiting.size > 0 && performance.now() < settleBy) await sleep(20);
  for (const at of waiting) worstReadMs = Math.max(worstReadMs, performance.now() - at);
  return { answer, answerMs, worstReadMs, readsAnswered };
}

function assertResponsive(m: Measured, what: string): asserts m is Measured & { answer: Record<string, unknown> } {
  assert.ok(m.worstReadMs < READ_LIMIT_MS, `${what}: a read waited ${Math.round(m.worstReadMs)} ms while the edit ran`);
  assert.ok(m.readsAnswered >= 1, `${what}: no read was answered`);
  assert.ok(m.answer, `${what}: no answer within ${ANSWER_LIMIT_MS} ms`);
  assert.ok(m.answerMs < ANSWER_LIMIT_MS, `${what}: answered after ${Math.round(m.answerMs)} ms`);
}

/** About 2 MB of one line repeated. */
const REPEATED_LINE = 'abcdefghij\n';
const repetitive = (): string => REPEATED_LINE.repeat(Math.ceil(2_000_000 / REPEATED_LINE.length));

test('Edit with a 20 KB old_string on a 2 MB repetitive file: reads answered within 2 s, a clear CONFLICT, nothing written', async () => {
  fs.writeFileSync(path.join(tree.root, 'repeated.txt'), repetitive());
  const before = sha('repeated.txt');
  const search = REPEATED_LINE.repeat(1800);
  const m = await hostileWithReads('Edit', { file_path: 'repeated.txt', old_string: search, new_string: 'x' });
  assertResponsive(m, 'exact');
  assert.equal(m.answer.code, 'CONFLICT', String(m.answer.error));
  assert.match(String(m.answer.error), /matches \d+ places in repeated\.txt \(exact text\)/);
  assert.equal(sha('repeated.txt'), before);

  // One line in the middle that the file does not have: every rung, then the closest region, on repetitive text.
  const odd = `${REPEATED_LINE.repeat(900)}abcdefghiX\n${REPEATED_LINE.repeat(900)}`;
  const o = await hostileWithReads('Edit', { file_path: 'repeated.txt', old_string: odd, new_string: 'x' });
  assertResponsive(o, 'not found');
  assert.equal(o.answer.code, 'NOT_FOUND', String(o.answer.error));
  assert.match(String(o.answer.error), /Closest region: lines 1-1801/);
  assert.equal(sha('repeated.txt'), before);

  // The indentation tier: the same lines indented, so only that rung can find them (many times).
  const indented = search.replace(/^(?=.)/gm, '  ');
  const n = await hostileWithReads('Edit', { file_path: 'repeated.txt', old_string: indented, new_string: 'x' });
  assertResponsive(n, 'indentation');
  assert.equal(n.answer.code, 'CONFLICT', String(n.answer.error));
  assert.match(String(n.answer.error), /ignoring indentation/);
  assert.equal(sha('repeated.txt'), before);
});

test('MultiEdit with 20,000 edits is refused with VALIDATION_FAILED at once, nothing written, reads answered within 2 s', async () => {
  const lines = Array.from({ length: 20_000 }, (_, i) => `const value${String(i).padStart(5, '0')} = compute(${i}); // ${'.'.repeat(60)}\n`);
  fs.writeFileSync(path.join(tree.root, 'many.js'), lines.join(''));
  const before = sha('many.js');
  const edits = lines.map((_, i) => ({ old_string: `value${String(i).padStart(5, '0')} =`, new_string: `renamed${i} =` }));
  const m = await hostileWithReads('MultiEdit', { file_path: 'many.js', edits });
  assertResponsive(m, 'MultiEdit');
  assert.equal(m.answer.code, 'VALIDATION_FAILED', String(m.answer.error));
  assert.match(String(m.answer.error), /edits: at most 1000 edits per call/);
  assert.equal(sha('many.js'), before);
});

test('a failed edit on a huge file: the closest region is found in bounded time, reads answered within 2 s', async () => {
  const line = '    value = compute(alpha, beta); // same\n';
  fs.writeFileSync(path.join(tree.root, 'similar.txt'), line.repeat(Math.ceil(2_000_000 / line.length)));
  const before = sha('similar.txt');
  // 200 KB of the file's own lines with one that is nowhere: not found, and every window looks alike.
  const search = `${line.repeat(5000)}    value = compute(gamma); // other\n`;
  const m = await hostileWithReads('apply_change', { relativePath: 'similar.txt', searchContent: search, replaceContent: 'x' });
  assertResponsive(m, 'closest');
  assert.equal(m.answer.code, 'NOT_FOUND', String(m.answer.error));
  assert.match(String(m.answer.error), /Closest region: lines 1-5001/);
  assert.match(String(m.answer.error), /\+ {4}value = compute\(alpha, beta\); \/\/ same/);
  assert.equal(sha('similar.txt'), before);
});

test('replace_all that would build a file of 100 MB is refused, nothing written, reads answered within 2 s', async () => {
  fs.writeFileSync(path.join(tree.root, 'letters.txt'), `${'a'.repeat(1_000_000)}\n`);
  const before = sha('letters.txt');
  const m = await hostileWithReads('Edit', { file_path: 'letters.txt', old_string: 'a', new_string: 'b'.repeat(100), replace_all: true });
  assertResponsive(m, 'replace_all');
  assert.equal(m.answer.code, 'BAD_REQUEST', String(m.answer.error));
  assert.match(String(m.answer.error), /replace_all would make letters\.txt larger than 64 MB \(1000000 occurrences\)/);
  assert.equal(sha('letters.txt'), before);
});

/** The most a process has held (VmHWM) or holds now (VmRSS), in bytes; undefined off Linux. */
function memoryOf(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

test('replace_all turning a 2 MB line into a 60 MB file of 30 M lines: a small answer, reads answered within 2 s', async () => {
  fs.writeFileSync(path.join(tree.root, 'g.txt'), 'x'.repeat(2 * 1024 * 1024));
  const rssBefore = memoryOf(host.child.pid!, 'VmRSS');
  const m = await hostileWithReads('Edit', { file_path: 'g.txt', old_string: 'x', new_string: 'a\n'.repeat(15), replace_all: true });
  assertResponsive(m, 'replace_all to 60 MB');
  assert.equal(m.answer.success, true, String(m.answer.error));
  const result = String(m.answer.result);
  assert.ok(result.length < 2 * 1024 * 1024, `answer of ${result.length} characters`);
  const answer = JSON.parse(result) as { omitted?: string[]; structuredPatch: unknown[] };
  assert.deepEqual(answer.omitted, ['originalFile', 'structuredPatch.lines']);
  assert.deepEqual(answer.structuredPatch, [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 30 * 1024 * 1024, lines: [] }]);
  assert.equal(fs.statSync(path.join(tree.root, 'g.txt')).size, 60 * 1024 * 1024 - 1);
  const peak = memoryOf(host.child.pid!, 'VmHWM');
  // The high-water mark covers the host's whole life, so this over-states the growth, never under-states it.
  if (rssBefore !== undefined && peak !== undefined) assert.ok(peak - rssBefore < 1024 * 1024 * 1024, `host RSS grew up to ${Math.round((peak - rssBefore) / 2 ** 20)} MB`);
});
