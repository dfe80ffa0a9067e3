import assert from 'node:assert/strict';
import { Socket, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { WebSocketServer, type WebSocket } from 'ws';
import { backoffDelay, BridgeConnection, buildConnectUrl, type ConnectionState } from '../../src/core/link/connection';
import { silentLogger } from '../support/silentLogger';
import { waitUntil } from '../support/waitUntil';

interface Server {
  wss: WebSocketServer;
  port: number;
  urls: URL[];
  sockets: WebSocket[];
  received: Record<string, unknown>[];
  close(): Promise<void>;
}

async function startServer(port = 0, onMessage?: (ws: WebSocket, msg: Record<string, unknown>) => void): Promise<Server> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const s: Server = {
    wss,
    port: (wss.address() as AddressInfo).port,
    urls: [],
    sockets: [],
    received: [],
    close: () => new Promise<void>((r) => { for (const c of wss.clients) c.terminate(); wss.close(() => r()); }),
  };
  wss.on('connection', (ws, req) => {
    s.urls.push(new URL(req.url ?? '/', 'ws://x'));
    s.sockets.push(ws);
    ws.send(JSON.stringify({ type: 'CONNECTED', data: { message: 'hi', requestId: 'req-9', serverTime: Date.now() } }));
    ws.on('message', (d) => {
      const msg = JSON.parse(d.toString()) as Record<string, unknown>;
      s.received.push(msg);
      onMessage?.(ws, msg);
    });
  });
  return s;
}

const base = { sessionId: 's-1', projectKey: 'demo', projectPath: '/home/dev/demo', protocol: 'auto' as const };

test('v2 URL carries sessionId and projectKey; v1 adds projectPath and mode', () => {
  const v2 = buildConnectUrl({ ...base, serverUrl: 'ws://localhost:8080/ws/agent/chat' });
  assert.equal(v2.pathname, '/ws/agent/chat');
  assert.deepEqual([...v2.searchParams.keys()].sort(), ['projectKey', 'sessionId']);
  const v1 = buildConnectUrl({ ...base, serverUrl: 'ws://localhost:8080/ws/analyze' });
  assert.equal(v1.searchParams.get('projectPath'), '/home/dev/demo');
  assert.equal(v1.searchParams.get('mode'), 'claude-code');
  const forced = buildConnectUrl({ ...base, protocol: 'v1', serverUrl: 'ws://h:1/custom?x=1' });
  assert.equal(forced.searchParams.get('x'), '1');
  assert.equal(forced.searchParams.get('mode'), 'claude-code');
  assert.equal(buildConnectUrl({ ...base, serverUrl: 'ws://h:1' }).pathname, '/ws/agent/chat');
  assert.throws(() => buildConnectUrl({ ...base, serverUrl: 'http://h:1/ws' }), /ws:\/\/ or wss:\/\//);
});

test('backoff doubles from 1 s to a 30 s cap with ±20 % jitter', () => {
  const t = { backoffBaseMs: 1000, backoffCapMs: 30000 };
  assert.deepEqual([0, 1, 2, 3, 4, 5, 9].map((a) => backoffDelay(a, t, () => 0.5)), [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.equal(backoffDelay(0, t, () => 0), 800);
  assert.equal(backoffDelay(0, t, () => 1), 1200);
  assert.equal(backoffDelay(20, t, () => 1), 30000);
});

test('connects, keeps CONNECTED requestId, pings on the interval and answers server PINGs', async () => {
  const server = await startServer();
  const conn = new BridgeConnection({ ...base, serverUrl: `ws://127.0.0.1:${server.port}/ws/analyze`, log: silentLogger, timing: { pingIntervalMs: 50 } });
  conn.connect();
  await waitUntil(() => conn.state === 'connected', 'connected', 3000);
  assert.equal(server.urls[0].searchParams.get('projectPath'), '/home/dev/demo');
  await waitUntil(() => conn.requestId === 'req-9', 'requestId', 1000);
  await waitUntil(() => server.received.filter((m) => m.type === 'PING').length >= 2, 'two PINGs', 2000);
  server.sockets[0].send(JSON.stringify({ type: 'PING', data: { timestamp: 42 } }));
  await waitUntil(() => server.received.some((m) => m.type === 'PONG' && (m.data as { timestamp: number }).timestamp === 42), 'PONG 42', 2000);
  conn.disconnect();
  assert.equal(conn.state, 'disconnected');
  await server.close();
});

test('a silent backend is declared dead and the link is re-established', async () => {
  // This server never answers PINGs and sends nothing after CONNECTED.
  const server = await startServer();
  const conn = new BridgeConnection({
    ...base, serverUrl: `ws://127.0.0.1:${server.port}/ws/agent/chat`, log: silentLogger,
    timing: { pingIntervalMs: 1000, deadAfterMs: 150, backoffBaseMs: 20, backoffCapMs: 50 },
  });
  conn.connect();
  await waitUntil(() => server.urls.length >= 2, 'a second connection after the dead link', 3000);
  conn.disconnect();
  await server.close();
});

test('reconnects forever with backoff after the backend restarts, until disconnected', async () => {
  const first = await startServer();
  const port = first.port;
  const states: ConnectionState[] = [];
  const conn = new BridgeConnection({
    ...base, serverUrl: `ws://127.0.0.1:${port}/ws/agent/chat`, log: silentLogger,
    timing: { backoffBaseMs: 20, backoffCapMs: 80 },
  });
  conn.onState((s) => states.push(s));
  conn.connect();
  await waitUntil(() => conn.state === 'connected', 'connected', 3000);
  await first.close();
  await waitUntil(() => conn.state === 'reconnecting', 'reconnecting', 3000);
  await new Promise((r) => setTimeout(r, 300)); // several failed attempts while the backend is down
  const second = await startServer(port);
  await waitUntil(() => conn.state === 'connected', 'connected again', 3000);
  assert.deepEqual(second.urls[0].searchParams.get('sessionId'), 's-1');
  assert.ok(states.includes('reconnecting'));
  conn.disconnect();
  await second.close();
  const attemptsAfter = second.urls.length;
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(second.urls.length, attemptsAfter, 'no reconnect after a user disconnect');
});

test('send refuses while the link is down', async () => {
  const conn = new BridgeConnection({ ...base, serverUrl: 'ws://127.0.0.1:9/ws/agent/chat', log: silentLogger, timing: { backoffBaseMs: 10000 } });
  assert.equal(conn.send({ type: 'PING', data: { timestamp: 1 } }), false);
  conn.connect();
  assert.equal(conn.send({ type: 'PING', data: { timestamp: 1 } }), false);
  conn.disconnect();
});

test('messages sent in one turn leave in one write, in order; a lone message goes out within its turn', async () => {
  const server = await startServer();
  const conn = new BridgeConnection({ ...base, serverUrl: `ws://127.0.0.1:${server.port}/ws/agent/chat`, log: silentLogger });
  try {
    conn.connect();
    await waitUntil(() => conn.state === 'connected', 'connected', 5000);
    // ws's own field for the TCP socket, which the connection corks (a renamed field would silently undo the batching)
    const raw = (conn as unknown as { socket: { _socket: Socket } }).socket._socket;
    assert.ok(raw instanceof Socket);
    let writes = 0;
    const write = raw._write.bind(raw);
    const writev = raw._writev?.bind(raw);
    raw._write = (...a: Parameters<Socket['_write']>) => (writes++, write(...a));
    if (writev) raw._writev = (...a: Parameters<NonNullable<Socket['_writev']>>) => (writes++, writev(...a));
    for (let i = 0; i < 50; i++) assert.equal(conn.send({ type: 'PING', data: { timestamp: i } }), true);
    await waitUntil(() => server.received.length === 50, '50 messages', 5000);
    assert.equal(writes, 1, 'one write for the turn');
    assert.deepEqual(server.received.map((m) => (m.data as { timestamp: number }).timestamp), [...Array(50).keys()]);
    const t0 = Date.now();
    conn.send({ type: 'PING', data: { timestamp: 99 } });
    await waitUntil(() => server.received.length === 51, 'the lone message', 5000);
    assert.ok(Date.now() - t0 < 200, `a lone message waits for its turn only (${Date.now() - t0} ms)`);
    assert.equal(writes, 2);
  } finally {
    conn.disconnect();
    await server.close();
  }
});

test('a burst of answers over the backpressure mark in one turn, to a backend that reads: bytes only corked do not pause reading', async () => {
  const server = await startServer();
  const warnings: string[] = [];
  const conn = new BridgeConnection({ ...base, serverUrl: `ws://127.0.0.1:${server.port}/ws/agent/chat`, log: { ...silentLogger, warn: (m) => warnings.push(m) } });
  try {
    conn.connect();
    await waitUntil(() => conn.state === 'connected', 'connected', 5000);
    // 16.4 MB handed over in one turn: over the mark while corked, under it once the socket took its share
    const big = 'x'.repeat(2.05 * 1024 * 1024);
    for (let i = 0; i < 8; i++) conn.send({ type: 'PING', data: { timestamp: i } }, JSON.stringify({ type: 'PING', data: { timestamp: i, pad: big } }));
    await new Promise((r) => setImmediate(r));
    await waitUntil(() => server.received.length === 8, 'eight answers', 10_000);
    assert.deepEqual(warnings, [], 'no "backend is not reading"');
    assert.equal(conn.heldBack, false);
  } finally {
    conn.disconnect();
    await server.close();
  }
});
