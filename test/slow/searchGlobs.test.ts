import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { runFallback } from '../../src/core/search/fallback';
import { fileTypeGlobs } from '../../src/core/search/fileTypes';
import { GlobAutomaton } from '../../src/core/glob/globAutomaton';
import { globToRegExp } from '../support/globRegExp';
import { explicitIgnoreLines, normalizeExcludes, rebaseIgnoreLine } from '../../src/core/search/ignore';
import { runRipgrep } from '../../src/core/search/ripgrep';
import type { EngineRequest, ResultSink } from '../../src/core/search/types';
import { comparePaths } from '../../src/core/search/types';
import { makeTree } from '../support/fixtures';
import { RG } from '../support/searchFixtures';

/**
 * The fallback's glob and gitignore code against ripgrep's own: for each pattern, used as a
 * .gitignore line and as an exclusion glob, both engines must search exactly the same files.
 */

const NAMES = [
  'a.txt', 'b.txt', 'c.txt', 'ab.txt', 'A.TXT', 'a/c.txt', 'a/b/c.txt', 'a/bb', 'a/x/b/y.md', 'b/c.txt',
  'docs/q.tmp', 'docs/a/b.tmp', 'deep/x/deep/z.txt', 'x-y', 'xy', 'x/y', '*.txt', ']x', '-', 'd1r/f',
  'dir/sub/f.md', ' lead.txt', 'trail.txt ', 'e.md', 'f.md.txt', '.hidden', '.dot/inner.txt', 'x{a,b}', 'q?',
];

const PATTERNS = [
  '*.txt', '/*.txt', 'a/**', 'a/**/b', '**/b', '**', 'a/*', '?.txt', '[ab].txt', '[!ab].txt', '[^ab].txt',
  '[a-c]*', '{a,b}/c.txt', 'a/**/*.md', 'x**y', '**/', 'a/', '*/', 'a/b/', 'docs/**/*.tmp', '\\*.txt',
  '**/deep/**', 'a/**/', 'd?r/', '*.{md,txt}', '{,a}.txt', '[]]x', '[-]', '[z-a]', 'a\\', 'x\\{a,b\\}',
  'q\\?', '\\ lead.txt', 'trail.txt\\ ', 'trail.txt ', '#not-a-comment', '\\#x', '\\!x', '!a.txt', 'dir/**/f.md',
  '**/*.md', 'deep/**/z.txt', '.*', '.dot/', 'a/**/**/c.txt', '**/**/c.txt', '*', '/', 'A.*', '{a,{b}}',
];

const root = makeTree(Object.fromEntries(NAMES.map((n) => [n, 'x\n'])), 'ab-globs-');

function request(over: Partial<EngineRequest>): EngineRequest {
  return {
    root: fs.realpathSync(root),
    target: '.',
    targetIsFile: false,
    pattern: 'x',
    regex: false,
    caseSensitive: false,
    contextLines: 0,
    perFileLimit: 1,
    typeGlobs: undefined,
    excludeGlobs: [],
    explicitIgnore: [],
    maxFileSize: 1 << 20,
    ...over,
  };
}

async function filesFound(engine: 'rg' | 'fb', req: EngineRequest): Promise<string[]> {
  const files: string[] = [];
  const sink: ResultSink = { wantDetails: () => true, addFile: (f) => void files.push(f.path) };
  const signal = new AbortController().signal;
  if (engine === 'rg') await runRipgrep(RG as string, req, sink, signal);
  else await runFallback(req, sink, signal);
  return files.sort(comparePaths);
}

void test('every pattern as a .gitignore line: the same files searched', async () => {
  for (const pattern of PATTERNS) {
    fs.writeFileSync(path.join(root, '.gitignore'), `${pattern}\n`);
    const req = request({});
    const a = await filesFound('rg', req);
    const b = await filesFound('fb', req);
    assert.deepEqual(b, a, `.gitignore line ${JSON.stringify(pattern)}`);
  }
  fs.rmSync(path.join(root, '.gitignore'));
});

void test('every pattern as a .gitignore line of a parent folder of the target: the same files searched', async () => {
  for (const pattern of PATTERNS) {
    fs.writeFileSync(path.join(root, 'a', '.gitignore'), `${pattern}\n!.gitignore\n`);
    const req = request({ target: 'a/x', explicitIgnore: await explicitIgnoreLines(fs.realpathSync(root), 'a/x') });
    assert.deepEqual(await filesFound('fb', req), await filesFound('rg', req), `a/.gitignore line ${JSON.stringify(pattern)}`);
    const req2 = request({ target: 'a' });
    assert.deepEqual(await filesFound('fb', req2), await filesFound('rg', req2), `a/.gitignore line ${JSON.stringify(pattern)}`);
  }
  fs.rmSync(path.join(root, 'a', '.gitignore'));
});

void test('every pattern as an exclusion glob: the same files searched', async () => {
  for (const pattern of PATTERNS) {
    const req = request({ excludeGlobs: normalizeExcludes([pattern]) });
    assert.deepEqual(await filesFound('fb', req), await filesFound('rg', req), `exclusion ${JSON.stringify(pattern)}`);
  }
});

void test('file types: the same files searched', async () => {
  for (const type of ['txt', 'md', 'java', '.tmp', 'md,txt']) {
    const req = request({ typeGlobs: fileTypeGlobs(type) });
    assert.deepEqual(await filesFound('fb', req), await filesFound('rg', req), `file_type ${type}`);
  }
});

void test('glob translation spot checks', () => {
  const m = (glob: string, p: string) => globToRegExp(glob).test(p);
  assert.ok(m('**/node_modules', 'node_modules') && m('**/node_modules', 'a/b/node_modules'));
  assert.ok(!m('**/node_modules', 'node_modules/x'));
  assert.ok(m('a/**/b', 'a/b') && m('a/**/b', 'a/x/y/b') && !m('a/**/b', 'ab'));
  assert.ok(m('*.ts', 'x.ts') && !m('*.ts', 'd/x.ts'));
  assert.ok(m('{a,b}.c', 'b.c') && m('[!x]', 'y') && !m('[!x]', 'x') && m('\\*', '*'));
  assert.throws(() => globToRegExp('{a'));
  assert.throws(() => globToRegExp('[z-a]'));
  assert.equal(rebaseIgnoreLine('*.log', 'src/a'), '/src/a/**/*.log');
  assert.equal(rebaseIgnoreLine('!/build/', 'x'), '!/x/build/');
  assert.equal(rebaseIgnoreLine('out/**', 'we[ir]d'), '/we\\[ir\\]d/out/**/*');
  assert.equal(rebaseIgnoreLine('# comment', 'x'), undefined);
  assert.deepEqual(normalizeExcludes(['./out/**', '/dist', '', '!x', '{bad']), [
    '/**/.git',
    '/**/.svn',
    '/**/.hg',
    '/out/**',
    '/dist',
  ]);
});

test('the glob automaton accepts exactly what the glob RegExp accepts (random globs and paths)', () => {
  const globParts = ['a', 'b', '/', '*', '?', '[', ']', '!', '-', '{', '}', ',', '\\', '.', '\n', 'é', '😀', '**/', '/**'];
  const pathParts = ['a', 'b', '/', '.', '\n', 'é', '😀', '-', ',', '*'];
  let seed = 12345;
  const pick = <T>(from: readonly T[]): T => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return from[seed % from.length] as T;
  };
  const lengths = [0, 1, 2, 3, 4, 5, 6, 7];
  let compared = 0;
  for (let i = 0; i < 20_000; i++) {
    const glob = Array.from({ length: pick(lengths) }, () => pick(globParts)).join('');
    let re: RegExp;
    try {
      re = globToRegExp(glob);
    } catch {
      continue;
    }
    const automaton = new GlobAutomaton(glob);
    for (let k = 0; k < 10; k++) {
      const p = Array.from({ length: pick(lengths) }, () => pick(pathParts)).join('');
      assert.equal(automaton.matches(p, { steps: 1e9 }), re.test(p), `glob ${JSON.stringify(glob)} on ${JSON.stringify(p)}`);
      compared++;
    }
  }
  assert.ok(compared > 50_000, `only ${compared} comparisons`);
});
