/**
 * The short soak (the long one is bench/soak.ts): 500 mixed calls (read_file, grep_file,
 * read_class on JDK sources, and hostile ones) at a steady rate through a real dev backend and
 * the headless host on loopback. Every call is answered exactly once, the only errors are the
 * hostile calls' expected codes, and the heap returns near its baseline.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { closeSharedParsePools } from '../../src/core/code/index/offThreadParse';
import { describeSoak, HEAP_GROWTH_LIMIT, runSoak } from '../support/soak';
import { jdkMissing, unpackSources } from '../support/jdk';

const missing = jdkMissing();

// An idle parse worker would keep this file's process alive until its pool closes itself.
after(() => closeSharedParsePools());

test('soak (short): 500 mixed calls answered exactly once, no unexpected error, heap back near baseline', { timeout: 60_000 }, async () => {
  // Like the other JDK ground-truth tests: fail loudly without the JDK (CI installs it), never skip.
  assert.equal(missing, undefined, `${missing}: run scripts/setup-jdk.sh (CI does)`);
  const workspace = unpackSources(['java/util', 'java/io']);
  const r = await runSoak({ workspace, calls: 500, rate: 80, maxSeconds: 9, hostileEvery: 10 });
  console.log(describeSoak(r));
  assert.equal(r.calls, 500, 'all calls were started within the time bound');
  assert.deepEqual(r.notExactlyOnce, []);
  assert.deepEqual(r.unexpected, []);
  // One in ten is hostile: 50 refusals with their expected codes, nothing else failed.
  assert.equal(Object.values(r.errors).reduce((a, b) => a + b, 0), 50);
  assert.ok(r.memory.heapGrowth < HEAP_GROWTH_LIMIT, `heap grew ${(r.memory.heapGrowth / 1048576).toFixed(1)} MB`);
});
