/**
 * The hostile-repository suite for the in-process search (the headless host without ripgrep, or
 * with `--no-ripgrep`): ignore files built to exhaust it. A 4 MB `.gitignore` of 300,000 distinct
 * three-wildcard lines ran the host out of memory (a regular expression compiled per line, each
 * line tried on every entry); lines with no literal end, tried on long names, backtracked for
 * seconds per entry. The search runs in a child process with a 512 MB heap, killed if it overruns,
 * while its event loop delay is measured.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import type { SearchProbeLine } from '../support/searchIgnoreProbe';
import { runSearchProbe } from '../support/searchProbe';

/** The probe is killed past this: a search stuck for good must fail the test, not hang it. */
const WATCHDOG_MS = 90_000;
/** The tool budget is 25 s; the answer must come well within it. */
const ANSWER_MS = 20_000;
/** The longest the host's event loop may be held at once. */
const HELD_MS = 500;

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function runProbe(root: string, pattern: string): Promise<{ line?: SearchProbeLine; killed: boolean; code: number | null; stderr: string }> {
  return runSearchProbe([root, pattern], WATCHDOG_MS);
}

test("a hostile .gitignore (4 MB of distinct wildcard lines, lines that backtrack on long names) neither crashes nor holds the in-process search", { timeout: WATCHDOG_MS + 30_000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-hostile-ignore-'));
  roots.push(root);
  // 300,000 distinct lines of three wildcards, 4 MB; the first still applies, the last (past the bounds) does not.
  const lines = ['*.log'];
  for (let i = 0; lines.length < 308_000; i++) lines.push(`*xx*yy*zz${i}`);
  lines.push('*.txt');
  fs.writeFileSync(path.join(root, '.gitignore'), `${lines.join('\n')}\n`);
  assert.ok(fs.statSync(path.join(root, '.gitignore')).size > 4_000_000);
  fs.mkdirSync(path.join(root, 'src'));
  const expected: string[] = [];
  for (let i = 0; i < 100; i++) {
    fs.writeFileSync(path.join(root, 'src', `f${i}.txt`), 'needle\n');
    expected.push(`src/f${i}.txt`);
  }
  fs.writeFileSync(path.join(root, 'src', 'skipped.log'), 'needle\n');
  // 10,000 lines with no literal end, each backtracking on a long name of 'a's.
  fs.mkdirSync(path.join(root, 'deep'));
  fs.writeFileSync(path.join(root, 'deep', '.gitignore'), `${Array.from({ length: 10_000 }, (_, i) => `*a*a*[b${i}]`).join('\n')}\n`);
  for (let i = 0; i < 20; i++) {
    const name = `${'a'.repeat(200)}${i}.txt`;
    fs.writeFileSync(path.join(root, 'deep', name), 'needle\n');
    expected.push(`deep/${name}`);
  }

  const run = await runProbe(root, 'needle');
  assert.ok(!run.killed, `the search was still running after ${WATCHDOG_MS} ms`);
  assert.equal(run.code, 0, `the probe failed: ${run.stderr}`);
  const line = run.line as SearchProbeLine;
  const what = `answer ${Math.round(line.answerMs)} ms, loop held ${Math.round(line.maxLoopDelayMs)} ms, ${line.code ?? 'ok'} ${line.error ?? ''}`;
  assert.equal(line.success, true, what);
  assert.ok(line.answerMs < ANSWER_MS, what);
  assert.ok(line.maxLoopDelayMs < HELD_MS, what);
  // Rules within the bounds apply (`*.log`); those past them are skipped, which only shows more (`*.txt`).
  assert.deepEqual(line.files, expected.sort());
});
