import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { closeSharedParsePools } from '../../src/core/code/index/offThreadParse';
import { configureCodeIndexes, codeIntelFor, dropCodeIntel } from '../../src/core/code/intel/intel';
import { callChainTool } from '../../src/core/tools/callChain';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { jdkMissing, unpackModule } from '../support/jdk';
import { callTool } from '../support/tools';

/**
 * call_chain before the index is built (intel/onDemand.ts), over java.base: the same answer, byte
 * for byte, as the full index gives once built. The tool may not wait for the index here (a 1 ms
 * wait would answer TIMEOUT), so an answer proves the cold path.
 */

const missing = jdkMissing();

before(() => configureCodeIndexes({ waitMs: 1 }));
after(async () => {
  configureCodeIndexes({});
  // An idle parse worker would keep this file's process alive until its pool closes itself.
  await closeSharedParsePools();
});

const answerOf = (r: unknown) => r as { result: string; structured: unknown };

test('java.base: cold call chains equal the full index answers, callers and callees, depth 1 and 2', async () => {
  assert.equal(missing, undefined, `${missing}: run scripts/setup-jdk.sh (CI does)`);
  const ws = new NodeWorkspace(unpackModule('java.base'));
  const questions = [
    { method: 'java.util.HashMap.putVal', direction: 'both', depth: 1 },
    { method: 'java.util.ArrayList.grow', direction: 'both', depth: 1 },
    { method: 'java.util.concurrent.ConcurrentHashMap.transfer', direction: 'callers', depth: 2 },
    { method: 'java.util.regex.Pattern.compile', direction: 'callees', depth: 2 },
    // a simple class name declared once, and an overloaded method: every overload
    { method: 'TreeMap.fixAfterInsertion', direction: 'both', depth: 1 },
  ];
  const cold = [];
  for (const q of questions) {
    assert.equal(codeIntelFor(ws).index.isReady, false, 'the index is not built yet');
    cold.push(answerOf(await callTool(callChainTool, ws, q)));
  }
  await codeIntelFor(ws).index.ready();
  for (const [i, q] of questions.entries()) {
    const warm = answerOf(await callTool(callChainTool, ws, q));
    assert.equal(cold[i]?.result, warm.result, `${q.method}: the cold answer differs from the index's`);
    assert.deepEqual(cold[i]?.structured, warm.structured);
  }
  assert.match(cold[0]?.result ?? '', /putMapEntries|put\b/, 'putVal has callers');
  dropCodeIntel(ws);
});
