/**
 * The outbox: answers finished while the link is down wait (bounded in count and age), go out
 * oldest first when it is back, and expired ones are dropped and logged. The retention comes from
 * `agentBridge.resultRetentionSeconds` in the extension and `--result-retention` in the host.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import * as z from 'zod';
import { DEFAULT_OUTBOX_TTL_MS, Outbox } from '../../src/core/link/bridge';
import { Bridge } from '../../src/core/link/bridge';
import { BridgeConnection } from '../../src/core/link/connection';
import { Dispatcher } from '../../src/core/link/dispatcher';
import type { Logger } from '../../src/core/log';
import { silentLogger } from '../support/silentLogger';
import { toolSuccess, type ToolResultMessage } from '../../src/core/protocol/messages';
import { defineTool } from '../../src/core/tools/tool';
import { startDevBackend } from '../../src/devBackend/server';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { waitUntil } from '../support/waitUntil';

const repo = path.resolve(__dirname, '../..');
const tree = makeTree({ 'a.txt': 'a\n' }, 'ab-outbox-');

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const add = (level: string) => (m: string) => void lines.push(`${level} ${m}`);
  return { lines, debug: add('debug'), info: add('info'), warn: add('warn'), error: add('error') };
}

const answer = (id: string): ToolResultMessage => toolSuccess({ id, idKey: 'toolCallId' }, `r-${id}`, 1);

test('the outbox keeps answers oldest first, drops expired ones with a log line, and is bounded', () => {
  let now = 1000;
  const log = recordingLog();
  const box = new Outbox(log, 500, 3, () => now);
  box.put(answer('a'));
  now += 300;
  box.put(answer('b'));
  box.put(answer('c'));
  assert.equal(box.size, 3);
  now += 300; // a is 600 ms old: past the 500 ms TTL; b and c are 300 ms old.
  const sent: string[] = [];
  assert.equal(box.flush((m) => (sent.push(m.data.toolCallId), true)), 2);
  assert.deepEqual(sent, ['b', 'c']);
  assert.ok(log.lines.some((l) => /^warn the answer to a expired/.test(l)), log.lines.join('\n'));

  for (const id of ['d', 'e', 'f', 'g']) box.put(answer(id));
  assert.equal(box.size, 3, 'bounded');
  assert.ok(log.lines.some((l) => /outbox full \(3\): dropped the answer to d/.test(l)));
  // A send that fails stops the flush; nothing is lost or reordered.
  let n = 0;
  assert.equal(box.flush(() => ++n <= 1), 1);
  assert.equal(box.size, 2);
  const rest: string[] = [];
  box.flush((m) => (rest.push(m.data.toolCallId), true));
  assert.deepEqual(rest, ['f', 'g']);
});

test('a retention of 0 keeps nothing; the TTL is read when each answer is kept', () => {
  let ttl = 0;
  const log = recordingLog();
  const box = new Outbox(log, () => ttl);
  box.put(answer('x'));
  assert.equal(box.size, 0);
  assert.ok(log.lines.some((l) => /answer to x was dropped \(result retention is 0\)/.test(l)));
  ttl = 10_000;
  box.put(answer('y'));
  assert.equal(box.size, 1);
  box.clear('the session changed');
  assert.ok(log.lines.some((l) => /dropped the answer to y: the session changed/.test(l)));
  assert.equal(DEFAULT_OUTBOX_TTL_MS, 60_000);
});

test('over a real link: an answer older than the retention is not delivered after the reconnect, a fresh one is', async () => {
  const gates = new Map<string, () => void>();
  const slow = defineTool({
    name: 'slow',
    description: '',
    writes: false,
    params: z.object({ name: z.string() }),
    handler: async (p) => {
      await new Promise<void>((r) => gates.set(p.name, r));
      return { result: p.name };
    },
  });
  const first = await startDevBackend({ port: 0 });
  const port = first.port;
  const log = recordingLog();
  let ttl = 150;
  const connection = new BridgeConnection({ serverUrl: first.wsUrl(), protocol: 'auto', sessionId: 'ttl-1', projectKey: 'p', projectPath: tree, log: silentLogger, timing: { backoffBaseMs: 50, backoffCapMs: 100 } });
  const bridge = new Bridge(connection, new Dispatcher({ workspace: new NodeWorkspace(tree), tools: [slow], log: silentLogger }), { log, outboxTtlMs: () => ttl });
  connection.connect();
  try {
    await first.waitForSession(undefined, 5000);
    const stale = first.callTool('slow', { name: 'stale' }).catch((e: unknown) => e);
    const fresh = first.callTool('slow', { name: 'fresh' }).catch((e: unknown) => e);
    await waitUntil(() => gates.size === 2, 'both calls to start', 3000);
    await first.close();
    await Promise.all([stale, fresh]);
    await waitUntil(() => connection.state !== 'connected', 'the link to drop', 3000);
    gates.get('stale')?.();
    await waitUntil(() => bridge.pending === 1, 'the stale answer to be kept', 3000);
    await new Promise((r) => setTimeout(r, 200));
    ttl = 60_000;
    gates.get('fresh')?.();
    // Keeping the fresh one prunes the stale one, which is past its 150 ms.
    await waitUntil(() => log.lines.some((l) => /answer to \S+ waits in the outbox \(1 waiting\)/.test(l)) && log.lines.filter((l) => /waits in the outbox/.test(l)).length === 2, 'the fresh answer to be kept', 3000);
    assert.equal(bridge.pending, 1);
    assert.ok(log.lines.some((l) => /expired after waiting/.test(l)), log.lines.join('\n'));
    const second = await startDevBackend({ port });
    try {
      const got: string[] = [];
      second.onMessage((m) => {
        if (m.message?.type === 'TOOL_RESULT') got.push(String((m.message.data as { result: string }).result));
      });
      await waitUntil(() => got.length >= 1 && bridge.pending === 0, 'the outbox to flush', 5000);
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(got, ['fresh']);
    } finally {
      await second.close();
    }
  } finally {
    bridge.dispose();
    connection.disconnect();
  }
});

test('agent-bridge-host: --result-retention is documented and validated', () => {
  const host = path.join(repo, 'src/node/host.ts');
  const help = spawnSync(process.execPath, ['--import', 'tsx', host, '--help'], { cwd: repo, encoding: 'utf8' });
  assert.match(help.stdout, /--result-retention S/);
  const bad = spawnSync(process.execPath, ['--import', 'tsx', host, '--url', 'ws://127.0.0.1:9/ws/agent/chat', '--result-retention', 'soon'], { cwd: repo, encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--result-retention must be/);
});

test('a result over the 10 MB message limit is cut to fit, and says so', async () => {
  const { fitToMessageLimit } = await import('../../src/core/link/bridge');
  const { MAX_MESSAGE_BYTES } = await import('../../src/core/protocol/messages');
  const big = toolSuccess({ id: 'big', idKey: 'toolCallId' }, 'x'.repeat(MAX_MESSAGE_BYTES + 1000), 1);
  const cut = fitToMessageLimit(big);
  assert.ok(Buffer.byteLength(JSON.stringify(cut)) <= MAX_MESSAGE_BYTES);
  assert.equal(cut.data.toolCallId, 'big');
  assert.match(cut.data.result ?? '', /\[Result cut: it was \d+ bytes, over the \d+-byte message limit/);
  const small = answer('small');
  assert.equal(fitToMessageLimit(small), small);
});

test('cancelAll: a change awaiting its gate is withdrawn (CANCELLED), a write already under way finishes and says so', async () => {
  const { ToolError } = await import('../../src/core/protocol/errors');
  const { ALL_TOOLS } = await import('../../src/core/tools/registry');
  const fs = await import('node:fs');
  const dir = makeTree({ 'pending.txt': 'one\n', 'writing.txt': 'two\n' }, 'ab-cancel-');
  let finishWrite: () => void = () => undefined;
  const writing = new Promise<void>((r) => (finishWrite = r));
  const started: string[] = [];
  const gate = {
    async commit(change: { path: { abs: string; rel: string }; proposed: string }, signal: AbortSignal) {
      started.push(change.path.rel);
      if (change.path.rel === 'pending.txt') {
        // A person's approval that never comes: withdrawn when the call is cancelled.
        await new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(new ToolError('CANCELLED', 'withdrawn; nothing was written')), { once: true }));
      }
      // Approved: the write is under way and not interrupted.
      await writing;
      fs.writeFileSync(change.path.abs, change.proposed);
      return { finalText: change.proposed, modifiedByUser: false, formatted: false, saved: true };
    },
  };
  const d = new Dispatcher({ workspace: new NodeWorkspace(dir), tools: ALL_TOOLS, log: silentLogger, changes: gate });
  const pending = d.dispatch({ id: 'p', idKey: 'toolCallId', toolName: 'apply_change', params: { relativePath: 'pending.txt', searchContent: 'one', replaceContent: 'ONE' } });
  const underWay = d.dispatch({ id: 'w', idKey: 'toolCallId', toolName: 'apply_change', params: { relativePath: 'writing.txt', searchContent: 'two', replaceContent: 'TWO' } });
  await waitUntil(() => started.length === 2, 'both changes at the gate', 3000);
  d.cancelAll('disconnected');
  const p = await pending;
  assert.equal(p.data.code, 'CANCELLED');
  assert.equal(fs.readFileSync(path.join(dir, 'pending.txt'), 'utf8'), 'one\n');
  setTimeout(finishWrite, 50);
  const w = await underWay;
  assert.equal(w.data.success, true, 'the answer says what happened to the file');
  assert.equal(fs.readFileSync(path.join(dir, 'writing.txt'), 'utf8'), 'TWO\n');
});
