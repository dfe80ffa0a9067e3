import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readClassTool } from '../../src/core/code/tools/readClass';
import { codeIntelFor } from '../../src/core/code/tools/shared';
import { silentLogger } from '../../src/core/log';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from './helpers/fixtures';
import { JAVA_PROJECT } from './helpers/javaProject';

const call = (workspace: NodeWorkspace, params: Record<string, unknown>) =>
  readClassTool.handler(readClassTool.params.parse(params), { workspace, callId: 't', signal: new AbortController().signal, log: silentLogger });

test('before the index is built, a fully qualified read_class answers from its one file, the same as the index later does', async () => {
  const ws = new NodeWorkspace(makeTree(JAVA_PROJECT, 'ab-quick-'));
  const index = codeIntelFor(ws).index;
  assert.equal(index.isReady, false);
  const quick = await call(ws, { className: 'com.acme.app.Main', mode: 'structure' });
  assert.equal(index.isReady, false, 'answered without waiting for the index');
  await index.ready();
  const indexed = await call(ws, { className: 'com.acme.app.Main', mode: 'structure' });
  assert.equal(quick.result, indexed.result);
  assert.match(quick.result, /com\.acme\.app\.Main/);
});

test('a simple name still goes through the index; an unknown qualified name is NOT_FOUND', async () => {
  const ws = new NodeWorkspace(makeTree(JAVA_PROJECT, 'ab-quick2-'));
  const simple = await call(ws, { className: 'Main', mode: 'structure' });
  assert.equal(codeIntelFor(ws).index.isReady, true);
  assert.match(simple.result, /com\.acme\.app\.Main/);
  await assert.rejects(call(new NodeWorkspace(makeTree(JAVA_PROJECT, 'ab-quick3-')), { className: 'com.acme.Nope', mode: 'structure' }), /NOT_FOUND|not found/i);
});
