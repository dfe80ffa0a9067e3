/**
 * The README's curl example, as a newcomer pastes it: the real dev backend (its own process, as
 * `npm run dev-backend` starts it), an editor connected the way the extension connects (the link
 * code through the headless host, with the default project key: the folder's name), then the
 * README's block run by `sh` with `curl`, only the port changed. The `curl` the dev backend prints
 * once the editor is connected must work as pasted too.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { silentLogger } from '../support/silentLogger';
import { startHeadlessHost, type HeadlessHost } from '../../src/node/headless';
import { waitUntil } from '../support/waitUntil';

const root = path.join(__dirname, '..', '..');

/** The ```sh block of the README's dev backend section that calls the tool API, as shell commands (continuations joined). */
function readmeCurlCommands(): string[] {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Try it with the dev backend'));
  const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes('/api/claude-code/tools/execute'));
  assert.ok(block, 'the README has no curl block for the tool API in "Try it with the dev backend"');
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

/** Runs one command line with sh, as a terminal would, and returns what it printed (async: the editor answers from this process). */
function sh(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('sh', ['-c', command], { encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${command}\n${stderr}`, { cause: err })) : resolve(stdout)));
  });
}

describe("the README's curl example against the dev backend", () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-readme-'));
  // A folder named as a project is: the editor's default project key is this name.
  const folder = path.join(parent, 'shop-service');
  let backend: ChildProcess;
  let output = '';
  let port = 0;
  let host: HeadlessHost;

  const waitFor = (pattern: RegExp, what: string): Promise<RegExpMatchArray> =>
    waitUntil(() => pattern.exec(output), () => `the dev backend to print ${what}; it printed:
${output}`, 30_000, 50);

  before(async () => {
    fs.mkdirSync(path.join(folder, 'src'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'README.md'), '# Shop service\n\nThe service that sells.\n');
    fs.writeFileSync(path.join(folder, 'src', 'cart.ts'), 'export const cart: string[] = [];\n// TODO: limit the cart to 50 items\n');
    // The dev backend as `npm run dev-backend` runs it, on a free port instead of 8080.
    backend = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'devBackend', 'main.ts'), '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    backend.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    backend.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    port = Number((await waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/, 'its address'))[1]);
    // No projectKey: the link sends the folder's name, as the extension does with agentBridge.projectKey empty.
    host = startHeadlessHost({ serverUrl: `ws://localhost:${port}/ws/agent/chat`, workspace: folder, log: silentLogger });
    await waitFor(/IDE ready/, '"IDE ready"');
  });

  after(() => {
    host?.stop();
    backend?.kill('SIGTERM');
    fs.rmSync(parent, { recursive: true, force: true });
  });

  test('the editor connected with the folder name as its project key', () => {
    assert.match(output, /projectKey=shop-service\b/);
  });

  test('each command of the README block answers as the README says, only the port changed', async () => {
    const commands = readmeCurlCommands();
    assert.equal(commands.length, 2, commands.join('\n'));
    const onPort = (c: string) => {
      assert.ok(c.includes('127.0.0.1:8080'), `the README's command does not use the dev backend's default address: ${c}`);
      return c.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
    };
    const sessions = JSON.parse(await sh(onPort(commands[0]))) as { sessions: { projectKey: string; authenticated: boolean }[] };
    assert.deepEqual(sessions.sessions.map((s) => [s.projectKey, s.authenticated]), [['shop-service', true]]);
    const answer = JSON.parse(await sh(onPort(commands[1]))) as { success: boolean; result: string; error: string | null };
    assert.equal(answer.success, true, answer.error ?? '');
    assert.match(answer.result, /src\/cart\.ts/);
    assert.match(answer.result, /TODO: limit the cart to 50 items/);
  });

  test('the curl the dev backend prints once the editor is connected works as pasted', async () => {
    const printed = /IDE ready\. Try a tool call:\n\s+(curl .+)\n/.exec(output)?.[1];
    assert.ok(printed, output);
    assert.match(printed, /"projectKey":"shop-service"/);
    const answer = JSON.parse(await sh(printed)) as { success: boolean; result: string; error: string | null };
    assert.equal(answer.success, true, answer.error ?? '');
    assert.match(answer.result, /The service that sells\./);
  });
});
