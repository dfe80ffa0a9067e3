/**
 * Bounded concurrency and per-tool deadlines in the dispatcher: slow fake tools, a hanging
 * "ripgrep" process that must be killed, and the link staying up through a flood.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as z from 'zod';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import type { ToolCall } from '../../src/core/protocol/messages';
import { DEFAULT_LIMITS, resolveLimits, type ToolLimits } from '../../src/core/policy/limiter';
import { defineTool, type ToolDefinition } from '../../src/core/tools/tool';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { startDevBackend } from '../../src/devBackend/server';
import { startHeadlessHost } from '../../src/node/headless';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { isAlive } from '../support/processes';
import { waitUntil } from '../support/waitUntil';

const tree = makeTree({ 'a.txt': 'alpha\n' }, 'ab-limits-');
let n = 0;
const call = (toolName: string, params: Record<string, unknown> = {}, id = `l${++n}`): ToolCall => ({ id, idKey: 'toolCallId', toolName, params });

/** A read tool that waits until released (or aborted, which it records). */
function gatedTool(writes = false) {
  let open: () => void = () => undefined;
  let gate = new Promise<void>((r) => (open = r));
  const aborted: string[] = [];
  let started = 0;
  const tool = defineTool({
    name: writes ? 'slow_write' : 'slow',
    description: '',
    writes,
    params: z.object({}),
    handler: async (_p, ctx) => {
      started++;
      ctx.signal.addEventListener('abort', () => aborted.push(ctx.callId));
      await gate;
      return { result: 'done' };
    },
  });
  return {
    tool,
    aborted,
    started: () => started,
    release: () => {
      open();
      gate = new Promise<void>((r) => (open = r));
    },
  };
}

function dispatcher(tools: ToolDefinition[], limits: Partial<ToolLimits>): Dispatcher {
  return new Dispatcher({ workspace: new NodeWorkspace(tree), tools, log: silentLogger, limits: () => limits });
}

test('limits default to 8 running, 64 waiting, 25 s, and nonsense falls back to them', () => {
  assert.deepEqual(DEFAULT_LIMITS, { maxConcurrent: 8, maxQueued: 64, timeoutMs: 25_000 });
  assert.deepEqual(resolveLimits({ maxConcurrent: 0, maxQueued: -1, timeoutMs: Number.NaN }), DEFAULT_LIMITS);
  assert.deepEqual(resolveLimits({ maxConcurrent: 2.7, timeoutMs: 1500 }), { maxConcurrent: 2, maxQueued: 64, timeoutMs: 1500 });
});

test('beyond running + queued, a call is answered "busy" at once; the rest finish; a busy id may retry', async () => {
  const slow = gatedTool();
  const d = dispatcher([slow.tool], { maxConcurrent: 2, maxQueued: 2, timeoutMs: 10_000 });
  const pending = [1, 2, 3, 4].map((i) => d.dispatch(call('slow', {}, `ok${i}`)));
  const t0 = Date.now();
  const busy = await d.dispatch(call('slow', {}, 'busy1'));
  assert.ok(Date.now() - t0 < 100, 'answered at once');
  assert.equal(busy.data.success, false);
  assert.equal(busy.data.code, 'INTERNAL_ERROR');
  assert.match(busy.data.error ?? '', /busy/);
  await waitUntil(() => slow.started() === 2, 'two running', 2000);
  assert.deepEqual(d.load, { running: 2, waiting: 2 });
  slow.release();
  await waitUntil(() => slow.started() === 4, 'the queued two to start', 2000);
  slow.release();
  for (const r of await Promise.all(pending)) assert.equal(r.data.success, true);
  assert.deepEqual(d.load, { running: 0, waiting: 0 });
  // The busy answer was not kept for replay: the same id now runs.
  const retry = d.dispatch(call('slow', {}, 'busy1'));
  await waitUntil(() => slow.started() === 5, 'the retry to start', 2000);
  slow.release();
  assert.equal((await retry).data.success, true);
});

test('a tool past its deadline is aborted and answered TIMEOUT', async () => {
  const slow = gatedTool();
  const d = dispatcher([slow.tool], { maxConcurrent: 1, maxQueued: 4, timeoutMs: 150 });
  const r = await d.dispatch(call('slow', {}, 't1'));
  assert.equal(r.data.code, 'TIMEOUT');
  assert.match(r.data.error ?? '', /did not finish within 0\.15 s/);
  assert.deepEqual(slow.aborted, ['t1'], 'the tool saw its signal abort');
  assert.deepEqual(d.load, { running: 0, waiting: 0 }, 'its slot is free again');
  slow.release();
});

test('a call whose deadline passes while it waits for a slot is answered TIMEOUT and never starts', async () => {
  const slow = gatedTool();
  const limits: { -readonly [K in keyof ToolLimits]?: ToolLimits[K] } = { maxConcurrent: 1, maxQueued: 4, timeoutMs: 5_000 };
  const d = new Dispatcher({ workspace: new NodeWorkspace(tree), tools: [slow.tool], log: silentLogger, limits: () => limits });
  const first = d.dispatch(call('slow', {}, 'q1'));
  limits.timeoutMs = 100; // read per call: the second one gets the short deadline
  const second = await d.dispatch(call('slow', {}, 'q2'));
  assert.equal(second.data.code, 'TIMEOUT');
  assert.equal(slow.started(), 1, 'the queued call never started');
  assert.deepEqual(d.load, { running: 1, waiting: 0 });
  slow.release();
  assert.equal((await first).data.success, true);
});

test('writing tools are not timed (they wait for a person) and not queued behind reads', async () => {
  const reads = gatedTool();
  const writes = gatedTool(true);
  const d = new Dispatcher({
    workspace: new NodeWorkspace(tree),
    tools: [reads.tool, writes.tool],
    log: silentLogger,
    limits: () => ({ maxConcurrent: 1, maxQueued: 0, timeoutMs: 100 }),
  });
  const read = d.dispatch(call('slow'));
  const write = d.dispatch(call('slow_write'));
  await new Promise((r) => setTimeout(r, 250));
  assert.equal((await read).data.code, 'TIMEOUT');
  assert.equal(writes.started(), 1);
  writes.release();
  assert.equal((await write).data.success, true);
});

test('a search past its deadline kills the ripgrep process it started', async () => {
  const dir = makeTree({ 'src/x.txt': 'x\n' }, 'ab-limits-rg-');
  const pidFile = path.join(dir, 'rg.pid');
  const fakeRg = path.join(dir, 'fake-rg.sh');
  fs.writeFileSync(fakeRg, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 30\n`, { mode: 0o755 });
  const d = new Dispatcher({ workspace: new NodeWorkspace(dir, { ripgrep: fakeRg }), tools: ALL_TOOLS, log: silentLogger, limits: () => ({ timeoutMs: 300 }) });
  const r = await d.dispatch(call('grep_file', { pattern: 'x', relativePath: 'src' }));
  assert.equal(r.data.code, 'TIMEOUT');
  await waitUntil(() => fs.existsSync(pidFile), 'the pid file', 2000);
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  await waitUntil(() => !isAlive(pid), `process ${pid} to be killed`, 2000);
});

test('a flood of calls through the headless host: every call one answer, busy ones say so, the link stays up', async () => {
  const backend = await startDevBackend({ port: 0 });
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: tree, log: silentLogger, limits: { maxConcurrent: 2, maxQueued: 3 } });
  try {
    await backend.waitForSession(undefined, 5000);
    const results = await Promise.all(
      Array.from({ length: 40 }, () => backend.callTool('grep_file', { pattern: 'alpha' }).then((m) => m.data as { success: boolean; code?: string; error?: string })),
    );
    const busy = results.filter((r) => !r.success);
    assert.ok(results.some((r) => r.success));
    for (const r of busy) {
      assert.equal(r.code, 'INTERNAL_ERROR');
      assert.match(r.error ?? '', /busy/);
    }
    assert.equal(host.connection.state, 'connected');
    const after = (await backend.callTool('read_file', { relativePath: 'a.txt' })).data as { success: boolean };
    assert.equal(after.success, true);
  } finally {
    host.stop();
    await backend.close();
  }
});
