/**
 * Hostile globs against the in-process search (no ripgrep): globs that backtrack in a RegExp
 * (`a/**\/a/**\/…/b` on a deep chain of `a` folders, `{a,a}` repeated on a long name of `a`s) and
 * globs so long that compiling them holds the host (one 1 MB ignore line). They come from a
 * repository's ignore files, from its workspace's `files.exclude`, and reach the explicit rules of a
 * search narrowed by the `relativePath` param. The search runs in a child process (see
 * searchIgnoreProbe.ts) so that a frozen event loop fails the test instead of hanging it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { NameMatcher } from '../../src/core/glob/globAutomaton';
import { GlobError, MAX_GLOB_CHARS } from '../../src/core/glob/globs';
import { entryBudget, GitignoreMatcher } from '../../src/core/search/ignore';
import type { SearchProbeLine } from '../support/searchIgnoreProbe';
import { runSearchProbe } from '../support/searchProbe';

const WATCHDOG_MS = 90_000;
const ANSWER_MS = 20_000;
/** The longest the host's event loop may be held at once. */
const HELD_MS = 500;

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function runProbe(root: string, options: { excludes?: string[]; params?: Record<string, unknown> }): Promise<{ line?: SearchProbeLine; killed: boolean; code: number | null; stderr: string }> {
  // Beside the project, not in it: a megabyte glob is too long for the command line.
  const optionsFile = `${root}.options.json`;
  fs.writeFileSync(optionsFile, JSON.stringify(options));
  roots.push(optionsFile);
  return runSearchProbe([root, 'needle', optionsFile], WATCHDOG_MS);
}

/** `a/**\/a/**\/…/**\/b`: eleven `**` that backtrack on a deep chain of `a` folders. */
const DEEP_STARS = `${Array.from({ length: 11 }, () => 'a').join('/**/')}/**/b`;
/** `{a,a}` 34 times, then `b`: no `*` at all, and it doubles its backtracking per group. */
const TWIN_BRANCHES = `${'{a,a}'.repeat(34)}b`;
/** One line of about a megabyte: compiling it at all holds the host. */
const HUGE = (seed: string): string => `${seed}${'{a,b}'.repeat(200_000)}z`;

/** A project whose files sit where the hostile globs are tried: a chain of 44 `a` folders and a long name of `a`s. */
function project(prefix: string): { root: string; expected: string[] } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  roots.push(root);
  const deep = path.join(root, 'src', ...Array.from({ length: 44 }, () => 'a'));
  fs.mkdirSync(deep, { recursive: true });
  fs.writeFileSync(path.join(deep, 'deep.txt'), 'needle\n');
  const long = `${'a'.repeat(34)}c.txt`;
  fs.writeFileSync(path.join(root, 'src', long), 'needle\n');
  fs.writeFileSync(path.join(root, 'src', 'gone.log'), 'needle\n');
  return { root, expected: [`src/${Array.from({ length: 44 }, () => 'a').join('/')}/deep.txt`, `src/${long}`] };
}

async function assertAnswered(root: string, options: { excludes?: string[]; params?: Record<string, unknown> }, expected: string[]): Promise<void> {
  const run = await runProbe(root, options);
  assert.ok(!run.killed, `the search was still running after ${WATCHDOG_MS} ms`);
  assert.equal(run.code, 0, `the probe failed: ${run.stderr}`);
  const line = run.line as SearchProbeLine;
  const what = `answer ${Math.round(line.answerMs)} ms, loop held ${Math.round(line.maxLoopDelayMs)} ms, ${line.code ?? 'ok'} ${line.error ?? ''}`;
  assert.equal(line.success, true, what);
  assert.ok(line.answerMs < ANSWER_MS, what);
  assert.ok(line.maxLoopDelayMs < HELD_MS, what);
  assert.deepEqual(line.files, [...expected].sort());
}

test('backtracking and huge globs in ignore files neither hold the host nor change the answer', { timeout: WATCHDOG_MS + 30_000 }, async () => {
  const { root, expected } = project('ab-glob-ignore-');
  // The hostile lines sit in every ignore file of `src` and of the folders it holds, with one honest line.
  const lines = [DEEP_STARS, TWIN_BRANCHES, HUGE('x'), '*.log'];
  fs.writeFileSync(path.join(root, 'src', '.gitignore'), `${lines.join('\n')}\n`);
  fs.writeFileSync(path.join(root, 'src', '.ignore'), `${HUGE('y')}\n`);
  fs.writeFileSync(path.join(root, 'src', '.rgignore'), `${HUGE('w')}\n`);
  fs.writeFileSync(path.join(root, 'src', 'a', '.gitignore'), `${HUGE('v')}\n${DEEP_STARS}\n`);
  await assertAnswered(root, {}, expected);
});

test('backtracking and huge globs in the workspace files.exclude neither hold the host nor change the answer', { timeout: WATCHDOG_MS + 30_000 }, async () => {
  const { root, expected } = project('ab-glob-exclude-');
  const excludes = [`src/${DEEP_STARS}`, `**/${TWIN_BRANCHES}`, HUGE('**/x'), HUGE('**/y'), '**/*.log'];
  await assertAnswered(root, { excludes }, expected);
});

test('backtracking and huge globs reached through the relativePath and file_type params neither hold the host nor change the answer', { timeout: WATCHDOG_MS + 30_000 }, async () => {
  const { root, expected } = project('ab-glob-param-');
  // Narrowed to `src/a`, the root's and `src`'s ignore files become the search's explicit rules.
  fs.writeFileSync(path.join(root, '.gitignore'), `${HUGE('x')}\nsrc/${DEEP_STARS}\n`);
  fs.writeFileSync(path.join(root, 'src', '.gitignore'), `${HUGE('y')}\n${TWIN_BRANCHES}\n`);
  fs.writeFileSync(path.join(root, 'src', '.ignore'), `${HUGE('u')}\n`);
  await assertAnswered(root, { params: { relativePath: 'src/a', file_type: 'txt' } }, expected.filter((f) => f.startsWith('src/a/')));
});

test('the glob matchers answer the backtracking globs at once, and refuse an over-long glob with a clear error', () => {
  const deepPath = `${Array.from({ length: 44 }, () => 'a').join('/')}/x.txt`;
  const longName = `${'a'.repeat(34)}c.txt`;
  const started = performance.now();
  const rules = new GitignoreMatcher([DEEP_STARS, TWIN_BRANCHES]);
  assert.equal(rules.match(deepPath, false, entryBudget()), undefined);
  assert.equal(rules.match(longName, false, entryBudget()), undefined);
  assert.equal(rules.match(`${Array.from({ length: 44 }, () => 'a').join('/')}/b`, false, entryBudget()), 'ignore');
  assert.equal(rules.match(`${'a'.repeat(34)}b`, false, entryBudget()), 'ignore');
  // File-type globs were a RegExp: 26 groups (not 34) keep a test of a backtracking matcher finite.
  const twins = new NameMatcher([`${'{a,a}'.repeat(26)}b`]);
  assert.equal(twins.test(`${'a'.repeat(26)}c.txt`), false);
  assert.equal(twins.test(`${'a'.repeat(26)}b`), true);
  assert.ok(performance.now() - started < HELD_MS, `matching took ${Math.round(performance.now() - started)} ms`);
  assert.throws(() => new NameMatcher([`${'a'.repeat(MAX_GLOB_CHARS)}b`]), (e: unknown) => e instanceof GlobError && /longer than/.test(e.message));
  // An over-long ignore line is skipped; the honest one after it still applies.
  assert.equal(new GitignoreMatcher([HUGE('x'), '*.log']).match('x.log', false, entryBudget()), 'ignore');
});
