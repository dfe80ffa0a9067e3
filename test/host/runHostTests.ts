// Runs the extension-host test suite (out/test/suite/index.js, built by `npm run build`) inside a
// real VS Code 1.100.3: code-server + headless Chromium, the extension loaded from the repo as a
// development extension. Prints each test, then `host: N passed, N failed`; exits non-zero on any
// failure or timeout.
//
//   node --import tsx test/host/runHostTests.ts [--dev-path DIR] [--tests-path FILE] [--timeout SECONDS] [--verbose]
//
// Environment: AGENT_BRIDGE_HOST_TIMEOUT (seconds, default 240), AGENT_BRIDGE_HOST_VERBOSE=1 (echo
// code-server and browser console output live), AGENT_BRIDGE_CACHE (where setup-test-host.sh put
// code-server). Workspace: a copy of test/host/fixtures/workspace when it exists. Settings: those of
// test/host/fixtures/settings.json when it exists, else agentBridge.autoConnect=false. TLS: a
// throwaway CA is made and added to a copy of the system's CA bundle, which code-server (and so
// the extension host) gets as SSL_CERT_FILE; the server certificate it signed is in the folder
// named by AGENT_BRIDGE_TEST_TLS (server.pem, server.key), for the suite's wss:// backend.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { makeTestCa, writeBundle } from '../support/testCa';
import { CodeServer, openWorkbench, type Workbench } from '../support/codeServer';
import type { SuiteResults } from './suite/index';

const repoRoot = path.resolve(__dirname, '..', '..');

const { values: args } = parseArgs({
  options: {
    'dev-path': { type: 'string' },
    'tests-path': { type: 'string' },
    timeout: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});

const devPath = path.resolve(args['dev-path'] ?? repoRoot);
const testsPath = path.resolve(args['tests-path'] ?? path.join(repoRoot, 'out', 'test', 'suite', 'index.js'));
const timeoutSec = Number(args.timeout ?? process.env.AGENT_BRIDGE_HOST_TIMEOUT ?? 240);
const verbose = args.verbose || process.env.AGENT_BRIDGE_HOST_VERBOSE === '1';
const resultsDir = path.join(repoRoot, 'test-results');

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function makeWorkspace(tmp: string): string {
  const ws = path.join(tmp, 'workspace');
  const fixture = path.join(repoRoot, 'test', 'host', 'fixtures', 'workspace');
  if (fs.existsSync(fixture)) {
    fs.cpSync(fixture, ws, { recursive: true });
  } else {
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'README.md'), '# Sample workspace\n\nUsed by the Agent Bridge host tests.\n');
    fs.writeFileSync(
      path.join(ws, 'src', 'math.ts'),
      'export function add(a: number, b: number): number {\n  return a + b;\n}\n\n' +
        'export function twice(x: number): number {\n  return add(x, x);\n}\n',
    );
  }
  return ws;
}

function readSettings(): Record<string, unknown> {
  const file = path.join(repoRoot, 'test', 'host', 'fixtures', 'settings.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  return { 'agentBridge.autoConnect': false };
}

async function waitForResults(file: string, server: CodeServer, timeoutMs: number): Promise<SuiteResults> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as SuiteResults;
    if (server.exitStatus) throw new Error(`code-server exited (${server.exitStatus}) before the suite reported`);
    await sleep(250);
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for the suite's results (${file})`);
}

function indent(text: string, by = '      '): string {
  return text.replace(/^/gm, by);
}

async function main(): Promise<number> {
  if (!fs.existsSync(testsPath)) {
    console.error(`host: ${testsPath} does not exist: run \`npm run build\` first`);
    return 2;
  }
  const started = Date.now();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bridge-host-'));
  const resultsFile = path.join(tmp, 'results.json');
  const workspace = makeWorkspace(tmp);
  let server: CodeServer | undefined;
  let wb: Workbench | undefined;
  let failed = true;
  let cleaningUp = false;

  const cleanup = async () => {
    if (cleaningUp) return;
    cleaningUp = true;
    await wb?.close();
    await server?.stop();
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  };
  const onSignal = (sig: NodeJS.Signals) => {
    console.error(`host: ${sig}, stopping`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const tlsDir = path.join(tmp, 'tls');
    fs.mkdirSync(tlsDir);
    const bundle = writeBundle(path.join(tlsDir, 'system-and-test-ca.crt'), makeTestCa(tlsDir).caPem);
    server = await CodeServer.start({
      workspace,
      env: { AGENT_BRIDGE_TEST_RESULTS: resultsFile, AGENT_BRIDGE_TEST_TLS: tlsDir, SSL_CERT_FILE: bundle, SSL_CERT_DIR: '' },
      settings: readSettings(),
      echo: verbose,
    });
    console.log(`host: code-server on ${server.url} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    wb = await openWorkbench(server, { folder: workspace, devPath, testsPath, echoConsole: verbose });
    console.log(`host: workbench open, running ${path.relative(repoRoot, testsPath) || testsPath}`);

    const results = await waitForResults(resultsFile, server, timeoutSec * 1000);
    for (const t of results.tests) {
      const mark = t.state === 'passed' ? '✔' : t.state === 'failed' ? '✖' : '-';
      const ms = t.durationMs !== undefined ? ` (${t.durationMs} ms)` : '';
      console.log(`  ${mark} ${t.title}${t.state === 'pending' ? ' (pending)' : ms}`);
      if (t.error) console.log(indent(t.error));
    }
    failed = results.failed > 0;
    console.log(`host: suite took ${(results.durationMs / 1000).toFixed(1)} s, whole run ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (failed) {
      await diagnose(server, wb, 'host-failure');
      // The log tails above are long and CI keeps only the end of the output: repeat the failures
      // last, so the name and error of a failing test are never cut off.
      console.log('host: failing tests:');
      for (const t of results.tests.filter((x) => x.state === 'failed')) {
        console.log(`  ✖ ${t.title}`);
        if (t.error) console.log(indent(t.error));
      }
    }
    console.log(`host: ${results.passed} passed, ${results.failed} failed`);
    return failed ? 1 : 0;
  } catch (err) {
    console.error(`host: ${err instanceof Error ? err.message : String(err)}`);
    await diagnose(server, wb, 'host-error');
    console.log('host: 0 passed, 1 failed');
    return 1;
  } finally {
    await cleanup();
  }
}

/** On failure: screenshot, logs saved under test-results/, and log tails printed. */
async function diagnose(server: CodeServer | undefined, wb: Workbench | undefined, name: string): Promise<void> {
  fs.mkdirSync(resultsDir, { recursive: true });
  if (wb) {
    const shot = path.join(resultsDir, `${name}.png`);
    try {
      await wb.screenshot(shot);
      console.error(`host: screenshot ${path.relative(process.cwd(), shot)}`);
    } catch (err) {
      console.error(`host: screenshot failed: ${String(err)}`);
    }
    fs.writeFileSync(path.join(resultsDir, `${name}.browser-console.log`), wb.console.join('\n'));
    console.error(`===== browser console (last 80 lines) =====\n${wb.console.slice(-80).join('\n')}`);
  }
  if (server) {
    server.saveLogs(path.join(resultsDir, `${name}-logs`));
    console.error(server.logs(60));
    console.error(`host: logs saved in ${path.relative(process.cwd(), path.join(resultsDir, `${name}-logs`))}`);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    console.log('host: 0 passed, 1 failed');
    process.exit(1);
  },
);
