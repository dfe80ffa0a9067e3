/**
 * Token auth against the real dev backend on loopback: the right token connects and answers, a
 * wrong or missing one is refused once (no reconnect loop) with a reason, and the token never
 * reaches a log line.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { lineLogger, REDACTED, redactingLogger } from '../../src/core/log';
import { tokenAuth } from '../../src/core/link/token';
import { startDevBackend } from '../../src/devBackend/server';
import { startHeadlessHost } from '../../src/node/headless';
import { makeTree } from '../support/fixtures';
import { waitUntil } from '../support/waitUntil';

const TOKEN = 's3cr3t-token-0123456789';
const tree = makeTree({ 'README.md': '# demo\n' }, 'ab-token-');
const fast = { backoffBaseMs: 20, backoffCapMs: 40 };

function capture(): { lines: string[]; log: ReturnType<typeof lineLogger> } {
  const lines: string[] = [];
  return { lines, log: lineLogger((l) => lines.push(l), true) };
}

test('tokenAuth sends a Bearer header and CONNECT first, and nothing without a token', async () => {
  const on = tokenAuth(() => Promise.resolve(` ${TOKEN} `));
  assert.deepEqual(await on.headers(), { Authorization: `Bearer ${TOKEN}` });
  assert.deepEqual(await on.greeting(), [{ type: 'CONNECT', data: { token: TOKEN } }]);
  const off = tokenAuth(() => Promise.resolve(''));
  assert.deepEqual(await off.headers(), {});
  assert.deepEqual(await off.greeting(), []);
});

test('the right token connects and answers; the token is in no log line', async () => {
  const backend = await startDevBackend({ port: 0, token: TOKEN });
  const { lines, log } = capture();
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: tree, log, token: TOKEN, timing: fast });
  try {
    const session = await backend.waitForSession((s) => s.authenticated, 5000);
    assert.equal(session.authenticated, true);
    const r = await backend.callTool('read_file', { relativePath: 'README.md' });
    assert.equal((r.data as { success: boolean }).success, true);
    assert.ok(lines.length > 3, 'debug logging was on');
    for (const line of lines) assert.ok(!line.includes(TOKEN), `token leaked: ${line}`);
  } finally {
    host.stop();
    await backend.close();
  }
});

test('a wrong token is refused once, the status says why, and the host does not retry', async () => {
  const backend = await startDevBackend({ port: 0, token: TOKEN });
  let attempts = 0;
  const off = backend.onSession((e) => void (e.kind === 'connected' && attempts++));
  const { lines, log } = capture();
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: tree, log, token: 'wrong-token-xyz', timing: fast });
  try {
    await waitUntil(() => host.connection.authRejected, 'the refusal', 5000);
    assert.equal(host.connection.state, 'disconnected');
    assert.match(host.connection.lastError ?? '', /refused the token.*401/);
    await new Promise((r) => setTimeout(r, 400)); // 10× the backoff cap: a loop would show here
    assert.equal(host.connection.state, 'disconnected');
    assert.equal(attempts, 0, 'the Bearer header was refused before the upgrade');
    assert.equal(lines.filter((l) => l.includes('connecting to')).length, 1, 'one attempt only');
    for (const line of lines) assert.ok(!line.includes('wrong-token-xyz'), `token leaked: ${line}`);
  } finally {
    off();
    host.stop();
    await backend.close();
  }
});

test('no token against a backend that wants one: ERROR UNAUTHORIZED + 1008, no reconnect loop', async () => {
  const backend = await startDevBackend({ port: 0, token: TOKEN });
  let attempts = 0;
  const off = backend.onSession((e) => void (e.kind === 'connected' && attempts++));
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: tree, log: lineLogger(() => undefined), timing: fast });
  try {
    await waitUntil(() => host.connection.state === 'connected', 'the upgrade', 5000);
    // The dev backend lets an unauthenticated link PING; anything else is refused.
    host.connection.send({ type: 'AGENT_CHAT', data: { sessionId: host.sessionId, projectKey: 'p', message: 'hi' } });
    await waitUntil(() => host.connection.authRejected, 'the refusal', 5000);
    assert.match(host.connection.lastError ?? '', /requires a token/);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(host.connection.state, 'disconnected');
    assert.equal(attempts, 1);
  } finally {
    off();
    host.stop();
    await backend.close();
  }
});

test('agent-bridge-host reads AGENT_BRIDGE_TOKEN, and exits 3 when the token is refused', async () => {
  const repo = path.resolve(__dirname, '../..');
  const backend = await startDevBackend({ port: 0, token: TOKEN });
  const run = (env: string) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repo, 'src/node/host.ts'), '--url', backend.wsUrl(), '--workspace', tree, '--verbose'], {
      cwd: repo,
      env: { ...process.env, AGENT_BRIDGE_TOKEN: env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    return { child, exited, stderr: () => stderr };
  };
  try {
    const good = run(TOKEN);
    await backend.waitForSession((s) => s.authenticated, 15000);
    good.child.kill('SIGTERM');
    await good.exited;
    assert.ok(!good.stderr().includes(TOKEN), 'the token is not logged');
    const bad = run('not-the-token');
    assert.equal(await bad.exited, 3);
    assert.match(bad.stderr(), /refused the token/);
    assert.ok(!bad.stderr().includes('not-the-token'));
  } finally {
    await backend.close();
  }
});

test('redactingLogger replaces the token at every level', () => {
  const lines: string[] = [];
  const log = redactingLogger(lineLogger((l) => lines.push(l), true), () => [TOKEN, undefined]);
  log.info(`a ${TOKEN} b`);
  log.warn(TOKEN);
  log.error(`x${TOKEN}${TOKEN}`);
  log.debug(`Bearer ${TOKEN}`);
  assert.equal(lines.length, 4);
  for (const line of lines) {
    assert.ok(!line.includes(TOKEN));
    assert.ok(line.includes(REDACTED));
  }
});
