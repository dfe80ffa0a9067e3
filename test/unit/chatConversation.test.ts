/**
 * The chat's conversation logic without VS Code: a fake link records what would go on the wire,
 * backend messages go in as parsed ServerMessages, and the transcript lives in a Map.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConnectionState } from '../../src/core/link/connection';
import { parseServerMessage, type ClientMessage, type ProtocolVersion, type ServerMessage, type ToolCall } from '../../src/core/protocol/messages';
import { EntrySchema, type Entry } from '../../src/extension/chat/contract';
import { Conversation, type ChatTexts } from '../../src/extension/chat/conversation';
import { MAX_ENTRIES, Transcript, transcriptKey } from '../../src/extension/chat/transcript';
import { MapStore } from '../support/mapStore';


const texts: ChatTexts = {
  notConnected: 'NOT_CONNECTED',
  notSentQueued: 'NOT_SENT_QUEUED',
  stopped: 'STOPPED',
  timedOut: 'TIMED_OUT',
  connectionLost: 'CONNECTION_LOST',
  busy: 'BUSY',
  overriddenStale: 'OVERRIDDEN_STALE',
  explain: (code) => `explained ${code}`,
};

function setup(opts: { protocol?: ProtocolVersion; state?: ConnectionState; timeoutMs?: number } = {}) {
  const sent: ClientMessage[] = [];
  const link = {
    state: opts.state ?? ('connected' as ConnectionState),
    protocol: opts.protocol ?? ('v2' as const),
    requestId: 'req-7' as string | undefined,
    send: (m: ClientMessage) => (sent.push(m), true),
  };
  const store = new MapStore();
  const transcript = new Transcript(store, 'sess-1', 0);
  const posted: Entry[] = [];
  const busy: boolean[] = [];
  const withdrawn: string[][] = [];
  const conv = new Conversation(link, () => ({ sessionId: 'sess-1', projectKey: 'shop', projectPath: '/w/shop' }), transcript, texts, {
    onEntry: (e) => posted.push(e),
    onBusy: (b) => busy.push(b),
    onWithdraw: (ids) => withdrawn.push([...ids]),
  }, opts.timeoutMs);
  const server = (raw: object): void => {
    const parsed = parseServerMessage(JSON.stringify(raw));
    assert.equal(parsed.ok, true, JSON.stringify(parsed));
    if (parsed.ok === true) conv.onServerMessage(parsed.message as ServerMessage);
  };
  return { conv, sent, link, store, transcript, posted, busy, withdrawn, server, kinds: () => transcript.entries.map((e) => e.kind) };
}

test('v2 sends AGENT_CHAT with session and project; v1 sends ANALYZE with the CONNECTED requestId', () => {
  const a = setup();
  assert.equal(a.conv.send('  hello  '), true);
  assert.deepEqual(a.sent, [{ type: 'AGENT_CHAT', data: { sessionId: 'sess-1', projectKey: 'shop', message: 'hello' } }]);
  assert.equal(a.conv.busy, true);
  const b = setup({ protocol: 'v1' });
  b.conv.send('hi');
  assert.deepEqual(b.sent, [{ type: 'ANALYZE', data: { requestId: 'req-7', message: 'hi', projectKey: 'shop', projectPath: '/w/shop', mode: 'claude-code' } }]);
  a.conv.dispose();
  b.conv.dispose();
});

test('offline: the message waits, shown as queued, and goes out once the link is back (not twice)', () => {
  const off = setup({ state: 'disconnected' });
  assert.equal(off.conv.send('hello'), true);
  assert.equal(off.sent.length, 0);
  assert.deepEqual(off.transcript.entries.map((e) => (e.kind === 'notice' ? e.text : e.kind === 'user' ? `${e.text}${e.queued ? ' (queued)' : ''}` : e.kind)), ['hello (queued)', 'NOT_CONNECTED']);
  assert.equal(off.conv.busy, true);
  // A second message while one waits is refused, not queued behind it.
  assert.equal(off.conv.send('again'), false);
  off.link.state = 'connecting';
  off.conv.onConnectionState('connecting');
  assert.equal(off.sent.length, 0);
  off.link.state = 'connected';
  off.conv.onConnectionState('connected');
  off.conv.onConnectionState('connected');
  assert.equal(off.sent.length, 1, 'sent once');
  assert.equal((off.sent[0] as { data: { message: string } }).data.message, 'hello');
  const user = off.transcript.entries.find((e) => e.kind === 'user');
  assert.equal(user?.kind === 'user' && user.queued, undefined);
  assert.equal(off.transcript.entries.filter((e) => e.kind === 'user').length, 1, 'one entry, no duplicate');
  off.conv.dispose();
});

test('a send the link refuses (the socket closed under it) is queued, not lost, and goes out on the next connect', () => {
  const t = setup();
  let refuse = true;
  const sent: string[] = [];
  t.link.send = (m: ClientMessage) => (refuse ? false : (sent.push(JSON.stringify(m)), true));
  assert.equal(t.conv.send('hello'), true);
  const user = t.transcript.entries.find((e) => e.kind === 'user');
  assert.equal(user?.kind === 'user' && user.queued, true);
  refuse = false;
  t.conv.onConnectionState('connected');
  assert.equal(sent.length, 1);
  t.conv.dispose();
});

test('after a reload: a waiting message still goes out on the next connect; nothing stays spinning', async () => {
  const first = setup({ state: 'disconnected' });
  first.conv.send('hello');
  first.transcript.upsert({ kind: 'thinking', id: 't1', at: 1, text: 'x', percent: 40, active: true });
  first.transcript.upsert({ kind: 'answer', id: 'a1', at: 2, markdown: 'half', done: false });
  first.transcript.upsert({ kind: 'tool', id: 'tool-1', at: 3, name: 'read_file', summary: '', status: 'running' });
  await first.transcript.flush();
  // A new extension host: the same stored transcript, a new conversation.
  const transcript = new Transcript(first.store, 'sess-1', 0);
  const kinds = Object.fromEntries(transcript.entries.map((e) => [e.id, e]));
  assert.equal((kinds.t1 as { active: boolean }).active, false);
  assert.equal((kinds.a1 as { done: boolean }).done, true);
  assert.equal((kinds['tool-1'] as { status: string }).status, 'cancelled');
  const sent: ClientMessage[] = [];
  const link = { state: 'connected' as ConnectionState, protocol: 'v2' as const, requestId: undefined, send: (m: ClientMessage) => (sent.push(m), true) };
  const conv = new Conversation(link, () => ({ sessionId: 'sess-1', projectKey: 'shop', projectPath: '/w' }), transcript, texts, { onEntry: () => undefined, onBusy: () => undefined });
  assert.equal(conv.busy, true);
  conv.onConnectionState('connected');
  assert.equal(sent.length, 1);
  conv.dispose();
  first.conv.dispose();
});

test('attachments go twice: fenced under their label in message, and structured in data.context (v1 and v2); the transcript keeps labels only', () => {
  const item = { path: 'src/A.java', startLine: 2, endLine: 3, text: 'int a;\nint b;' };
  const label = { path: 'src/A.java', label: 'A.java:2-3', startLine: 2, endLine: 3 };
  for (const protocol of ['v2', 'v1'] as const) {
    const c = setup({ protocol });
    c.conv.send('why?', [item], [label]);
    const data = c.sent[0]?.data as { message: string; context?: unknown };
    assert.equal(data.message, 'why?\n\nAttached by the developer:\n\nsrc/A.java:2-3\n```java\nint a;\nint b;\n```');
    assert.deepEqual(data.context, [item]);
    const user = c.transcript.entries.find((e) => e.kind === 'user');
    assert.deepEqual(user?.kind === 'user' ? [user.text, user.context] : undefined, ['why?', [label]]);
    assert.ok(!JSON.stringify(c.store.map.get(transcriptKey('sess-1')) ?? '').includes('int a;'), 'the file text went into stored state');
    c.conv.dispose();
  }
});

test('a message queued offline goes with its attachments as the files are when it is sent, not as they were when typed', async () => {
  const sent: ClientMessage[] = [];
  const link = { state: 'disconnected' as ConnectionState, protocol: 'v2' as const, requestId: undefined, send: (m: ClientMessage) => (sent.push(m), true) };
  const transcript = new Transcript(new MapStore(), 'sess-1', 0);
  let now = 'export const apiKey = "edited out";';
  const conv = new Conversation(link, () => ({ sessionId: 'sess-1', projectKey: 'shop', projectPath: '/w' }), transcript, texts, {
    onEntry: () => undefined,
    onBusy: () => undefined,
    readContext: () => Promise.resolve([{ path: 'config.ts', startLine: 1, endLine: 1, text: now }]),
  });
  conv.send('look', [{ path: 'config.ts', startLine: 1, endLine: 1, text: 'export const apiKey = "sk-live-REALKEY";' }], [{ path: 'config.ts', label: 'config.ts', startLine: 1, endLine: 1 }]);
  now = 'export const apiKey = process.env.KEY;';
  link.state = 'connected';
  conv.onConnectionState('connected');
  await new Promise((r) => setImmediate(r));
  assert.equal(sent.length, 1);
  assert.ok(!JSON.stringify(sent).includes('sk-live-REALKEY'), 'the text read when typed went out');
  assert.deepEqual((sent[0].data as { context: unknown }).context, [{ path: 'config.ts', startLine: 1, endLine: 1, text: 'export const apiKey = process.env.KEY;' }]);
  conv.dispose();
});

test('after a reload, a message queued with attachments reads them again before it goes; if they cannot be read, it does not go', async () => {
  for (const outcome of ['read', 'refused'] as const) {
    const first = setup({ state: 'disconnected' });
    first.conv.send('look', [{ path: 'a.ts', startLine: 1, endLine: 1, text: 'old' }], [{ path: 'a.ts', label: 'a.ts:1', startLine: 1, endLine: 1 }]);
    await first.transcript.flush();
    const transcript = new Transcript(first.store, 'sess-1', 0);
    const sent: ClientMessage[] = [];
    const link = { state: 'connected' as ConnectionState, protocol: 'v2' as const, requestId: undefined, send: (m: ClientMessage) => (sent.push(m), true) };
    const asked: unknown[] = [];
    const conv = new Conversation(link, () => ({ sessionId: 'sess-1', projectKey: 'shop', projectPath: '/w' }), transcript, texts, {
      onEntry: () => undefined,
      onBusy: () => undefined,
      readContext: (refs) => {
        asked.push(refs);
        return outcome === 'read' ? Promise.resolve([{ path: 'a.ts', startLine: 1, endLine: 1, text: 'new' }]) : Promise.reject(new Error('a.ts is secret now'));
      },
    });
    conv.onConnectionState('connected');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(asked, [[{ path: 'a.ts', startLine: 1, endLine: 1 }]]);
    if (outcome === 'read') {
      assert.equal(sent.length, 1);
      assert.deepEqual((sent[0].data as { context: unknown }).context, [{ path: 'a.ts', startLine: 1, endLine: 1, text: 'new' }]);
    } else {
      assert.equal(sent.length, 0);
      assert.equal(conv.busy, false);
      assert.ok(transcript.entries.some((e) => e.kind === 'notice' && e.text.includes('a.ts is secret now')));
    }
    conv.dispose();
    first.conv.dispose();
  }
});

test('offline: Stop cancels the waiting message; it is never sent', () => {
  const off = setup({ state: 'disconnected' });
  off.conv.send('hello');
  off.conv.stop();
  assert.equal(off.conv.busy, false);
  off.link.state = 'connected';
  off.conv.onConnectionState('connected');
  assert.equal(off.sent.length, 0);
  assert.ok(off.transcript.entries.some((e) => e.kind === 'notice' && e.text === 'NOT_SENT_QUEUED'));
  const user = off.transcript.entries.find((e) => e.kind === 'user');
  assert.equal(user?.kind === 'user' && user.queued, false);
});

test('a second message while busy is refused', () => {
  const on = setup();
  on.conv.send('one');
  assert.equal(on.conv.send('two'), false);
  assert.equal(on.sent.length, 1);
  const last = on.transcript.entries.at(-1);
  assert.ok(last?.kind === 'notice' && last.text === 'BUSY');
  on.conv.dispose();
});

test('a v2 turn: THINKING in place, tool row running then succeeded, answer chunks joined, done ends it', () => {
  const s = setup();
  s.conv.send('/grep TODO');
  s.server({ type: 'THINKING', data: { thinking: 'a', stage: 'plan', percent: 10, round: 1 } });
  s.server({ type: 'THINKING', data: { thinking: 'b', stage: 'plan', percent: 150, round: 1 } });
  assert.deepEqual(s.kinds(), ['user', 'thinking']);
  const th = s.transcript.entries[1];
  assert.ok(th.kind === 'thinking' && th.text === 'b' && th.percent === 100 && th.active);
  s.server({ type: 'TOOL_CALL', toolCallId: 'c1', toolName: 'grep_file', params: { pattern: 'TODO', projectKey: 'shop' } });
  const call: ToolCall = { id: 'c1', idKey: 'toolCallId', toolName: 'grep_file', params: { pattern: 'TODO' } };
  const tool = s.transcript.get('tool-c1');
  assert.ok(tool?.kind === 'tool' && tool.status === 'running' && tool.summary === '"TODO"');
  s.conv.onToolFinished(call, { type: 'TOOL_RESULT', data: { toolCallId: 'c1', success: true, result: 'found', executionTime: 12 } });
  const done = s.transcript.get('tool-c1');
  assert.ok(done?.kind === 'tool' && done.status === 'succeeded' && done.ms === 12 && done.output === 'found');
  s.server({ type: 'THINKING', data: { thinking: 'c', round: 2 } });
  assert.deepEqual(s.kinds(), ['user', 'thinking', 'tool', 'thinking'], 'a new THINKING row after the tool');
  assert.ok(s.transcript.entries[1].kind === 'thinking' && !s.transcript.entries[1].active);
  s.server({ type: 'AGENT_RESPONSE', data: { content: '### Found', done: false } });
  s.server({ type: 'AGENT_RESPONSE', data: { content: '\n\nin `a.ts`', done: true } });
  const answer = s.transcript.entries.at(-1);
  assert.ok(answer?.kind === 'answer');
  assert.equal(answer.markdown, '### Found\n\nin `a.ts`');
  assert.equal(answer.done, true);
  assert.equal(s.conv.busy, false);
  assert.deepEqual(s.busy, [true, false]);
  for (const e of s.posted) assert.ok(EntrySchema.safeParse(e).success, 'every posted entry fits the contract');
});

test('answer text is read from content, message, result or text; a following COMPLETE ends the turn without repeating it', () => {
  for (const field of ['content', 'message', 'result', 'text']) {
    const s = setup();
    s.conv.send('q');
    s.server({ type: 'AGENT_RESPONSE', data: { [field]: 'the answer' } });
    assert.equal(s.conv.busy, true);
    s.server({ type: 'COMPLETE', data: { result: 'the answer' } });
    assert.equal(s.conv.busy, false);
    const answers = s.transcript.entries.filter((e) => e.kind === 'answer');
    assert.deepEqual(answers.map((a) => a.kind === 'answer' && [a.markdown, a.done]), [['the answer', true]], field);
  }
});

test('v1 COMPLETE carries the answer; a cumulative AGENT_RESPONSE stream is not doubled', () => {
  const v1 = setup({ protocol: 'v1' });
  v1.conv.send('q');
  v1.server({ type: 'COMPLETE', data: { result: '# Result', process: 'p' } });
  assert.ok(v1.transcript.entries.at(-1)?.kind === 'answer');
  const v2 = setup();
  v2.conv.send('q');
  v2.server({ type: 'AGENT_RESPONSE', data: { content: 'Hello' } });
  v2.server({ type: 'AGENT_RESPONSE', data: { content: 'Hello world', final: true } });
  const a = v2.transcript.entries.at(-1);
  assert.ok(a?.kind === 'answer' && a.markdown === 'Hello world' && a.done);
});

test('ERROR is shown with its explanation and ends the turn; ERROR outside a turn is shown too', () => {
  const s = setup();
  s.conv.send('q');
  s.server({ type: 'ERROR', data: { code: 'ANALYSIS_TIMEOUT', message: 'too slow' } });
  const e = s.transcript.entries.at(-1);
  assert.ok(e?.kind === 'error' && e.code === 'ANALYSIS_TIMEOUT' && e.explanation === 'explained ANALYSIS_TIMEOUT' && e.message === 'too slow');
  assert.equal(s.conv.busy, false);
  s.server({ type: 'ERROR', data: { message: 'no code' } });
  const u = s.transcript.entries.at(-1);
  assert.ok(u?.kind === 'error' && u.code === 'UNKNOWN');
});

test('Stop gives up locally with a notice; late replies are dropped; the expected REQUEST_OVERRIDDEN does not end the next turn', () => {
  const s = setup();
  s.conv.send('first');
  s.conv.stop();
  assert.equal(s.conv.busy, false);
  assert.ok(s.transcript.entries.at(-1)?.kind === 'notice');
  s.server({ type: 'THINKING', data: { thinking: 'late' } });
  s.server({ type: 'AGENT_RESPONSE', data: { content: 'late', done: false } });
  assert.deepEqual(s.kinds(), ['user', 'notice']);
  s.conv.send('second');
  s.server({ type: 'ERROR', data: { code: 'REQUEST_OVERRIDDEN', message: 'replaced' } });
  assert.equal(s.conv.busy, true, 'the new turn goes on');
  s.server({ type: 'AGENT_RESPONSE', data: { content: 'ok', done: true } });
  assert.equal(s.conv.busy, false);
  assert.equal(s.kinds().filter((k) => k === 'error').length, 0);
});

test('a stopped request that finishes after all is not mistaken for the next one being overridden', () => {
  const s = setup();
  s.conv.send('first');
  s.conv.stop();
  s.server({ type: 'AGENT_RESPONSE', data: { content: 'late', done: true } });
  s.conv.send('second');
  s.server({ type: 'ERROR', data: { code: 'REQUEST_OVERRIDDEN', message: 'replaced by another window' } });
  assert.equal(s.conv.busy, false, 'a real override ends the turn');
  assert.ok(s.transcript.entries.at(-1)?.kind === 'error');
});

test('the local timeout and a dropped link end the turn with a notice', async () => {
  const s = setup({ timeoutMs: 20 });
  s.conv.send('q');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(s.conv.busy, false);
  const n = s.transcript.entries.at(-1);
  assert.ok(n?.kind === 'notice' && n.text === 'TIMED_OUT');
  const d = setup();
  d.conv.send('q');
  d.conv.onConnectionState('reconnecting');
  const m = d.transcript.entries.at(-1);
  assert.ok(m?.kind === 'notice' && m.text === 'CONNECTION_LOST');
  assert.equal(d.conv.busy, false);
});

test('the transcript is stored per session, survives a reload, is bounded, and switching sessions keeps the one left', async () => {
  const s = setup();
  s.conv.send('remember me');
  await s.transcript.flush();
  const again = new Transcript(s.store, 'sess-1', 0);
  assert.deepEqual(again.entries.map((e) => e.kind === 'user' && e.text), ['remember me']);
  for (let i = 0; i < MAX_ENTRIES + 50; i++) again.upsert({ kind: 'notice', id: `n${i}`, at: i, text: 'x'.repeat(100), tone: 'info' });
  await again.flush();
  assert.equal((s.store.get<unknown[]>(transcriptKey('sess-1')) ?? []).length, MAX_ENTRIES);
  s.store.map.set(transcriptKey('sess-x'), [{ kind: 'bogus' }, { kind: 'user', id: 'u', at: 1, text: 'ok' }]);
  assert.equal(Transcript.load(s.store, 'sess-x').length, 1, 'entries outside the contract are dropped');
  await again.switchTo('sess-2');
  assert.equal((s.store.get<unknown[]>(transcriptKey('sess-1')) ?? []).length, MAX_ENTRIES, 'the one left is kept (History decides)');
  assert.equal(again.entries.length, 0);
  again.upsert({ kind: 'user', id: 'u2', at: 1, text: 'second' });
  await again.switchTo('sess-1');
  assert.equal(again.entries.length, MAX_ENTRIES, 'and is there again when switched back');
  assert.deepEqual(Transcript.load(s.store, 'sess-2').map((e) => e.kind === 'user' && e.text), ['second']);
  s.conv.dispose();
});

test('a write in the chat: a landed change is a compact diff with its review time; a rejection is the developer decision, not a failure', () => {
  const s = setup();
  s.conv.send('/edit a.ts');
  const row = (id: string) => {
    s.server({ type: 'TOOL_CALL', toolCallId: id, toolName: 'apply_change', params: { relativePath: 'a.ts' } });
    return { id, idKey: 'toolCallId' as const, toolName: 'apply_change', params: { relativePath: 'a.ts' } };
  };
  const landed = JSON.stringify({ path: 'a.ts', structuredPatch: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' keep', '-old', '+new'] }], saved: true });
  s.conv.onToolFinished(row('w1'), { type: 'TOOL_RESULT', data: { toolCallId: 'w1', success: true, result: landed, structured: JSON.parse(landed), executionTime: 40, approvalWaitMs: 23_000 } });
  const ok = s.transcript.get('tool-w1');
  assert.ok(ok?.kind === 'tool');
  assert.equal(ok.status, 'succeeded');
  assert.deepEqual([ok.ms, ok.waitMs, ok.output], [40, 23_000, undefined], 'the work and the review apart; no raw JSON');
  assert.deepEqual(ok.diff, { path: 'a.ts', added: 1, removed: 1, lines: ['@@ -1 +1 @@', ' keep', '-old', '+new'], more: 0 });
  assert.ok(EntrySchema.safeParse(ok).success, 'within the webview contract');
  s.conv.onToolFinished(row('w2'), { type: 'TOOL_RESULT', data: { toolCallId: 'w2', success: false, code: 'USER_REJECTED', error: 'The developer rejected the change to a.ts. Reason: keep it', executionTime: 5, approvalWaitMs: 4000 } });
  const no = s.transcript.get('tool-w2');
  assert.ok(no?.kind === 'tool' && no.status === 'rejected' && no.code === undefined && /keep it/.test(no.error ?? ''));
  s.conv.onToolFinished(row('w3'), { type: 'TOOL_RESULT', data: { toolCallId: 'w3', success: false, code: 'CANCELLED', error: 'withdrawn', executionTime: 5 } });
  assert.equal((s.transcript.get('tool-w3') as { status?: string }).status, 'cancelled');
  s.conv.onToolFinished(row('w4'), { type: 'TOOL_RESULT', data: { toolCallId: 'w4', success: false, code: 'CONFLICT', error: 'changed', executionTime: 5 } });
  const bad = s.transcript.get('tool-w4');
  assert.ok(bad?.kind === 'tool' && bad.status === 'failed' && bad.code === 'CONFLICT');
  s.conv.dispose();
});

test('Stop withdraws the changes the stopped turn asked for (the tool calls it started), and only then', () => {
  const s = setup();
  s.conv.send('/edit a.ts');
  s.server({ type: 'TOOL_CALL', toolCallId: 'r1', toolName: 'read_file', params: { relativePath: 'a.ts' } });
  s.server({ type: 'TOOL_CALL', toolCallId: 'w1', toolName: 'apply_change', params: { relativePath: 'a.ts' } });
  s.conv.stop();
  assert.deepEqual(s.withdrawn, [['r1', 'w1']]);
  // A turn that ends on its own withdraws nothing.
  s.conv.send('/grep x');
  s.server({ type: 'TOOL_CALL', toolCallId: 'g1', toolName: 'grep_file', params: { pattern: 'x' } });
  s.server({ type: 'COMPLETE', data: { result: 'done' } });
  assert.equal(s.withdrawn.length, 1);
  s.conv.dispose();
});

test('Stop that keeps the waiting changes withdraws nothing; the turn ends all the same', () => {
  const s = setup();
  s.conv.send('/edit a.ts');
  s.server({ type: 'TOOL_CALL', toolCallId: 'w1', toolName: 'apply_change', params: { relativePath: 'a.ts' } });
  assert.deepEqual(s.conv.turnCallIds(), ['w1']);
  s.conv.stop(false);
  assert.deepEqual(s.withdrawn, []);
  assert.equal(s.conv.busy, false);
  assert.deepEqual(s.conv.turnCallIds(), []);
  s.conv.dispose();
});
