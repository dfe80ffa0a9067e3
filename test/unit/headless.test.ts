import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import * as z from 'zod';
import { Bridge } from '../../src/core/link/bridge';
import { BridgeConnection } from '../../src/core/link/connection';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { startLink } from '../../src/core/link/startLink';
import { silentLogger } from '../support/silentLogger';
import { defineTool } from '../../src/core/tools/tool';
import { startDevBackend, type DevBackend } from '../../src/devBackend/server';
import { startHeadlessHost } from '../../src/node/headless';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { waitUntil } from '../support/waitUntil';

const repo = path.resolve(__dirname, '../..');
const tree = makeTree({ 'src/App.java': 'class App {\n  // TODO wire it\n}\n', 'README.md': '# demo\n' }, 'ab-headless-');
const children: ChildProcess[] = [];
after(() => children.forEach((c) => c.kill('SIGKILL')));

function startCli(args: string[]): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repo, 'src/node/host.ts'), ...args], { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  return child;
}

async function execute(backend: DevBackend, body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${backend.url}/api/claude-code/tools/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

test('agent-bridge-host CLI: usage errors exit 2 with a message', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(repo, 'src/node/host.ts'), '--workspace', tree], { cwd: repo, encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--url is required/);
  const help = spawnSync(process.execPath, ['--import', 'tsx', path.join(repo, 'src/node/host.ts'), '--help'], { cwd: repo, encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--auto-approve/);
});

test('agent-bridge-host CLI answers tool calls forwarded through the HTTP tool API', async () => {
  const backend = await startDevBackend({ port: 0 });
  try {
    startCli(['--url', backend.wsUrl(), '--workspace', tree, '--project-key', 'demo']);
    const session = await backend.waitForSession((s) => s.projectKey === 'demo', 15000);
    const grep = await execute(backend, { tool: 'grep_file', params: { pattern: 'todo' }, projectKey: 'demo', sessionId: session.sessionId });
    assert.equal(grep.status, 200);
    assert.equal(grep.json.success, true, String(grep.json.error));
    assert.match(String(grep.json.result), /src\/App\.java/);
    assert.match(String(grep.json.result), /TODO wire it/);
    const escape = await execute(backend, { tool: 'read_file', params: { relativePath: '../../etc/passwd' }, projectKey: 'demo' });
    assert.equal(escape.json.success, false);
    assert.equal(escape.json.code, 'PERMISSION_DENIED');
  } finally {
    await backend.close();
  }
});

test('a malformed TOOL_CALL with an id is answered BAD_REQUEST; the link stays up', async () => {
  const backend = await startDevBackend({ port: 0 });
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: tree, log: silentLogger });
  try {
    const session = await backend.waitForSession(undefined, 5000);
    const reply = backend.waitForMessage((m) => m.message?.type === 'TOOL_RESULT', 5000);
    backend.sendRaw(session, JSON.stringify({ type: 'TOOL_CALL', toolCallId: 'bad-1', params: {} }));
    const got = (await reply).message as { data: Record<string, unknown> };
    assert.equal(got.data.toolCallId, 'bad-1');
    assert.equal(got.data.code, 'BAD_REQUEST');
    backend.sendRaw(session, '{not json');
    const ok = await backend.callTool('read_file', { relativePath: 'README.md' });
    assert.equal((ok.data as { success: boolean }).success, true);
  } finally {
    host.stop();
    await backend.close();
  }
});

test('the host reconnects with the same session after the backend restarts', async () => {
  const first = await startDevBackend({ port: 0 });
  const port = first.port;
  const host = startHeadlessHost({ serverUrl: first.wsUrl(), workspace: tree, log: silentLogger, timing: { backoffBaseMs: 50, backoffCapMs: 200 } });
  try {
    const before = await first.waitForSession(undefined, 5000);
    await first.close();
    await waitUntil(() => host.connection.state === 'reconnecting', 'reconnecting', 5000);
    const second = await startDevBackend({ port });
    try {
      const again = await second.waitForSession(undefined, 5000);
      assert.equal(again.sessionId, before.sessionId);
      const r = await second.callTool('read_file', { relativePath: 'README.md' });
      assert.equal((r.data as { success: boolean }).success, true);
    } finally {
      await second.close();
    }
  } finally {
    host.stop();
  }
});

test('an answer finished while the link is down is delivered after the reconnect', async () => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const slow = defineTool({ name: 'slow', description: '', writes: false, params: z.object({}), handler: async () => { await gate; return { result: 'finally' }; } });
  const first = await startDevBackend({ port: 0 });
  const port = first.port;
  const connection = new BridgeConnection({ serverUrl: first.wsUrl(), protocol: 'auto', sessionId: 'outbox-1', projectKey: 'p', projectPath: tree, log: silentLogger, timing: { backoffBaseMs: 50, backoffCapMs: 100 } });
  const bridge = new Bridge(connection, new Dispatcher({ workspace: new NodeWorkspace(tree), tools: [slow], log: silentLogger }), { log: silentLogger });
  connection.connect();
  try {
    await first.waitForSession(undefined, 5000);
    const pending = first.callTool('slow', {}).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    await first.close();
    await pending;
    release();
    await waitUntil(() => bridge.pending === 1, 'the answer to wait in the outbox', 3000);
    const second = await startDevBackend({ port });
    try {
      const delivered = await second.waitForMessage((m) => m.message?.type === 'TOOL_RESULT', 5000);
      const data = (delivered.message as { data: { success: boolean; result: string } }).data;
      assert.equal(data.result, 'finally');
      assert.equal(bridge.pending, 0);
    } finally {
      await second.close();
    }
  } finally {
    bridge.dispose();
    connection.disconnect();
  }
});

test('the headless host refuses writes unless started with --auto-approve', async () => {
  const backend = await startDevBackend({ port: 0 });
  const folder = makeTree({ 'a.txt': 'one\n' }, 'ab-headless-write-');
  const strict = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: folder, log: silentLogger, projectKey: 'strict' });
  try {
    await backend.waitForSession((s) => s.projectKey === 'strict', 5000);
    const refused = await backend.callTool('apply_change', { relativePath: 'a.txt', searchContent: 'one', replaceContent: 'two' });
    const data = refused.data as { code: string; error: string };
    assert.equal(data.code, 'PERMISSION_DENIED');
    assert.match(data.error, /--auto-approve/);
    assert.equal(fs.readFileSync(path.join(folder, 'a.txt'), 'utf8'), 'one\n');
  } finally {
    strict.stop();
  }
  const trusting = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: folder, log: silentLogger, projectKey: 'auto', autoApprove: true });
  try {
    const session = await backend.waitForSession((s) => s.projectKey === 'auto', 5000);
    const written = await backend.callTool('apply_change', { relativePath: 'a.txt', searchContent: 'one', replaceContent: 'two' }, { session });
    assert.equal((written.data as { success: boolean }).success, true);
    assert.equal(fs.readFileSync(path.join(folder, 'a.txt'), 'utf8'), 'two\n');
  } finally {
    trusting.stop();
    await backend.close();
  }
});

test('startLink: every call runs once, and answer listeners learn each answer once, from the bridge', async () => {
  let runs = 0;
  const counted = defineTool({ name: 'counted', description: '', writes: false, params: z.object({ n: z.number() }), handler: async (p) => ({ result: `run ${++runs} for ${p.n}` }) });
  const backend = await startDevBackend({ port: 0 });
  const link = startLink({
    dispatcher: { workspace: new NodeWorkspace(tree), tools: [counted], log: silentLogger },
    connection: { serverUrl: backend.wsUrl(), protocol: 'auto', sessionId: 'link-1', projectKey: 'p', projectPath: tree },
  });
  const heard: Array<{ id: string; result: unknown }> = [];
  link.onAnswer((call, result) => heard.push({ id: call.id, result: result.data.result }));
  link.connect();
  try {
    await backend.waitForSession(undefined, 5000);
    const answers = await Promise.all([1, 2, 3].map((n) => backend.callTool('counted', { n })));
    assert.equal(runs, 3, 'each call ran exactly once');
    assert.equal(heard.length, 3, 'each answer heard exactly once');
    for (const a of answers) {
      const data = a.data as { toolCallId: string; result: string };
      assert.deepEqual(heard.filter((h) => h.id === data.toolCallId).map((h) => h.result), [data.result]);
    }
  } finally {
    link.stop('test over');
    await backend.close();
  }
});
