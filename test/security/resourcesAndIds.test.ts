/**
 * The hostile-agent suite, part two: oversized frames and ids, an id reused for another call, a
 * token over plain ws://. A real dev backend on loopback and the headless host, as in production.
 * The bounds that only show under volume (thousands of calls, gigabytes of answers, a write id
 * remembered across them) are in resourceBounds.slow.test.ts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { BridgeConnection, isLoopbackHost } from '../../src/core/link/connection';
import { MAX_ID_CHARS, MAX_MESSAGE_BYTES, parseServerMessage } from '../../src/core/protocol/messages';
import { headlessLink, rawToolCall, tempFolder } from '../support/headlessLink';
import { silentLogger } from '../support/silentLogger';

test('an id reused for another tool or other params is refused (CONFLICT), never answered with the other call', async () => {
  const root = tempFolder('ab-reuse-');
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
  const l = await headlessLink(root);
  try {
    const send = async (id: string, tool: string, params: Record<string, unknown>) => {
      l.backend.sendRaw(l.backend.sessions()[0], rawToolCall(id, tool, params));
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
  const root = tempFolder('ab-big-');
  const l = await headlessLink(root);
  try {
    const session = l.backend.sessions()[0];
    // A frame over 10 MB that carries an id in its head.
    l.backend.sendRaw(session, `{"type":"TOOL_CALL","toolCallId":"huge-1","toolName":"read_file","params":{"relativePath":"${'a'.repeat(MAX_MESSAGE_BYTES + 10)}"}}`);
    const big = await l.backend.waitForMessage((e) => (e.message?.data as { toolCallId?: string } | undefined)?.toolCallId === 'huge-1', 10_000);
    assert.equal((big.message?.data as { code?: string }).code, 'BAD_REQUEST');
    // A 9 MB id: refused, and the answer is the only place it appears.
    const longId = 'i'.repeat(9 * 1024 * 1024);
    l.backend.sendRaw(session, rawToolCall(longId, 'read_file', { relativePath: 'x' }));
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

test('an edit of a 12 MB file answers without echoing the file, saying what it left out', async () => {
  const root = tempFolder('ab-bigedit-');
  const l = await headlessLink(root);
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

