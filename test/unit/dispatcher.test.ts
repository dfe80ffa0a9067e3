import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as z from 'zod';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import { ToolError } from '../../src/core/protocol/errors';
import type { ToolCall } from '../../src/core/protocol/messages';
import { defineTool } from '../../src/core/tools/tool';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

const ws = new NodeWorkspace(makeTree({ 'a.txt': 'hello\n' }));
let slowRuns = 0;
let writes = 0;
const testTools = [
  defineTool({
    name: 'slow', description: '', writes: false, params: z.object({ ms: z.number() }),
    async handler(p) { slowRuns++; await new Promise((r) => setTimeout(r, p.ms)); return { result: `slept ${p.ms}` }; },
  }),
  defineTool({ name: 'boom', description: '', writes: false, params: z.object({}), handler: async () => { throw new TypeError('kaput'); } }),
  defineTool({ name: 'denied', description: '', writes: false, params: z.object({}), handler: async () => { throw new ToolError('CONFLICT', 'changed underneath'); } }),
  defineTool({ name: 'write', description: '', writes: true, params: z.object({}), handler: async () => { writes++; return { result: 'written' }; } }),
];
const call = (id: string, toolName: string, params: Record<string, unknown> = {}, idKey: 'toolCallId' | 'callId' = 'toolCallId'): ToolCall => ({ id, idKey, toolName, params });

test('unknown tools are TOOL_NOT_FOUND and list what exists', async () => {
  const d = new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log: silentLogger });
  const r = await d.dispatch(call('1', 'rm_rf'));
  assert.equal(r.data.code, 'TOOL_NOT_FOUND');
  assert.match(r.data.error ?? '', /rm_rf.*read_file/);
});

test('bad params are VALIDATION_FAILED naming the field', async () => {
  const d = new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log: silentLogger });
  const missing = await d.dispatch(call('2', 'read_file', {}));
  assert.equal(missing.data.code, 'VALIDATION_FAILED');
  assert.match(missing.data.error ?? '', /relativePath: is required/);
  const wrong = await d.dispatch(call('3', 'read_file', { relativePath: 'a.txt', start_line: 'ten' }));
  assert.equal(wrong.data.code, 'VALIDATION_FAILED');
  assert.match(wrong.data.error ?? '', /start_line/);
});

test('projectKey and webSocketSessionId in params are accepted and ignored', async () => {
  const d = new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log: silentLogger });
  const r = await d.dispatch(call('4', 'read_file', { relativePath: 'a.txt', projectKey: 'p', webSocketSessionId: 'w' }, 'callId'));
  assert.equal(r.data.success, true, r.data.error);
  assert.equal(r.data.callId, '4');
  assert.equal(typeof r.data.executionTime, 'number');
});

test('calls run concurrently and a repeated id is answered once, from the first answer', async () => {
  const d = new Dispatcher({ workspace: ws, tools: testTools, log: silentLogger });
  slowRuns = 0;
  const started = Date.now();
  const [a, b, again] = await Promise.all([
    d.dispatch(call('s1', 'slow', { ms: 200 })),
    d.dispatch(call('s2', 'slow', { ms: 200 })),
    d.dispatch(call('s1', 'slow', { ms: 200 })),
  ]);
  assert.ok(Date.now() - started < 390, 'two 200 ms calls ran one after the other');
  assert.equal(slowRuns, 2);
  assert.equal(again, a);
  assert.equal(b.data.result, 'slept 200');
  const later = await d.dispatch(call('s1', 'slow', { ms: 200 }));
  assert.deepEqual(later, a);
  // The same id for other params is another call: refused, never answered with the first one's result.
  const reused = await d.dispatch(call('s1', 'slow', { ms: 999 }));
  assert.equal(reused.data.code, 'CONFLICT');
  assert.equal(slowRuns, 2);
});

test('a crashing tool answers INTERNAL_ERROR; a ToolError keeps its code', async () => {
  const d = new Dispatcher({ workspace: ws, tools: testTools, log: silentLogger });
  const boom = await d.dispatch(call('b', 'boom'));
  assert.equal(boom.data.success, false);
  assert.equal(boom.data.code, 'INTERNAL_ERROR');
  assert.match(boom.data.error ?? '', /kaput/);
  const conflict = await d.dispatch(call('c', 'denied'));
  assert.equal(conflict.data.code, 'CONFLICT');
});

test('writing tools are refused while the write policy says no', async () => {
  let refusal: string | undefined = 'not trusted';
  writes = 0;
  const d = new Dispatcher({ workspace: ws, tools: testTools, log: silentLogger, writeRefusal: () => refusal });
  const denied = await d.dispatch(call('w1', 'write'));
  assert.equal(denied.data.code, 'PERMISSION_DENIED');
  assert.equal(writes, 0);
  refusal = undefined;
  const allowed = await d.dispatch(call('w2', 'write'));
  assert.equal(allowed.data.success, true);
  assert.equal(writes, 1);
});

test('cancelAll answers running calls CANCELLED', async () => {
  const d = new Dispatcher({ workspace: ws, tools: testTools, log: silentLogger });
  const pending = d.dispatch(call('long', 'slow', { ms: 5000 }));
  setTimeout(() => d.cancelAll('user disconnected'), 20);
  const r = await pending;
  assert.equal(r.data.code, 'CANCELLED');
  assert.match(r.data.error ?? '', /user disconnected/);
});

test('the params debug line is built only for a logger that keeps debug lines', async () => {
  const lines = (verbose: boolean | undefined) => {
    const debug: string[] = [];
    const log = { ...silentLogger, verbose, debug: (m: string) => void debug.push(m) };
    return { log, debug };
  };
  for (const verbose of [undefined, true, false]) {
    const { log, debug } = lines(verbose);
    const d = new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log });
    const r = await d.dispatch(call(`dbg-${String(verbose)}`, 'read_file', { relativePath: 'a.txt' }));
    assert.equal(r.data.success, true);
    assert.equal(debug.some((m) => m.includes('params: {"relativePath":"a.txt"}')), verbose !== false, String(verbose));
  }
});

test('read_file takes plain, dotted and doubled-slash paths alike; none leaves the project', async () => {
  const tree = makeTree({ 'src/a/B.java': 'class B {}\n', '...x/y.txt': 'dots\n' });
  const d = new Dispatcher({ workspace: new NodeWorkspace(tree), tools: ALL_TOOLS, log: silentLogger });
  let n = 0;
  const read = (relativePath: string) => d.dispatch(call(`p${n++}`, 'read_file', { relativePath }));
  for (const p of ['src/a/B.java', './src/a/B.java', 'src//a/B.java', 'src/./a/B.java', 'src/x/../a/B.java']) {
    const r = await read(p);
    assert.equal(r.data.success, true, p);
    assert.match(String(r.data.result), /## File: src\/a\/B\.java/, p);
  }
  assert.equal((await read('...x/y.txt')).data.success, true);
  for (const p of ['../outside.txt', 'src/../../outside.txt', '/etc/passwd']) {
    const r = await read(p);
    assert.equal(r.data.success, false, p);
    assert.equal((r.data as { errorCode?: string; code?: string }).errorCode ?? (r.data as { code?: string }).code, 'PERMISSION_DENIED', p);
  }
});

test('a write reports the time it waited for the developer apart from its own work (approvalWaitMs)', async () => {
  const tree = makeTree({ 'w.txt': 'one\n' });
  const wws = new NodeWorkspace(tree);
  const human = (decision: 'approve' | 'reject') => ({
    async commit(change: { proposed: string }, _signal: AbortSignal, hooks?: { approvalWait?(ms: number): void }) {
      const asked = performance.now();
      await new Promise((r) => setTimeout(r, 300));
      hooks?.approvalWait?.(performance.now() - asked);
      if (decision === 'reject') throw new ToolError('USER_REJECTED', 'The developer rejected the change.');
      return { finalText: change.proposed, modifiedByUser: false, formatted: false, saved: true };
    },
  });
  for (const decision of ['approve', 'reject'] as const) {
    const d = new Dispatcher({ workspace: wws, tools: ALL_TOOLS, log: silentLogger, changes: human(decision) });
    const r = await d.dispatch(call(`wait-${decision}`, 'apply_change', { relativePath: 'w.txt', searchContent: 'one', replaceContent: 'two' }));
    assert.equal(r.data.success, decision === 'approve', String(r.data.error));
    assert.ok((r.data.approvalWaitMs ?? 0) >= 290, `waited ${r.data.approvalWaitMs}`);
    assert.ok(r.data.executionTime < 290, `work ${r.data.executionTime} ms counts no waiting`);
  }
  // A tool that never waits says nothing of waiting.
  const plain = await new Dispatcher({ workspace: wws, tools: ALL_TOOLS, log: silentLogger }).dispatch(call('read-1', 'read_file', { relativePath: 'w.txt' }));
  assert.equal(plain.data.approvalWaitMs, undefined);
});

test('a write decided after the backend stopped waiting says so, and what became of the file', async () => {
  const tree = makeTree({ 'late.txt': 'one\n' });
  const wws = new NodeWorkspace(tree);
  const slowHuman = (decision: 'approve' | 'reject') => ({
    async commit(change: { proposed: string; path: { abs: string } }, _signal: AbortSignal, hooks?: { approvalWait?(ms: number): void }) {
      const asked = performance.now();
      await new Promise((r) => setTimeout(r, 300));
      hooks?.approvalWait?.(performance.now() - asked);
      if (decision === 'reject') throw new ToolError('USER_REJECTED', 'The developer rejected the change.');
      fs.writeFileSync(change.path.abs, change.proposed);
      return { finalText: change.proposed, modifiedByUser: false, formatted: false, saved: true };
    },
  });
  const ask = (decision: 'approve' | 'reject', backendWaitMs?: number) =>
    new Dispatcher({ workspace: wws, tools: ALL_TOOLS, log: silentLogger, changes: slowHuman(decision), ...(backendWaitMs ? { backendWaitMs } : {}) }).dispatch(
      call(`late-${decision}-${backendWaitMs}`, 'apply_change', { relativePath: 'late.txt', searchContent: decision === 'approve' ? 'one' : 'two', replaceContent: decision === 'approve' ? 'two' : 'three' }),
    );
  const landed = await ask('approve', 100);
  assert.equal(landed.data.success, true, String(landed.data.error));
  assert.match(String(landed.data.note), /later than a backend usually waits.*this change was still written/);
  assert.equal(fs.readFileSync(path.join(tree, 'late.txt'), 'utf8'), 'two\n');
  const refused = await ask('reject', 100);
  assert.match(String(refused.data.note), /later than a backend usually waits.*Nothing was written/);
  // Within the backend's wait: no note.
  assert.equal((await ask('reject')).data.note, undefined);
});
