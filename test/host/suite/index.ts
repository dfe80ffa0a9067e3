// Entry point of the extension-host test suite (VS Code's extensionTestsPath): VS Code loads this
// module inside the real extension host and awaits run().
//
// esbuild bundles this file and the test modules into one out/test/suite/index.js (mocha stays
// external), so there is no glob: the test modules are imported inside run(), after mocha's
// globals (describe/it/...) exist. Add each new test module to loadTests() below.
//
// When AGENT_BRIDGE_TEST_RESULTS is set (test/host/runHostTests.ts sets it), the results are
// written there as JSON. run() rejects when any test failed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

async function loadTests(): Promise<void> {
  await import('./smoke.test');
  await import('./protocol.test');
  await import('./chat.test');
  await import('./chatContext.test');
  await import('./approval.test');
  await import('./review.test');
  await import('./code.test');
  await import('./codeLsp.test');
  await import('./codeAccuracy.test');
  await import('./auth.test');
  await import('./cancel.test');
  await import('./tls.test');
  await import('./gettingStarted.test');
  await import('./diagnosticsSecrets.test');
  await import('./secretGlobs.test');
  await import('./formatSetting.test');
}

export interface TestResult {
  title: string;
  state: 'passed' | 'failed' | 'pending';
  error?: string;
  durationMs?: number;
}

export interface SuiteResults {
  passed: number;
  failed: number;
  pending: number;
  durationMs: number;
  tests: TestResult[];
}

function writeResults(results: SuiteResults): void {
  const file = process.env.AGENT_BRIDGE_TEST_RESULTS;
  if (!file) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(results, null, 2));
  fs.renameSync(tmp, file); // atomic: the runner never reads half a file
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}

export async function run(): Promise<void> {
  const started = Date.now();
  // AGENT_BRIDGE_HOST_GREP runs only the tests whose full title matches (for work on one feature).
  const grep = process.env.AGENT_BRIDGE_HOST_GREP;
  const mocha = new Mocha({ ui: 'bdd', timeout: 30_000, color: false, reporter: 'spec', ...(grep ? { grep } : {}) });
  const tests: TestResult[] = [];

  try {
    mocha.suite.emit('pre-require', globalThis, 'bundle', mocha);
    await loadTests();
  } catch (err) {
    const results: SuiteResults = {
      passed: 0,
      failed: 1,
      pending: 0,
      durationMs: Date.now() - started,
      tests: [{ title: 'load test modules', state: 'failed', error: errorText(err) }],
    };
    writeResults(results);
    throw err;
  }

  const failures = await new Promise<number>((resolve) => {
    const runner = mocha.run((n) => resolve(n));
    runner.on(Mocha.Runner.constants.EVENT_TEST_PASS, (t: Mocha.Test) => {
      tests.push({ title: t.fullTitle(), state: 'passed', durationMs: t.duration });
    });
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (t: Mocha.Runnable, err: unknown) => {
      // Hook failures arrive here too, with the hook as the runnable.
      tests.push({ title: t.fullTitle(), state: 'failed', error: errorText(err), durationMs: t.duration });
    });
    runner.on(Mocha.Runner.constants.EVENT_TEST_PENDING, (t: Mocha.Test) => {
      tests.push({ title: t.fullTitle(), state: 'pending' });
    });
  });

  const failed = tests.filter((t) => t.state === 'failed').length;
  writeResults({
    passed: tests.filter((t) => t.state === 'passed').length,
    failed: Math.max(failed, failures),
    pending: tests.filter((t) => t.state === 'pending').length,
    durationMs: Date.now() - started,
    tests,
  });
  if (failures > 0 || failed > 0) throw new Error(`${Math.max(failed, failures)} extension-host test(s) failed`);
}
