import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { withinDeadline } from '../../src/core/deadline';

test('withinDeadline: a value that spells a marker is still the value', async () => {
  for (const value of ['timeout', 'late', 'aborted', undefined]) {
    assert.deepEqual(await withinDeadline(Promise.resolve(value), 1000), { kind: 'done', value });
  }
});

test('withinDeadline: work that never settles is late, never a value', async () => {
  const outcome = await withinDeadline(new Promise<string>(() => undefined), 20);
  assert.deepEqual(outcome, { kind: 'late' });
  assert.equal('value' in outcome, false);
});

test('withinDeadline: an abort before or during the wait is aborted; a rejection in time is thrown', async () => {
  const before = new AbortController();
  before.abort();
  assert.deepEqual(await withinDeadline(new Promise(() => undefined), 1000, before.signal), { kind: 'aborted' });
  const during = new AbortController();
  setTimeout(() => during.abort(), 10);
  assert.deepEqual(await withinDeadline(new Promise(() => undefined), 1000, during.signal), { kind: 'aborted' });
  await assert.rejects(withinDeadline(Promise.reject(new Error('broken formatter')), 1000), /broken formatter/);
});
