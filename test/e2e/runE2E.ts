// End to end, as a user: package the VSIX, install it into a real VS Code (code-server) the way a
// user does, open a folder, and check through the dev backend's HTTP tool API (spec 002) that the
// installed extension connects on its own and answers. Prints `e2e: N passed, N failed`.
//
//   node --import tsx test/e2e/runE2E.ts [--skip-package]
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startDevBackend, type DevBackend } from '../../src/devBackend/server';
import { CodeServer, openWorkbench, type Workbench } from '../host/codeServer';

const repoRoot = path.resolve(__dirname, '..', '..');
const resultsDir = path.join(repoRoot, 'test-results');
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };
const vsix = path.join(repoRoot, `${pkg.name}-${pkg.version}.vsix`);

interface Check {
  name: string;
  run: () => Promise<void>;
}

async function execute(backend: DevBackend, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(`${backend.url}/api/claude-code/tools/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, `HTTP ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}

async function main(): Promise<number> {
  if (!process.argv.includes('--skip-package')) {
    execFileSync('npm', ['run', 'package'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  assert.ok(fs.existsSync(vsix), `${vsix} was not built`);
  fs.mkdirSync(resultsDir, { recursive: true });

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bridge-e2e-'));
  const folder = path.join(tmp, 'shop-service');
  fs.cpSync(path.join(repoRoot, 'test', 'host', 'fixtures', 'workspace'), folder, { recursive: true });

  const backend = await startDevBackend({ port: 0 });
  let server: CodeServer | undefined;
  let bench: Workbench | undefined;
  let passed = 0;
  let failed = 0;
  try {
    server = await CodeServer.start({
      workspace: folder,
      settings: { 'agentBridge.serverUrl': backend.wsUrl('/ws/agent/chat') },
    });
    await server.installExtension(vsix);
    const installed = fs.readdirSync(server.extensionsDir).filter((d) => d.startsWith(`agent-bridge.${pkg.name}-`));
    bench = await openWorkbench(server, { folder });
    const backendRef = backend;
    const checks: Check[] = [
      {
        name: 'the VSIX installs into the extensions folder',
        run: async () => assert.deepEqual(installed, [`agent-bridge.${pkg.name}-${pkg.version}`]),
      },
      {
        name: 'the installed extension connects on its own with the folder name as project key',
        run: async () => {
          const s = await backendRef.waitForSession((x) => x.projectKey === 'shop-service', 90_000);
          assert.equal(s.protocol, 'v2');
        },
      },
      {
        name: 'grep_file through the HTTP tool API returns the matches',
        run: async () => {
          const r = await execute(backendRef, { tool: 'grep_file', params: { pattern: 'TODO' }, projectKey: 'shop-service' });
          assert.equal(r.success, true, String(r.error));
          assert.match(String(r.result), /src\/app\/Greeter\.java/);
          assert.match(String(r.result), /TODO: localize/);
        },
      },
      {
        name: 'read_file through the HTTP tool API returns numbered lines',
        run: async () => {
          const r = await execute(backendRef, { tool: 'read_file', params: { relativePath: 'notes.txt' }, projectKey: 'shop-service' });
          assert.equal(r.success, true, String(r.error));
          assert.match(String(r.result), /2 \| The word needle appears here once\./);
          assert.equal(typeof r.executionTime, 'number');
        },
      },
      {
        name: 'a path escape is refused with PERMISSION_DENIED',
        run: async () => {
          const r = await execute(backendRef, { tool: 'read_file', params: { relativePath: '../../../etc/hostname' }, projectKey: 'shop-service' });
          assert.equal(r.success, false);
          assert.equal(r.code, 'PERMISSION_DENIED');
        },
      },
      {
        name: 'the status bar shows the connected state',
        run: async () => {
          const item = bench!.page.locator('.statusbar-item', { hasText: 'Agent Bridge' }).first();
          await item.waitFor({ timeout: 20_000 });
          const label = (await item.getAttribute('aria-label')) ?? '';
          assert.match(label, /connected/);
          await bench!.screenshot(path.join(resultsDir, 'e2e-connected.png'));
        },
      },
    ];
    for (const check of checks) {
      try {
        await check.run();
        passed++;
        console.log(`  ✔ ${check.name}`);
      } catch (e) {
        failed++;
        console.log(`  ✖ ${check.name}\n    ${(e as Error).message}`);
      }
    }
    if (failed > 0) {
      await bench.screenshot(path.join(resultsDir, 'e2e-failure.png')).catch(() => undefined);
      console.log(server.logs(80));
    }
  } catch (e) {
    failed++;
    console.log(`  ✖ e2e setup: ${(e as Error).stack ?? String(e)}`);
    if (server) console.log(server.logs(80));
  } finally {
    await bench?.close().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    await backend.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    console.log('e2e: 0 passed, 1 failed');
    process.exit(1);
  },
);
