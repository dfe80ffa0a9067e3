import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { CallGraph } from '../../src/core/code/index/callGraph';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { SLICE_LIMITS, type Sliced } from '../../src/core/code/index/slices';
import { dropCodeIntel, answerFromBuiltIndex } from '../../src/core/code/intel/intel';
import { setCodeIntel } from '../../src/core/code/intel/state';
import { DEFAULT_EXCLUDE_GLOBS } from '../../src/core/policy/secrets';
import { SecretGuard } from '../../src/core/workspace/globSet';
import { callChainTool } from '../../src/core/tools/callChain';
import { readClassTool } from '../../src/core/tools/readClass';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { callTool, failsWith } from '../support/tools';

/**
 * A file the secret globs come to cover after it was indexed (the developer adds a glob) leaves
 * every code answer at once, and comes back when the glob is removed: the index remembers which
 * paths it found visible per set of globs (codeIndex.ts `visible`), never across sets.
 */

/** A workspace whose secret globs the test changes, as a settings change does. */
class GlobsChange extends NodeWorkspace {
  guard = new SecretGuard([...DEFAULT_EXCLUDE_GLOBS]);
  override secretGuard(): SecretGuard {
    return this.guard;
  }
}

test('a file that becomes secret after it was indexed leaves read_class and call_chain answers, and comes back when it is no longer', async () => {
  const root = makeTree({
    'a/Target.java': 'package a;\npublic class Target {\n  public void hit() {}\n}\n',
    'keys/Vault.java': 'package keys;\nimport a.Target;\npublic class Vault {\n  void open(Target t) { t.hit(); }\n}\n',
    'b/Plain.java': 'package b;\nimport a.Target;\nclass Plain {\n  void go(Target t) { t.hit(); }\n}\n',
  });
  const ws = new GlobsChange(root);
  const index = new CodeIndex(ws, { workers: 0 });
  try {
    await index.ready();
    setCodeIntel(ws, { index, graph: new CallGraph(index) });
    const callers = async () => (await callTool(callChainTool, ws, { method: 'a.Target.hit', direction: 'callers' })).result;
    // visible: every lookup has seen both files under these globs
    assert.match((await callTool(readClassTool, ws, { className: 'keys.Vault' })).result, /class Vault/);
    assert.match(await callers(), /Vault\.open/);

    ws.guard = new SecretGuard([...DEFAULT_EXCLUDE_GLOBS, '**/keys/**']);
    await failsWith(callTool(readClassTool, ws, { className: 'keys.Vault' }), 'NOT_FOUND');
    const hidden = await callers();
    assert.doesNotMatch(hidden, /Vault/);
    assert.match(hidden, /Plain\.go/);

    ws.guard = new SecretGuard([...DEFAULT_EXCLUDE_GLOBS]);
    assert.match(await callers(), /Vault\.open/);
  } finally {
    dropCodeIntel(ws);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('an answer worked out in slices while the secret globs change is not given: what it read before the change may name a file they now cover', async () => {
  const root = makeTree({
    'a/Target.java': 'package a;\npublic class Target {}\n',
    'keys/Vault.java': 'package keys;\npublic class Vault {}\n',
  });
  const ws = new GlobsChange(root);
  const index = new CodeIndex(ws, { workers: 0 });
  const saved = SLICE_LIMITS.ms;
  SLICE_LIMITS.ms = 0;
  try {
    await index.ready();
    // reads Vault, pauses (the globs change then), looks something else up, gives what it read
    function* ask(): Sliced<string[]> {
      const found = index.findTypes('keys.Vault').map((t) => t.path);
      yield;
      index.findTypes('a.Target');
      return found;
    }
    setImmediate(() => (ws.guard = new SecretGuard([...DEFAULT_EXCLUDE_GLOBS, '**/keys/**'])));
    const given = await answerFromBuiltIndex(index, ask, new AbortController().signal);
    assert.deepEqual(given, [], 'the now-secret file is not in the answer');
  } finally {
    SLICE_LIMITS.ms = saved;
    fs.rmSync(root, { recursive: true, force: true });
  }
});
