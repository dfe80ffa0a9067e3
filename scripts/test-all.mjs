/* global process, console, setTimeout, clearTimeout */
// `npm test`: every check and suite, then per-suite subtotals and, as the very last line,
// `N passed, N failed`. Exits non-zero when anything failed or crashed.
//
//   typecheck, lint        each counts 1 passed or 1 failed
//   unit                   node --test over test/unit/**/*.test.ts (counts from `ℹ pass N` / `ℹ fail N`)
//   security               the same over test/security/**/*.test.ts (the hostile-agent suite; its
//                          *.slow.test.ts files are left out of `npm run test:fast`, not out of this)
//   slow                   the same over test/slow/**/*.test.ts (ground truth from the JDK, TypeScript,
//                          Python and ripgrep, big trees, the soak: left out of `npm run test:fast`)
//   build                  npm run build (1 passed or 1 failed; on failure host/e2e are not run)
//   host                   test/host/runHostTests.ts (`host: N passed, N failed`)
//   e2e                    test/e2e/runE2E.ts when it exists (`e2e: N passed, N failed`)
//   chat-e2e               test/e2e/chatE2E.ts on the VSIX e2e packaged (`chat-e2e: N passed, N failed`)
//
// Steps that share nothing run side by side, so the run takes about as long as its VS Code suites:
// the build first; then typecheck and lint, then the node suites (one after another), beside the
// VS Code suites (one after another). Only the VS Code suites stream their output; the others print theirs
// whole when they end, so no two outputs interleave. TEST_ALL_SERIAL=1 runs every step alone, in order.
//
// A step that crashes, times out, or exits non-zero without reporting a failure counts as at least
// 1 failed. Step time limits (minutes): typecheck/lint/build 10, unit 20, host 10, e2e 20; override
// with TEST_ALL_<STEP>_TIMEOUT_MIN (e.g. TEST_ALL_UNIT_TIMEOUT_MIN=30).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const serial = process.env.TEST_ALL_SERIAL === '1';
const results = [];
let endsWithNewline = true;

const running = new Set(); // the running children, for signals
let stopping = false;

/**
 * Run a step and kill its whole process group after timeoutMin minutes. Its output streams through,
 * or with `quiet` (a step running beside another) is printed whole when it ends.
 */
function run(cmd, args, timeoutMin, { quiet = false } = {}) {
  if (stopping) return Promise.resolve({ code: 130, signal: null, timedOut: false, output: '', seconds: 0 });
  quiet &&= !serial;
  return new Promise((resolve) => {
    const started = Date.now();
    let output = '';
    let timedOut = false;
    const header = `\n$ ${[cmd, ...args].join(' ')}`;
    if (quiet) {
      console.log(`\n(started beside the others, output when it ends) $ ${[cmd, ...args].join(' ').slice(0, 160)}`);
    } else {
      console.log(header);
    }
    endsWithNewline = true;
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: process.env, detached: true });
    running.add(child);
    const pipe = (stream, dest) =>
      stream.on('data', (chunk) => {
        const text = chunk.toString();
        output += text;
        if (output.length > 4_000_000) output = output.slice(-2_000_000);
        if (quiet) return;
        dest.write(text);
        endsWithNewline = text.endsWith('\n');
      });
    pipe(child.stdout, process.stdout);
    pipe(child.stderr, process.stderr);
    const timer = setTimeout(() => {
      timedOut = true;
      console.error(`\n!! timed out after ${timeoutMin} min: ${cmd} ${args.join(' ')}`);
      killGroup(child, 'SIGTERM');
      setTimeout(() => killGroup(child, 'SIGKILL'), 10_000).unref();
    }, timeoutMin * 60_000);
    child.on('error', (err) => {
      output += `\n${err.message}`;
      console.error(`spawn failed: ${err.message}`);
    });
    // Leave nothing behind (a test file's server, a browser); leftovers holding the output pipes
    // open would otherwise keep 'close' from firing.
    child.on('exit', () => killGroup(child, 'SIGKILL'));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      if (!endsWithNewline) process.stdout.write('\n');
      if (quiet) process.stdout.write(`${header}\n${output}${output.endsWith('\n') ? '' : '\n'}`);
      endsWithNewline = true;
      resolve({ code: timedOut ? 124 : (code ?? (signal ? 1 : 0)), signal, timedOut, output, seconds: (Date.now() - started) / 1000 });
    });
  });
}

function killGroup(child, signal) {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    stopping = true;
    for (const child of running) killGroup(child, 'SIGTERM');
    setTimeout(() => process.exit(130), 3000).unref();
    if (running.size === 0) process.exit(130);
  });
}

const minutes = (name, def) => Number(process.env[`TEST_ALL_${name.toUpperCase()}_TIMEOUT_MIN`] ?? def);

function record(name, passed, failed, seconds, note = '', output = '') {
  results.push({ name, passed, failed, seconds, note, failures: failureLines(output) });
}

/**
 * The titles of failing tests in a step's output (`✖ title` from node --test, host and e2e), so the
 * summary names them: CI keeps only the end of the output, and log tails can push them out of it.
 */
function failureLines(output) {
  const seen = new Set();
  for (const m of output.matchAll(/^\s*[✖✘] (.+)$/gm)) {
    const title = m[1].replace(/\s+\(\d+(\.\d+)?m?s\)\s*$/, '').trim();
    if (title !== 'failing tests:' && !seen.has(title)) seen.add(title);
    if (seen.size >= 10) break;
  }
  return [...seen];
}

/** A check that passes or fails as a whole. */
async function check(name, cmd, args, timeoutMin, options) {
  const r = await run(cmd, args, timeoutMin, options);
  const ok = r.code === 0;
  record(name, ok ? 1 : 0, ok ? 0 : 1, r.seconds, ok ? '' : `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}`);
  return ok;
}

/** Last `<prefix>: N passed, N failed` in the output. */
function parseSummary(output, prefix) {
  const re = new RegExp(`^${prefix}: (\\d+) passed, (\\d+) failed`, 'gm');
  let m;
  let last;
  while ((m = re.exec(output))) last = m;
  return last ? { passed: Number(last[1]), failed: Number(last[2]) } : undefined;
}

/** A suite whose output ends with `<prefix>: N passed, N failed`. */
async function suite(name, cmd, args, prefix, timeoutMin) {
  const r = await run(cmd, args, timeoutMin);
  const s = parseSummary(r.output, prefix);
  let passed = s?.passed ?? 0;
  let failed = s?.failed ?? 0;
  let note = '';
  if (r.timedOut) {
    note = 'timed out';
    failed = Math.max(failed, 1);
  } else if (!s) {
    note = `no "${prefix}: N passed, N failed" line, exit ${r.code}`;
    failed = Math.max(failed, 1);
  } else if (r.code !== 0 && failed === 0) {
    note = `exit ${r.code}`;
    failed = 1;
  }
  record(name, passed, failed, r.seconds, note, failed ? r.output : '');
}

function findUnitTests(dir) {
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...findUnitTests(p));
    } else if (entry.isFile() && entry.name.endsWith('.test.ts')) {
      out.push(path.relative(root, p));
    }
  }
  return out.sort();
}

/** node --test over the .test.ts files under test/<folder>, counted under `name` (unit, security, slow). */
async function nodeTests(name, folder) {
  const files = findUnitTests(path.join(root, 'test', folder));
  if (files.length === 0) {
    console.log(`\n${name}: no test/${folder}/**/*.test.ts files`);
    record(name, 0, 0, 0, 'no files');
    return;
  }
  // Two files at a time: many tests wait on timers, child processes and sockets rather than the CPU.
  // The hostile-agent suite measures how long the event loop is held: beside the VS Code suites it
  // runs one file at a time, so its own files do not add to that load (its chain still ends first).
  const concurrency = name === 'security' && !serial ? 1 : 2;
  const r = await run(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], minutes(name, 20), { quiet: true });
  const num = (label) => {
    const all = [...r.output.matchAll(new RegExp(`^\\s*ℹ ${label} (\\d+)\\s*$`, 'gm'))];
    return all.length ? Number(all[all.length - 1][1]) : undefined;
  };
  const pass = num('pass');
  const fail = num('fail');
  const cancelled = num('cancelled') ?? 0;
  let failed = (fail ?? 0) + cancelled;
  let note = cancelled ? `${cancelled} cancelled` : '';
  if (r.timedOut) {
    note = 'timed out';
    failed = Math.max(failed, 1);
  } else if (pass === undefined || fail === undefined) {
    note = `no node --test summary, exit ${r.code}`;
    failed = Math.max(failed, 1);
  } else if (r.code !== 0 && failed === 0) {
    note = `exit ${r.code}`;
    failed = 1;
  }
  record(name, pass ?? 0, failed, r.seconds, note, failed ? r.output : '');
}

/** The steps of `steps`, side by side (one after another with TEST_ALL_SERIAL=1). */
async function together(...steps) {
  if (!serial) return Promise.all(steps.map((step) => step()));
  const out = [];
  for (const step of steps) out.push(await step());
  return out;
}

async function nodeSuites() {
  await nodeTests('unit', 'unit');
  // The hostile-agent suite: every attack on the trust boundary, as a test that must keep failing to get through.
  await nodeTests('security', 'security');
  await nodeTests('slow', 'slow');
}

async function vscodeSuites(built) {
  const e2e = path.join('test', 'e2e', 'runE2E.ts');
  const chatE2e = path.join('test', 'e2e', 'chatE2E.ts');
  if (!built) {
    record('host', 0, 1, 0, 'not run: build failed');
    if (fs.existsSync(e2e)) record('e2e', 0, 1, 0, 'not run: build failed');
    if (fs.existsSync(chatE2e)) record('chat-e2e', 0, 1, 0, 'not run: build failed');
    return;
  }
  await suite('host', process.execPath, ['--import', 'tsx', path.join('test', 'host', 'runHostTests.ts')], 'host', minutes('host', 10));
  if (fs.existsSync(e2e)) await suite('e2e', process.execPath, ['--import', 'tsx', e2e], 'e2e', minutes('e2e', 20));
  // The chat as a person uses it, on the VSIX the e2e step just packaged.
  if (fs.existsSync(chatE2e)) await suite('chat-e2e', process.execPath, ['--import', 'tsx', chatE2e, '--skip-package'], 'chat-e2e', minutes('e2e', 20));
}

async function main() {
  // Only the build stands before the VS Code suites; the type check and lint open the node chain.
  const built = await check('build', npm, ['run', 'build'], minutes('build', 10));
  const checks = () =>
    together(
      () => check('typecheck', npm, ['run', 'typecheck'], minutes('typecheck', 10), { quiet: true }),
      () => check('lint', npm, ['run', 'lint'], minutes('lint', 10), { quiet: true }),
    );
  await together(
    async () => {
      await checks();
      await nodeSuites();
    },
    () => vscodeSuites(built),
  );
}

let crashed = false;
try {
  await main();
} catch (err) {
  crashed = true;
  console.error(err);
  record('test-all', 0, 1, 0, 'crashed');
}

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log('\n==== summary ====');
const order = ['typecheck', 'lint', 'build', 'unit', 'security', 'slow', 'host', 'e2e', 'chat-e2e'];
results.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
for (const r of results) {
  const note = r.note ? `  [${r.note}]` : '';
  console.log(`${r.name.padEnd(10)} ${r.passed} passed, ${r.failed} failed  (${r.seconds.toFixed(1)} s)${note}`);
  for (const title of r.failures) console.log(`           ✖ ${title}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 || crashed ? 1 : 0;
