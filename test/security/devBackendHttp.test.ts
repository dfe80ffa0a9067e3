/**
 * The dev backend's HTTP tool API and WebSocket endpoint against a web page the developer happens
 * to open: a cross-origin `text/plain` POST, a DNS-rebinding Host, a page's WebSocket, and a
 * missing token. Each is refused and no tool call reaches the IDE.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { silentLogger } from '../support/silentLogger';
import { startDevBackend, type DevBackend } from '../../src/devBackend/server';
import { TOOL_EXECUTE_PATH } from '../../src/devBackend/toolApi';
import { startHeadlessHost, type HeadlessHost } from '../../src/node/headless';

interface Reply {
  readonly status: number;
  readonly body: string;
}

function request(port: number, o: { method?: string; path?: string; headers?: Record<string, string>; body?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: o.method ?? 'POST', path: o.path ?? TOOL_EXECUTE_PATH, headers: o.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

const readNotes = JSON.stringify({ tool: 'read_file', params: { relativePath: 'notes.txt' } });

for (const token of [undefined, 'dev-token-31337']) {
  describe(`the dev backend's HTTP API refuses what a web page can send (${token ? 'with' : 'without'} a token)`, () => {
    let backend: DevBackend;
    let host: HeadlessHost;
    let toolCalls = 0;
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-devhttp-'));
    before(async () => {
      fs.writeFileSync(path.join(folder, 'notes.txt'), 'workspace text 8e21\n');
      backend = await startDevBackend({ port: 0, token });
      backend.onMessage((e) => {
        if (e.message?.type === 'TOOL_RESULT') toolCalls++;
      });
      host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: folder, log: silentLogger, token });
      await backend.waitForSession(undefined, 5000);
    });
    after(async () => {
      host.stop();
      await backend.close();
      fs.rmSync(folder, { recursive: true, force: true });
    });
    const auth: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};

    test('a cross-origin text/plain POST (a "simple request", no preflight) is refused', async () => {
      const r = await request(backend.port, { headers: { 'Content-Type': 'text/plain', Origin: 'https://evil.example', ...auth }, body: readNotes });
      assert.equal(r.status, 403);
      const plain = await request(backend.port, { headers: { 'Content-Type': 'text/plain', ...auth }, body: readNotes });
      assert.equal(plain.status, 415);
      assert.ok(!r.body.includes('8e21') && !plain.body.includes('8e21'));
    });

    test('a JSON POST from a foreign Origin, or with a rebinding Host, is refused', async () => {
      for (const headers of <Record<string, string>[]>[
        { 'Content-Type': 'application/json', Origin: 'http://evil.example' },
        { 'Content-Type': 'application/json', Origin: 'null' },
        { 'Content-Type': 'application/json', Host: 'evil.example:8080' },
        { 'Content-Type': 'application/json', Host: 'localhost.evil.example' },
      ]) {
        const r = await request(backend.port, { headers: { ...headers, ...auth }, body: readNotes });
        assert.equal(r.status, 403, JSON.stringify(headers));
      }
      const listing = await request(backend.port, { method: 'GET', path: '/api/ide/sessions', headers: { Host: 'evil.example', ...auth } });
      assert.equal(listing.status, 403);
    });

    test('a web page cannot open the WebSocket endpoint', async () => {
      const ws = new WebSocket(backend.wsUrl('/ws/agent/chat', { sessionId: 's', projectKey: 'k' }), { headers: { Origin: 'https://evil.example' } });
      const status = await new Promise<number>((resolve) => {
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => resolve(101));
        ws.on('error', () => undefined);
      });
      ws.terminate();
      assert.equal(status, 403);
    });

    test(token ? 'the token is required, and then the call goes through' : 'a loopback JSON POST goes through', async () => {
      if (token) {
        const none = await request(backend.port, { headers: { 'Content-Type': 'application/json' }, body: readNotes });
        assert.equal(none.status, 401);
        const wrong = await request(backend.port, { headers: { 'Content-Type': 'application/json', Authorization: 'Bearer nope' }, body: readNotes });
        assert.equal(wrong.status, 401);
      }
      assert.equal(toolCalls, 0, 'no refused request reached the IDE');
      const ok = await request(backend.port, { headers: { 'Content-Type': 'application/json; charset=utf-8', Host: `localhost:${backend.port}`, ...auth }, body: readNotes });
      assert.equal(ok.status, 200, ok.body);
      assert.match(ok.body, /8e21/);
      assert.equal(toolCalls, 1);
    });
  });
}
