/**
 * Test Connection's probe against real failures on loopback: a closed port, a dev backend that
 * refuses the token or has no endpoint at the path, a server that never answers, one that hangs
 * up, a certificate nobody trusts, a backend that closes on the CONNECT token, and a good one.
 * Each must come out as the kind the editor turns into its sentence.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { WebSocketServer } from 'ws';
import { silentLogger } from '../support/silentLogger';
import { probeBackend, type ProbeOptions, type ProbeOutcome } from '../../src/core/link/probe';
import { tokenAuth } from '../../src/core/link/token';
import { startDevBackend, V2_PATH, type DevBackend } from '../../src/devBackend/server';
import { makeTestCa, type TestCa } from '../support/testCa';

const base = { protocol: 'auto', sessionId: 'probe-test', projectKey: 'probe', projectPath: os.tmpdir(), log: silentLogger } as const;

function probe(serverUrl: string, extra: Partial<ProbeOptions> = {}): Promise<ProbeOutcome> {
  return probeBackend({ ...base, serverUrl, ...extra });
}

const withToken = (token: string) => tokenAuth(async () => token);

function kindOf(o: ProbeOutcome): string {
  return o.ok ? 'ok' : o.kind;
}

/** A TCP server on loopback that does `onSocket` with every connection. */
async function tcpServer(onSocket: (s: net.Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    onSocket(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    }),
  };
}

describe('Test Connection probe', () => {
  let backend: DevBackend;
  let tokenBackend: DevBackend;
  before(async () => {
    backend = await startDevBackend({ port: 0 });
    tokenBackend = await startDevBackend({ port: 0, token: 'right-token-4411' });
  });
  after(async () => {
    await backend.close();
    await tokenBackend.close();
  });

  test('a dev backend: ok, greeted, with the protocol the URL chose', async () => {
    const o = await probe(backend.wsUrl(V2_PATH));
    assert.ok(o.ok, JSON.stringify(o));
    assert.equal(o.protocol, 'v2');
    assert.equal(o.greeted, true);
    assert.equal(o.tokenSent, false);
    assert.equal(kindOf(await probe(backend.wsUrl('/ws/analyze'))), 'ok');
  });

  test('the probe leaves no session behind on the backend', async () => {
    await probe(backend.wsUrl(V2_PATH));
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(backend.sessions(), []);
  });

  test('a token the backend wants: ok with it, unauthorized (token refused) with a wrong one, and says it was sent', async () => {
    const good = await probe(tokenBackend.wsUrl(V2_PATH), withToken('right-token-4411'));
    assert.ok(good.ok && good.tokenSent, JSON.stringify(good));
    const bad = await probe(tokenBackend.wsUrl(V2_PATH), withToken('wrong-token'));
    assert.equal(kindOf(bad), 'unauthorized');
    assert.equal(bad.tokenSent, true);
    assert.equal(!bad.ok && bad.status, 401);
  });

  test('a wrong path on a real backend is notFound (HTTP 404)', async () => {
    const o = await probe(backend.wsUrl('/ws/agent/chatt'));
    assert.equal(kindOf(o), 'notFound', JSON.stringify(o));
    assert.equal(!o.ok && o.status, 404);
  });

  test('a server that refuses the upgrade with 403 is forbidden, with another status httpStatus', async () => {
    for (const [code, kind] of [[403, 'forbidden'], [500, 'httpStatus']] as const) {
      const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, verifyClient: (_info, cb) => cb(false, code) });
      await new Promise<void>((r) => wss.once('listening', () => r()));
      const o = await probe(`ws://127.0.0.1:${(wss.address() as net.AddressInfo).port}/ws/agent/chat`);
      await new Promise<void>((r) => wss.close(() => r()));
      assert.equal(kindOf(o), kind, JSON.stringify(o));
      assert.equal(!o.ok && o.status, code);
    }
  });

  test('a backend that accepts the socket, then closes on the CONNECT token (1008), is unauthorized', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    wss.on('connection', (ws) => ws.on('message', () => ws.close(1008, 'invalid token')));
    const o = await probe(`ws://127.0.0.1:${(wss.address() as net.AddressInfo).port}/ws/agent/chat`, withToken('nope'));
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
    assert.equal(kindOf(o), 'unauthorized', JSON.stringify(o));
  });

  test('a closed port is refused', async () => {
    const server = await tcpServer(() => undefined);
    const port = server.port;
    await server.close();
    const o = await probe(`ws://127.0.0.1:${port}/ws/agent/chat`);
    assert.equal(kindOf(o), 'refused', JSON.stringify(o));
  });

  test('a host name that does not resolve is dns', async () => {
    // .invalid never resolves (RFC 2606); offline resolvers answer EAI_AGAIN, which is the same advice.
    const o = await probe('ws://agent-backend.invalid:8080/ws/agent/chat');
    assert.equal(kindOf(o), 'dns', JSON.stringify(o));
  });

  test('a server that accepts the connection and never answers is a timeout', async () => {
    const server = await tcpServer(() => undefined);
    const started = Date.now();
    const o = await probe(`ws://127.0.0.1:${server.port}/ws/agent/chat`, { timeoutMs: 600 });
    await server.close();
    assert.equal(kindOf(o), 'timeout', JSON.stringify(o));
    assert.ok(Date.now() - started < 3000);
  });

  test('a server that hangs up during the handshake is closed', async () => {
    const server = await tcpServer((s) => s.destroy());
    const o = await probe(`ws://127.0.0.1:${server.port}/ws/agent/chat`);
    await server.close();
    assert.equal(kindOf(o), 'closed', JSON.stringify(o));
  });

  describe('TLS', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-probe-tls-'));
    let ca: TestCa;
    let tlsBackend: DevBackend;
    before(async () => {
      ca = makeTestCa(dir);
      tlsBackend = await startDevBackend({ port: 0, tls: { cert: ca.cert, key: ca.key } });
    });
    after(async () => {
      await tlsBackend.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('a certificate no trusted authority signed is tls, and the detail names the check', async () => {
      const o = await probe(tlsBackend.wsUrl(V2_PATH));
      assert.equal(kindOf(o), 'tls', JSON.stringify(o));
      assert.match(!o.ok ? o.detail : '', /not trusted/);
    });

    test('the same server with its authority trusted is ok', async () => {
      const o = await probe(tlsBackend.wsUrl(V2_PATH), { trust: async () => ({ ca: [ca.caPem], describe: 'test CA' }) });
      assert.equal(kindOf(o), 'ok', JSON.stringify(o));
    });

    test('wss:// to a plain ws:// port is tls', async () => {
      const o = await probe(backend.wsUrl(V2_PATH).replace(/^ws:/, 'wss:'));
      assert.equal(kindOf(o), 'tls', JSON.stringify(o));
    });
  });

  test('not a WebSocket URL is badUrl; a token over ws:// to another machine is not even tried', async () => {
    assert.equal(kindOf(await probe('http://127.0.0.1:8080/ws/agent/chat')), 'badUrl');
    assert.equal(kindOf(await probe('not a url')), 'badUrl');
    assert.equal(kindOf(await probe('ws://192.0.2.1:8080/ws/agent/chat', withToken('secret'))), 'insecureToken');
  });
});
