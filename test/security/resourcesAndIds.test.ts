/**
 * The hostile-agent suite, part two: taking the host down, and making a write happen twice.
 * A real dev backend on loopback and the headless host, as in production.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { BridgeConnection, isLoopbackHost } from '../../src/core/link/connection';
import { Dispatcher, MAX_FINGERPRINTS, REPLAY_KEEP_BYTES } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import { MAX_ID_CHARS, MAX_MESSAGE_BYTES, parseServerMessage } from '../../src/core/protocol/messages';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { journalDirFor, WriteJournal } from '../../src/core/link/writeJournal';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { startDevBackend, type DevBackend } from '../../src/devBackend/server';
import { startHeadlessHost, type HeadlessHost } from '../../src/node/headless';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';

function tmp(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function link(workspace: string, o: { sessionId?: string; stateDir?: string } = {}): Promise<{ backend: DevBackend; host: HeadlessHost; close(): Promise<void> }> {
  const backend = await startDevBackend({ port: 0 });
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace, log: silentLogger, autoApprove: true, stateDir: o.stateDir ?? false, sessionId: o.sessionId });
  await backend.waitForSession(undefined, 5000);
  return {
    backend,
    host,
    async close() {
      host.stop();
      await backend.close();
    },
  };
}

const rawCall = (id: string, toolName: string, params: Record<string, unknown>) => JSON.stringify({ type: 'TOOL_CALL', toolCallId: id, toolName, params });

test('the replay cache is bounded in bytes: 300 reads of a 4 MB file keep none of them', async () => {
  const root = tmp('ab-replay-');
  fs.writeFileSync(path.join(root, 'big.txt'), `${'x'.repeat(1999)}\n`.repeat(2000)); // 4 MB, 2000 lines
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger });
  for (let i = 0; i < 300; i++) {
    const r = await d.dispatch({ id: `r${i}`, idKey: 'toolCallId', toolName: 'read_file', params: { relativePath: 'big.txt' } });
    assert.equal(r.data.success, true);
  }
  assert.equal(d.replayBytes, 0, 'no answer over REPLAY_KEEP_BYTES is kept');
  // Small answers are kept, and a repeat is still answered from the cache.
  fs.writeFileSync(path.join(root, 'small.txt'), 'one line\n');
  const first = await d.dispatch({ id: 's1', idKey: 'toolCallId', toolName: 'read_file', params: { relativePath: 'small.txt' } });
  assert.ok(d.replayBytes > 0 && d.replayBytes < REPLAY_KEEP_BYTES);
  assert.equal(await d.dispatch({ id: 's1', idKey: 'toolCallId', toolName: 'read_file', params: { relativePath: 'small.txt' } }), first);
});

test('a write id is never applied twice: after 1,100 other calls, and after a restart with the same session', async () => {
  const root = tmp('ab-idem-');
  const stateDir = tmp('ab-idem-state-');
  fs.writeFileSync(path.join(root, 'list.txt'), 'start\n');
  const insert = { relativePath: 'list.txt', searchContent: 'start', replaceContent: 'start\ninserted' };
  let l = await link(root, { sessionId: 'session-A', stateDir });
  const once = await l.backend.callTool('apply_change', insert, { timeoutMs: 10_000 });
  assert.equal((once.data as { success: boolean }).success, true);
  for (let i = 0; i < 1100; i++) await l.backend.callTool('read_file', { relativePath: 'list.txt' });
  const id = (once.data as { toolCallId: string }).toolCallId;
  l.backend.sendRaw(l.backend.sessions()[0], rawCall(id, 'apply_change', insert));
  const replay = await l.backend.waitForMessage((e) => e.message?.type === 'TOOL_RESULT' && (e.message.data as { toolCallId?: string }).toolCallId === id, 5000);
  assert.equal((replay.message?.data as { success: boolean }).success, true);
  assert.equal(fs.readFileSync(path.join(root, 'list.txt'), 'utf8'), 'start\ninserted\n', 'applied once');
  await l.close();

  // A new host process for the same project and session: the journal on disk remembers.
  l = await link(root, { sessionId: 'session-A', stateDir });
  l.backend.sendRaw(l.backend.sessions()[0], rawCall(id, 'apply_change', insert));
  const afterRestart = await l.backend.waitForMessage((e) => e.message?.type === 'TOOL_RESULT' && (e.message.data as { toolCallId?: string }).toolCallId === id, 5000);
  assert.equal((afterRestart.message?.data as { success: boolean }).success, true);
  assert.equal(fs.readFileSync(path.join(root, 'list.txt'), 'utf8'), 'start\ninserted\n', 'not applied again after the restart');
  await l.close();
});

test('an id reused for another tool or other params is refused (CONFLICT), never answered with the other call', async () => {
  const root = tmp('ab-reuse-');
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
  const l = await link(root);
  try {
    const send = async (id: string, tool: string, params: Record<string, unknown>) => {
      l.backend.sendRaw(l.backend.sessions()[0], rawCall(id, tool, params));
      const m = await l.backend.waitForMessage((e) => e.message?.type === 'TOOL_RESULT' && (e.message.data as { toolCallId?: string }).toolCallId === id && !seen.has(e.text), 5000);
      seen.add(m.text);
      return m.message?.data as { success: boolean; code?: string };
    };
    const seen = new Set<string>();
    assert.equal((await send('x1', 'read_file', { relativePath: 'a.txt' })).success, true);
    const write = await send('x1', 'apply_change', { relativePath: 'a.txt', searchContent: 'alpha', replaceContent: 'beta' });
    assert.equal(write.code, 'CONFLICT', 'a read id reused by a write is not a false success');
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'alpha\n');
    assert.equal((await send('w1', 'apply_change', { relativePath: 'a.txt', searchContent: 'alpha', replaceContent: 'beta' })).success, true);
    const other = await send('w1', 'apply_change', { relativePath: 'a.txt', searchContent: 'beta', replaceContent: 'gamma' });
    assert.equal(other.code, 'CONFLICT', 'a second, different write with the same id gets no patch of the first');
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'beta\n');
  } finally {
    await l.close();
  }
});

test('oversized frames and ids are answered, not kept: the backend never waits out its timeout', async () => {
  const root = tmp('ab-big-');
  const l = await link(root);
  try {
    const session = l.backend.sessions()[0];
    // A frame over 10 MB that carries an id in its head.
    l.backend.sendRaw(session, `{"type":"TOOL_CALL","toolCallId":"huge-1","toolName":"read_file","params":{"relativePath":"${'a'.repeat(MAX_MESSAGE_BYTES + 10)}"}}`);
    const big = await l.backend.waitForMessage((e) => (e.message?.data as { toolCallId?: string } | undefined)?.toolCallId === 'huge-1', 10_000);
    assert.equal((big.message?.data as { code?: string }).code, 'BAD_REQUEST');
    // A 9 MB id: refused, and the answer is the only place it appears.
    const longId = 'i'.repeat(9 * 1024 * 1024);
    l.backend.sendRaw(session, rawCall(longId, 'read_file', { relativePath: 'x' }));
    const idAnswer = await l.backend.waitForMessage((e) => e.bytes > 9 * 1024 * 1024, 10_000);
    assert.equal((idAnswer.message?.data as { code?: string }).code, 'BAD_REQUEST');
    assert.match(String((idAnswer.message?.data as { error?: string }).error), new RegExp(`at most ${MAX_ID_CHARS}`));
    // The link is still up.
    const ok = await l.backend.callTool('grep_file', { pattern: 'nothing' });
    assert.equal((ok.data as { success: boolean }).success, true);
  } finally {
    await l.close();
  }
});

test('root fields win: a root callId beats data.toolCallId', () => {
  const r = parseServerMessage(JSON.stringify({ type: 'TOOL_CALL', callId: 'root-id', toolName: 'read_file', params: {}, data: { toolCallId: 'inner-id' } }));
  assert.equal(r.ok, true);
  assert.ok(r.ok === true && r.message.type === 'TOOL_CALL');
  assert.equal(r.message.call.id, 'root-id');
  assert.equal(r.message.call.idKey, 'callId');
});

test('a token never goes over plain ws:// to another machine; loopback is fine', async () => {
  for (const host of ['localhost', '127.0.0.1', '127.4.5.6', '[::1]']) assert.ok(isLoopbackHost(new URL(`ws://${host}:1/`).hostname), host);
  for (const host of ['example.com', '10.0.0.1', '127.0.0.1.nip.io', 'localhost.evil.example', '[::2]', 'app.localhost']) assert.ok(!isLoopbackHost(new URL(`ws://${host}:1/`).hostname), host);
  // TEST-NET-3 (RFC 5737): never routed; the connection must refuse before opening any socket.
  const c = new BridgeConnection({
    serverUrl: 'ws://203.0.113.7:9/ws/agent/chat',
    protocol: 'auto',
    sessionId: 's',
    projectKey: 'k',
    projectPath: '/p',
    log: silentLogger,
    headers: () => Promise.resolve({ Authorization: 'Bearer t0ken' }),
  });
  c.connect();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(c.state, 'disconnected');
  assert.match(c.lastError ?? '', /unencrypted.*wss:\/\//);
  c.disconnect();
});

test('a backend that stops reading makes the host stop reading calls: memory stays bounded', async () => {
  const root = tmp('ab-stall-');
  fs.writeFileSync(path.join(root, 'big.txt'), `${'y'.repeat(999)}\n`.repeat(1900)); // ~1.9 MB answers
  const l = await link(root);
  try {
    const session = l.backend.sessions()[0];
    const rss0 = process.memoryUsage().rss;
    l.backend.pauseReading(session);
    // 1,000 calls of ~1.9 MB answers each: without backpressure ~2 GB would pile up in the host.
    for (let i = 0; i < 1000; i++) l.backend.sendRaw(session, rawCall(`b${i}`, 'read_file', { relativePath: 'big.txt' }));
    await new Promise((r) => setTimeout(r, 3000));
    assert.ok(l.host.connection.heldBack, 'the host paused reading');
    const grown = process.memoryUsage().rss - rss0;
    assert.ok(grown < 600 * 1024 * 1024, `RSS grew ${Math.round(grown / 1048576)} MB`);
    let answered = 0;
    l.backend.onMessage((e) => {
      if (e.message?.type === 'TOOL_RESULT') answered++;
    });
    l.backend.resumeReading(session);
    const deadline = Date.now() + 60_000;
    while (answered < 1000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(answered, 1000, 'every call is answered once the backend reads again');
  } finally {
    await l.close();
  }
});

test('an edit of a 12 MB file answers without echoing the file, saying what it left out', async () => {
  const root = tmp('ab-bigedit-');
  const l = await link(root);
  try {
    // 12 MB on disk: echoing the whole originalFile (docs/protocol.md §5.9) would pass the message limit.
    fs.writeFileSync(path.join(root, 'big.txt'), `first line\n${`${'z'.repeat(99)}\n`.repeat(120_000)}`);
    const r = await l.backend.callTool('Edit', { file_path: 'big.txt', old_string: 'first line', new_string: 'FIRST LINE' }, { timeoutMs: 60_000 });
    const data = r.data as { success: boolean; result: string };
    assert.equal(data.success, true);
    assert.ok(data.result.length < 64 * 1024, `answer of ${data.result.length} characters`);
    const parsed = JSON.parse(data.result) as Record<string, unknown>;
    assert.equal(parsed.truncated, undefined, 'bounded before it was built, not cut');
    assert.equal(parsed.originalFile, undefined);
    assert.deepEqual(parsed.omitted, ['originalFile']);
    assert.match(String(parsed.note), /originalFile/);
    assert.deepEqual(parsed.structuredPatch, [{ oldStart: 1, oldLines: 4, newStart: 1, newLines: 4, lines: ['-first line', '+FIRST LINE', ` ${'z'.repeat(99)}`, ` ${'z'.repeat(99)}`, ` ${'z'.repeat(99)}`] }]);
    assert.equal(parsed.oldString, 'first line');
    assert.match(fs.readFileSync(path.join(root, 'big.txt'), 'utf8'), /^FIRST LINE\n/);
  } finally {
    await l.close();
  }
});

test('a whole-file rewrite is diffed in bounded time, and its patch is still exact', async () => {
  const { structuredPatchOf } = await import('../../src/core/edit/patch');
  const oldText = Array.from({ length: 30_000 }, (_, i) => `old line ${i}`).join('\n') + '\n';
  const newText = Array.from({ length: 30_000 }, (_, i) => `new line ${i}`).join('\n') + '\n';
  const started = Date.now();
  const hunks = structuredPatchOf(`keep\n${oldText}keep too\n`, `keep\n${newText}keep too\n`);
  // A bound against a denial of service (unbounded, this diff takes minutes), not a speed target.
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  // Applying the hunks to the old lines gives the new lines.
  const a = `keep\n${oldText}keep too\n`.split('\n').slice(0, -1);
  const out: string[] = [];
  let at = 0;
  for (const h of hunks) {
    out.push(...a.slice(at, h.oldStart - 1));
    for (const l of h.lines) if (l[0] !== '-') out.push(l.slice(1));
    at = h.oldStart - 1 + h.oldLines;
  }
  out.push(...a.slice(at));
  assert.equal(`${out.join('\n')}\n`, `keep\n${newText}keep too\n`);
});

test('an id whose fingerprint was forgotten but whose answer is still kept is refused for another call', async () => {
  const root = tmp('ab-evict-');
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });
  const first = await d.dispatch({ id: 'X', idKey: 'toolCallId', toolName: 'read_file', params: { relativePath: '/' } });
  assert.equal(first.data.success, false);
  for (let i = 0; i < MAX_FINGERPRINTS + 1; i++) await d.dispatch({ id: `f${i}`, idKey: 'toolCallId', toolName: 'read_file', params: { relativePath: '/' } });
  const reused = await d.dispatch({ id: 'X', idKey: 'toolCallId', toolName: 'Replace', params: { file_path: 'a.txt', content: 'two\n' } });
  assert.equal(reused.data.code, 'CONFLICT', String(reused.data.error));
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'one\n');
});

test('the write journal stays small: 2,000 no-op writes of a 100 KB file', async () => {
  const root = tmp('ab-journal-');
  const stateDir = tmp('ab-journal-state-');
  const content = `${'j'.repeat(99)}\n`.repeat(1000);
  fs.writeFileSync(path.join(root, 'a.txt'), content);
  const journal = WriteJournal.forSession(journalDirFor(stateDir, root), 's', silentLogger);
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate(), journal });
  for (let i = 0; i < 2000; i++) {
    const r = await d.dispatch({ id: `j${i}`, idKey: 'toolCallId', toolName: 'Replace', params: { file_path: 'a.txt', content } });
    assert.equal(r.data.success, true);
  }
  const dir = journalDirFor(stateDir, root);
  const bytes = fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
  assert.ok(bytes < 2 * 1024 * 1024, `journal file is ${bytes} bytes`);
  // And a resent id still gets its first outcome, not a second run.
  const again = await d.dispatch({ id: 'j0', idKey: 'toolCallId', toolName: 'Replace', params: { file_path: 'a.txt', content } });
  assert.equal(again.data.success, true);
});
