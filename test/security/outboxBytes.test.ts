/**
 * Answers that finish while the link is down wait in the outbox. It was bounded by count only
 * (100 answers for 60 s), whatever their size: 72 answers of 4 MB (a read of a large file, asked
 * again and again by a backend that then dropped the link) held 640 MB. It is bounded in bytes too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_OUTBOX_BYTES, Outbox } from '../../src/core/link/bridge';
import { toolSuccess } from '../../src/core/protocol/messages';
import { warningsLogger } from '../support/silentLogger';
import { gcFunction, memoryInUse } from '../support/memory';

const gc = gcFunction();

const MB = 1024 * 1024;
/** A distinct 4 MB text, as a read of a large file gives (`'x'.repeat` would share its halves). */
const bigText = (i: number): string => {
  const bytes = Buffer.alloc(4 * MB, 'x');
  bytes.write(String(i).padStart(8, '0'));
  return bytes.toString('utf8');
};

test('72 answers of 4 MB kept while the link is down hold at most the outbox byte bound; the oldest are dropped and logged', () => {
  const warnings: string[] = [];
  const log = warningsLogger(warnings);
  const box = new Outbox(log);
  gc();
  const before = memoryInUse();
  for (let i = 0; i < 72; i++) box.put(toolSuccess({ id: `big-${i}`, idKey: 'toolCallId' }, bigText(i), 1));
  gc();
  const held = memoryInUse() - before;
  // The bound, and a margin for what the measure counts besides (buffers not yet given back).
  assert.ok(held < DEFAULT_OUTBOX_BYTES + 24 * MB, `the outbox holds ${Math.round(held / MB)} MB`);
  assert.ok(DEFAULT_OUTBOX_BYTES <= 64 * MB);
  const kept = box.size;
  assert.ok(kept >= 10 && kept < 72, `${kept} answers kept`);
  assert.ok(warnings.some((w) => /outbox over 64 MB: dropped the answer to big-0\b/.test(w)), warnings.slice(0, 3).join('\n'));
  assert.equal(warnings.filter((w) => /dropped the answer to big-/.test(w)).length, 72 - kept, 'every drop logged');
  // The newest answers are the ones kept, and go out oldest first.
  const sent: string[] = [];
  assert.equal(box.flush((m) => (sent.push(m.data.toolCallId), true)), kept);
  assert.deepEqual(sent, Array.from({ length: kept }, (_, i) => `big-${72 - kept + i}`));
  assert.ok(kept * 4 * MB <= DEFAULT_OUTBOX_BYTES, `${kept} answers of 4 MB kept`);
});

test('an answer larger than the whole bound is dropped with a log line; smaller ones still wait', () => {
  const warnings: string[] = [];
  const log = warningsLogger(warnings);
  const box = new Outbox(log, 60_000, 100, Date.now, 1 * MB);
  box.put(toolSuccess({ id: 'small-1', idKey: 'toolCallId' }, 'ok', 1));
  box.put(toolSuccess({ id: 'huge', idKey: 'toolCallId' }, 'y'.repeat(2 * MB), 1));
  box.put(toolSuccess({ id: 'small-2', idKey: 'toolCallId' }, 'ok', 1));
  assert.ok(warnings.some((w) => /the answer to huge .*over the outbox's 1 MB/.test(w)), warnings.join('\n'));
  const sent: string[] = [];
  box.flush((m) => (sent.push(m.data.toolCallId), true));
  assert.deepEqual(sent, ['small-1', 'small-2']);
});
