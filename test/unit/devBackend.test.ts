/**
 * The dev backend against real `ws` clients playing the IDE: a real server on 127.0.0.1, port 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import WebSocket from 'ws';
import { MAX_MESSAGE_BYTES } from '../../src/core/protocol/messages';
import { startDevBackend, V1_PATH, V2_PATH, type DevBackend, type DevBackendOptions } from '../../src/devBackend/server';

type Json = Record<string, unknown>;
const EXECUTE = '/api/claude-code/tools/execute';

/** A fake IDE: a ws client that records every message so tests can wait for the next one of a type. */
interface FakeIde {
  readonly ws: WebSocket;
  readonly connected: Json;
  next(type: string, timeoutMs?: number): Promise<Json>;
  send(message: unknown): void;
  closed: Promise<{ code: number; reason: string }>;
}

function connectIde(url: string, headers?: Record<string, string>): Promise<FakeIde> {
  const ws = new WebSocket(url, { headers });
  const inbox: Json[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => {
    // Keep non-JSON frames too (sendRaw tests), under a type no real message has.
    let message: Json;
    try {
      message = JSON.parse(String(data)) as Json;
    } catch {
      message = { type: '(not json)', text: String(data) };
    }
    inbox.push(message);
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const next = (type: string, timeoutMs = 3_000): Promise<Json> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} within ${timeoutMs} ms; got ${JSON.stringify(inbox)}`)), timeoutMs);
      const look = (): void => {
        const i = inbox.findIndex((m) => m.type === type);
        if (i < 0) return void waiters.push(look);
        clearTimeout(timer);
        resolve(inbox.splice(i, 1)[0]);
      };
      look();
    });
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('open', () => {
      next('CONNECTED').then(
        (connected) => resolve({ ws, connected, next, send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)), closed }),
        reject,
      );
    });
  });
}

/** The HTTP status a refused upgrade answers with. */
function upgradeStatus(url: string, headers?: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => reject(new Error('upgrade was accepted')));
    ws.once('error', () => undefined);
  });
}

async function withBackend(opts: DevBackendOptions, fn: (b: DevBackend, logs: string[]) => Promise<void>): Promise<void> {
  const logs: string[] = [];
  const backend = await startDevBackend({ port: 0, host: '127.0.0.1', ...opts, log: (l) => logs.push(l) });
  try {
    await fn(backend, logs);
  } finally {
    await backend.close();
  }
}

const v2 = (b: DevBackend, sessionId = 's-1', projectKey = 'autoloop'): string => b.wsUrl(V2_PATH, { sessionId, projectKey });

async function post(b: DevBackend, body: unknown, path = EXECUTE, token?: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(b.url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

void test('v2 connection gets CONNECTED with a server-generated webSocketSessionId', async () => {
  await withBackend({}, async (b) => {
    const before = Date.now();
    const ide = await connectIde(v2(b, 'chat-42', 'autoloop'));
    const data = ide.connected.data as Json;
    assert.equal(typeof data.message, 'string');
    assert.ok(typeof data.serverTime === 'number' && data.serverTime >= before && data.serverTime <= Date.now());
    assert.match(String(data.webSocketSessionId), /^[0-9a-f-]{36}$/);
    assert.equal(data.requestId, undefined);
    const [s] = b.sessions();
    assert.deepEqual(
      { ...s, connectedAt: undefined },
      { webSocketSessionId: data.webSocketSessionId, sessionId: 'chat-42', projectKey: 'autoloop', protocol: 'v2', connectedAt: undefined, authenticated: true },
    );
    ide.ws.close();
  });
});

void test('v1 connection gets CONNECTED with a requestId; a client requestId is kept', async () => {
  await withBackend({}, async (b) => {
    const q = { sessionId: 's', projectKey: 'k', projectPath: '/tmp/proj', mode: 'claude-code' };
    const fresh = await connectIde(b.wsUrl(V1_PATH, q));
    assert.match(String((fresh.connected.data as Json).requestId), /^req-/);
    const resumed = await connectIde(b.wsUrl(V1_PATH, { ...q, requestId: 'req-123' }));
    assert.equal((resumed.connected.data as Json).requestId, 'req-123');
    const s = b.sessions().find((x) => x.webSocketSessionId === (fresh.connected.data as Json).webSocketSessionId);
    assert.equal(s?.protocol, 'v1');
    assert.equal(s?.projectPath, '/tmp/proj');
    assert.equal(s?.mode, 'claude-code');
  });
});

void test('upgrade is refused with 400 for missing query params and 404 for unknown paths', async () => {
  await withBackend({}, async (b) => {
    assert.equal(await upgradeStatus(b.wsUrl(V2_PATH, { sessionId: 's' })), 400);
    assert.equal(await upgradeStatus(b.wsUrl(V2_PATH, { projectKey: 'k' })), 400);
    assert.equal(await upgradeStatus(b.wsUrl(V1_PATH, { sessionId: 's', projectKey: 'k' })), 400);
    assert.equal(await upgradeStatus(b.wsUrl('/ws/other', { sessionId: 's', projectKey: 'k' })), 404);
    assert.equal(b.sessions().length, 0);
  });
});

void test('PING is answered with PONG carrying the same timestamp', async () => {
  await withBackend({}, async (b) => {
    const ide = await connectIde(v2(b));
    ide.send({ type: 'PING', data: { timestamp: 1704438400123 } });
    assert.deepEqual(await ide.next('PONG'), { type: 'PONG', data: { timestamp: 1704438400123 } });
  });
});

void test('HTTP execute → root-shape TOOL_CALL → data TOOL_RESULT → HTTP answer', async () => {
  await withBackend({}, async (b) => {
    const ide = await connectIde(v2(b, 'sess-1', 'autoloop'));
    const wsid = (ide.connected.data as Json).webSocketSessionId as string;
    const pending = post(b, {
      tool: 'grep_file',
      params: { pattern: 'TODO', context_lines: 2 },
      projectKey: 'autoloop',
      sessionId: 'sess-1',
      webSocketSessionId: wsid,
    });
    const call = await ide.next('TOOL_CALL');
    assert.match(String(call.toolCallId), new RegExp(`^grep_file-[0-9a-f]{8}-\\d{13}$`));
    assert.deepEqual(
      { ...call, toolCallId: undefined },
      {
        type: 'TOOL_CALL',
        toolCallId: undefined,
        toolName: 'grep_file',
        params: { pattern: 'TODO', context_lines: 2, webSocketSessionId: wsid },
        webSocketSessionId: wsid,
      },
    );
    ide.send({
      type: 'TOOL_RESULT',
      data: { toolCallId: call.toolCallId, success: true, result: '## 3 matches', executionTime: 150, structured: { count: 3 } },
    });
    const res = await pending;
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      success: true,
      result: '## 3 matches',
      error: null,
      code: null,
      executionTime: 150,
      structured: { count: 3 },
      toolCallId: call.toolCallId,
    });

    // A failure travels the same way.
    const failing = post(b, { tool: 'read_file', params: { relativePath: 'nope.txt' } });
    const call2 = await ide.next('TOOL_CALL');
    ide.send({
      type: 'TOOL_RESULT',
      data: { toolCallId: call2.toolCallId, success: false, error: 'File not found: nope.txt', code: 'NOT_FOUND', executionTime: 2 },
    });
    const res2 = await failing;
    assert.equal(res2.status, 200);
    assert.equal(res2.body.success, false);
    assert.equal(res2.body.error, 'File not found: nope.txt');
    assert.equal(res2.body.code, 'NOT_FOUND');
  });
});

void test('HTTP execute picks the IDE by webSocketSessionId, sessionId, projectKey; refuses ambiguity', async () => {
  await withBackend({}, async (b) => {
    const a = await connectIde(v2(b, 'sa', 'pa'));
    const c = await connectIde(v2(b, 'sc', 'pc'));
    const answer = (ide: FakeIde, text: string): Promise<void> =>
      ide.next('TOOL_CALL').then((call) =>
        ide.send({ type: 'TOOL_RESULT', data: { toolCallId: call.toolCallId, success: true, result: text, executionTime: 1 } }),
      );
    const byWsid = post(b, { tool: 't', webSocketSessionId: (c.connected.data as Json).webSocketSessionId });
    await answer(c, 'c');
    assert.equal((await byWsid).body.result, 'c');
    const bySession = post(b, { tool: 't', sessionId: 'sa', projectKey: 'pc' });
    await answer(a, 'a');
    assert.equal((await bySession).body.result, 'a');
    const byProject = post(b, { tool: 't', sessionId: 'unknown', projectKey: 'pc' });
    await answer(c, 'c2');
    assert.equal((await byProject).body.result, 'c2');

    const ambiguous = await post(b, { tool: 't' });
    assert.equal(ambiguous.status, 409);
    const wrongWsid = await post(b, { tool: 't', webSocketSessionId: 'no-such-id' });
    assert.equal(wrongWsid.status, 404);
    assert.match(String(wrongWsid.body.error), /no-such-id/);
    const wrongProject = await post(b, { tool: 't', projectKey: 'other' });
    assert.equal(wrongProject.status, 404);
  });
});

void test('callTool in the data shape uses callId and resolves with the raw TOOL_RESULT', async () => {
  await withBackend({}, async (b) => {
    const ide = await connectIde(b.wsUrl(V1_PATH, { sessionId: 's', projectKey: 'k', projectPath: '/p' }));
    const result = b.callTool('read_class', { className: 'FileFilter', mode: 'structure' }, { shape: 'data' });
    const call = await ide.next('TOOL_CALL');
    assert.equal(call.toolCallId, undefined);
    const data = call.data as Json;
    assert.match(String(data.callId), /^call-[0-9a-f]{8}$/);
    assert.deepEqual(data, { callId: data.callId, toolName: 'read_class', params: { className: 'FileFilter', mode: 'structure' }, projectPath: '/p' });
    const reply = { type: 'TOOL_RESULT', data: { toolCallId: data.callId, callId: data.callId, success: true, result: '## FileFilter', executionTime: 7 } };
    ide.send(reply);
    assert.deepEqual(await result, reply);
  });
});

void test('no IDE connected → 404 with a clear error', async () => {
  await withBackend({}, async (b) => {
    const res = await post(b, { tool: 'read_file', params: { relativePath: 'a' } });
    assert.equal(res.status, 404);
    assert.equal(res.body.success, false);
    assert.match(String(res.body.error), /^No IDE connected/);
    await assert.rejects(b.callTool('read_file', {}), /No IDE connected/);
  });
});

void test('an unanswered call → 504 after toolTimeoutMs; a late result is logged, saying what became of the call', async () => {
  await withBackend({ toolTimeoutMs: 150 }, async (b, logs) => {
    const ide = await connectIde(v2(b));
    const started = Date.now();
    const pending = post(b, { tool: 'read_file', params: {} });
    const call = await ide.next('TOOL_CALL');
    const res = await pending;
    const elapsed = Date.now() - started;
    assert.equal(res.status, 504);
    assert.equal(res.body.code, 'TIMEOUT');
    assert.equal(res.body.toolCallId, call.toolCallId);
    assert.ok(elapsed >= 140 && elapsed < 2_000, `took ${elapsed} ms`);

    ide.send({ type: 'TOOL_RESULT', data: { toolCallId: call.toolCallId, success: true, result: 'late', executionTime: 1, note: 'the change was still written' } });
    ide.send({ type: 'TOOL_RESULT', data: { toolCallId: 'never-sent', success: true, result: 'stray', executionTime: 1 } });
    ide.send({ type: 'PING', data: { timestamp: 1 } });
    await ide.next('PONG');
    const late = logs.find((l) => l.includes(`${String(call.toolCallId)} arrived after its caller was answered TIMEOUT`));
    assert.match(String(late), /ok in 1 ms.*\(the change was still written\)/);
    assert.ok(logs.some((l) => l.includes('No pending tool call for toolCallId=never-sent')), 'an id never sent is still just ignored');
  });
});

void test('an IDE that disconnects mid-call → 502', async () => {
  await withBackend({}, async (b) => {
    const ide = await connectIde(v2(b));
    const pending = post(b, { tool: 'read_file' });
    await ide.next('TOOL_CALL');
    ide.ws.close();
    const res = await pending;
    assert.equal(res.status, 502);
    assert.match(String(res.body.error), /disconnected/);
  });
});

void test('malformed frames get ERROR INVALID_REQUEST; observers see every frame', async () => {
  await withBackend({}, async (b) => {
    const ide = await connectIde(v2(b));
    const seen: string[] = [];
    b.onMessage((e) => seen.push(e.text));
    ide.send('{not json');
    const err = await ide.next('ERROR');
    assert.equal((err.data as Json).code, 'INVALID_REQUEST');
    ide.send('[1,2]');
    assert.equal(((await ide.next('ERROR')).data as Json).code, 'INVALID_REQUEST');
    ide.send({ type: 'NO_SUCH_TYPE' });
    assert.match(String(((await ide.next('ERROR')).data as Json).message), /NO_SUCH_TYPE/);
    ide.send({ type: 'TOOL_RESULT', toolCallId: 'x', success: true });
    assert.match(String(((await ide.next('ERROR')).data as Json).message), /inside "data"/);
    assert.deepEqual(seen, ['{not json', '[1,2]', '{"type":"NO_SUCH_TYPE"}', '{"type":"TOOL_RESULT","toolCallId":"x","success":true}']);
  });
});

void test('a message over 10 MB gets ERROR MESSAGE_TOO_LARGE and the link stays up', async () => {
  await withBackend({}, async (b) => {
    const ide = await connectIde(v2(b));
    ide.send('x'.repeat(MAX_MESSAGE_BYTES + 1));
    const err = await ide.next('ERROR', 10_000);
    assert.equal((err.data as Json).code, 'MESSAGE_TOO_LARGE');
    ide.send({ type: 'PING', data: { timestamp: 5 } });
    assert.equal(((await ide.next('PONG')).data as Json).timestamp, 5);
  });
});

void test('token: wrong CONNECT is refused and closed; right CONNECT or bearer header authenticates', async () => {
  await withBackend({ token: 's3cret' }, async (b) => {
    const wrong = await connectIde(v2(b, 'w'));
    assert.equal(b.sessions()[0].authenticated, false);
    wrong.send({ type: 'CONNECT', data: { token: 'nope' } });
    assert.equal(((await wrong.next('ERROR')).data as Json).code, 'UNAUTHORIZED');
    assert.equal((await wrong.closed).code, 1008);

    const silent = await connectIde(v2(b, 'silent'));
    assert.equal((await post(b, { tool: 'read_file' })).status, 401, 'the HTTP API needs the token too');
    assert.equal((await post(b, { tool: 'read_file' }, EXECUTE, 's3cret')).status, 404, 'an unauthenticated IDE gets no tool calls');
    silent.send({ type: 'AGENT_CHAT', data: { sessionId: 'silent', projectKey: 'autoloop', message: 'hi' } });
    assert.equal(((await silent.next('ERROR')).data as Json).code, 'UNAUTHORIZED');
    await silent.closed;

    const right = await connectIde(v2(b, 'r'));
    right.send({ type: 'CONNECT', data: { token: 's3cret' } });
    const session = await b.waitForSession((s) => s.sessionId === 'r' && s.authenticated);
    const result = b.callTool('read_file', { relativePath: 'a' }, { session });
    const call = await right.next('TOOL_CALL');
    right.send({ type: 'TOOL_RESULT', data: { toolCallId: call.toolCallId, success: true, result: 'ok', executionTime: 1 } });
    assert.equal(((await result).data as Json).result, 'ok');

    const header = await connectIde(v2(b, 'h'), { Authorization: 'Bearer s3cret' });
    assert.equal(b.sessions().find((s) => s.sessionId === 'h')?.authenticated, true);
    header.ws.close();
    assert.equal(await upgradeStatus(v2(b, 'bad'), { Authorization: 'Bearer wrong' }), 401);
  });
});

void test('chat gets the placeholder answer in each protocol; the wrong chat type is refused', async () => {
  await withBackend({}, async (b) => {
    const ide2 = await connectIde(v2(b, 'sess', 'autoloop'));
    ide2.send({ type: 'AGENT_CHAT', data: { sessionId: 'sess', projectKey: 'autoloop', message: 'hello' } });
    const resp = (await ide2.next('AGENT_RESPONSE')).data as Json;
    assert.equal(resp.done, true);
    assert.equal(resp.sessionId, 'sess');
    assert.match(String(resp.content), /no agent yet[\s\S]*hello/);
    ide2.send({ type: 'ANALYZE', data: { requestId: null, message: 'x', projectKey: 'k', projectPath: '/p' } });
    assert.match(String(((await ide2.next('ERROR')).data as Json).message), /send AGENT_CHAT/);

    const ide1 = await connectIde(b.wsUrl(V1_PATH, { sessionId: 's', projectKey: 'k', projectPath: '/p' }));
    const requestId = (ide1.connected.data as Json).requestId;
    ide1.send({ type: 'ANALYZE', data: { requestId: null, message: 'analyse', projectKey: 'k', projectPath: '/p' } });
    const complete = (await ide1.next('COMPLETE')).data as Json;
    assert.equal(complete.requestId, requestId);
    assert.match(String(complete.result), /analyse/);
  });
});

void test('HTTP: bad bodies, wrong methods, unknown routes, health and session listing', async () => {
  await withBackend({}, async (b) => {
    const missingTool = await post(b, { params: {} });
    assert.equal(missingTool.status, 400);
    assert.match(String(missingTool.body.error), /"tool"/);
    assert.equal((await post(b, '{oops')).status, 400);
    assert.equal((await post(b, { tool: 'x', params: [1] })).status, 400);
    const get = await fetch(b.url + EXECUTE);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    assert.equal((await fetch(`${b.url}/nope`)).status, 404);

    const ide = await connectIde(v2(b, 'list-me', 'pk'));
    const health = (await (await fetch(`${b.url}/health`)).json()) as Json;
    assert.equal(health.status, 'ok');
    assert.equal(health.sessions, 1);
    const listing = (await (await fetch(`${b.url}/api/ide/sessions`)).json()) as { sessions: Json[] };
    assert.equal(listing.sessions.length, 1);
    assert.equal(listing.sessions[0].webSocketSessionId, (ide.connected.data as Json).webSocketSessionId);
    assert.equal(listing.sessions[0].sessionId, 'list-me');
    assert.equal(listing.sessions[0].protocol, 'v2');
    assert.ok(!Number.isNaN(Date.parse(String(listing.sessions[0].connectedAt))));
  });
});

void test('sendRaw delivers text verbatim to the chosen IDE', async () => {
  await withBackend({}, async (b) => {
    const ide = await connectIde(v2(b));
    b.sendRaw(b.sessions()[0], '{"type":"TOOL_CALL","toolCallId":');
    assert.equal((await ide.next('(not json)')).text, '{"type":"TOOL_CALL","toolCallId":');
    assert.throws(() => b.sendRaw('no-such', 'x'), /No IDE session no-such/);
  });
});

void test('close() terminates clients, fails pending calls and frees the port', async () => {
  const backend = await startDevBackend({ port: 0 });
  const ide = await connectIde(v2(backend));
  const failed = assert.rejects(backend.callTool('read_file', {}), /disconnected/);
  await ide.next('TOOL_CALL');
  await backend.close();
  await failed;
  assert.equal((await ide.closed).code, 1006);
  // The same port can be bound again at once.
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(backend.port, '127.0.0.1', () => probe.close(() => resolve()));
  });
  await backend.close(); // idempotent
});

void test('two backends run side by side in one process', async () => {
  await withBackend({}, async (a) => {
    await withBackend({}, async (c) => {
      assert.notEqual(a.port, c.port);
      await connectIde(v2(a));
      assert.equal(a.sessions().length, 1);
      assert.equal(c.sessions().length, 0);
    });
  });
});
