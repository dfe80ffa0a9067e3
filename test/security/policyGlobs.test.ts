/**
 * The access policy's globs (secret, protected, written by tools) go through the glob automaton.
 * They must match exactly what they matched when minimatch read them: builtinGlobAnswers.json holds
 * minimatch's answers over the built-in lists and a corpus of tricky paths, recorded before it went.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { AccessPolicy } from '../../src/core/policy/accessPolicy';
import { PROTECTED_GLOBS } from '../../src/core/policy/protectedFiles';
import { DEFAULT_EXCLUDE_GLOBS } from '../../src/core/policy/secrets';
import { TOOL_FILE_GLOBS } from '../../src/core/policy/unaskedWrites';
import { MAX_BRACE_EXPANSIONS } from '../../src/core/glob/braces';
import { MAX_GLOB_CHARS } from '../../src/core/glob/globs';
import { GlobSet, SecretGuard } from '../../src/core/workspace/globSet';
import { startHeadlessHost } from '../../src/node/headless';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

interface Recorded {
  readonly paths: readonly string[];
  readonly answers: Record<'secret' | 'protected' | 'tool', Record<string, string>>;
}
const recorded = JSON.parse(fs.readFileSync(path.join(__dirname, 'builtinGlobAnswers.json'), 'utf8')) as Recorded;

/**
 * Where the automaton is stricter than minimatch was: minimatch's `**` never read a `.` folder, so
 * `deep/./.env` was no secret; the policy resolves such a path before it asks, and the answer now
 * errs on the safe side.
 */
const STRICTER: Record<string, Record<string, string>> = {
  secret: { 'deep/./.env': '**/.env*' },
  tool: { 'deep/./.env': '**/.*' },
};

/** How many globs each list had when the answers were recorded; later ones are additions. */
const RECORDED_GLOBS: Record<keyof Recorded['answers'], number> = { secret: 75, protected: Infinity, tool: 33 };

test('the built-in secret, protected and tool-file globs match exactly what minimatch matched', () => {
  const lists = { secret: DEFAULT_EXCLUDE_GLOBS, protected: PROTECTED_GLOBS, tool: TOOL_FILE_GLOBS };
  assert.ok(recorded.paths.length > 1000);
  for (const [name, globs] of Object.entries(lists) as [keyof Recorded['answers'], readonly string[]][]) {
    const set = new GlobSet(globs);
    assert.deepEqual(set.refused, [], name);
    const added = new Set(globs.slice(RECORDED_GLOBS[name]));
    for (const p of recorded.paths) {
      const expected = STRICTER[name]?.[p] ?? recorded.answers[name][p];
      const actual = set.match(p);
      // A path no recorded glob matched may be matched by a glob added to the list since.
      if (expected === undefined && actual !== undefined && added.has(actual)) continue;
      assert.equal(actual, expected, `${name}: ${JSON.stringify(p)}`);
    }
  }
});

test('globs as VS Code-style settings write them mean what they meant to minimatch', () => {
  const paths = ['a/x', 'b/x', 'c/x', 'd/x', '{a}', 'a', '{}', 'f1.txt', 'f2.txt', 'f4.txt', 'g01', 'g1', 'g03', 'x/ac', 'x/bd', 'x/ab', '*.txt', 'a.txt', 'lit{a,b}', 'lita', 'k.pem', 'k.KEY', 'z/k.crt', 'abs/x', 'rel/y', 'rel/y/z', 'dir/f', 'double', 'neg', 'xb', 'ab', 'ab.md', 'a.md', 'ÉB.MD', 'e\u0301x.md', '{a,b', 'a}b', 'n\nm/secret/v', 'Config/A.YML'];
  // What minimatch (dot, nocase, with the folder-covers-contents and anchoring rules) matched.
  const matched: Record<string, string[]> = {
    '**/secret/**': ['n\nm/secret/v'],
    'config/*.yml': ['Config/A.YML'],
    '[abc]*.txt': ['a.txt'],
    // A negation matches every path, `neg` too: as a folder, its contents (`neg/x`) are not `neg`.
    '!neg': paths,
    '!!double': ['double'],
    '{a,{b,c}}/x': ['a/x', 'b/x', 'c/x', 'a'],
    'f{1..3}.txt': ['f1.txt', 'f2.txt'],
    'g{01..03}': ['g01', 'g03'],
    '{a}': ['{a}'],
    '{}': ['{}'],
    '{a,b': ['{a,b'],
    'a}b': ['a}b'],
    'x/{a,b}{c,d}': ['x/ac', 'x/bd'],
    '\\*.txt': ['*.txt'],
    'lit\\{a,b\\}': ['lit{a,b}'],
    '**/*.{pem,{key,crt}}': ['k.pem', 'k.KEY', 'z/k.crt'],
    '/abs/x': ['abs/x'],
    './rel/y': ['rel/y', 'rel/y/z'],
    'dir/': ['dir/f'],
    '[!a]b': ['xb'],
    '??.md': ['ab.md', 'ÉB.MD', 'e\u0301x.md'],
    'É*.md': ['ÉB.MD', 'e\u0301x.md'],
  };
  for (const [glob, expected] of Object.entries(matched)) {
    const set = new GlobSet([glob]);
    assert.deepEqual(set.refused, [], glob);
    assert.deepEqual(paths.filter((p) => set.match(p) !== undefined), expected, glob);
  }
});

test('minimatch-only syntax ripgrep reads otherwise (extglobs, POSIX classes) is refused, not read differently', () => {
  for (const glob of ['**/*.@(pem|key)', 'a/!(keep)/x', 'a/+(b)', '**/*.[[:alpha:]]']) {
    const set = new GlobSet([glob]);
    assert.equal(set.refused.length, 1, glob);
    assert.equal(set.refused[0]?.glob, glob);
  }
  assert.match(new GlobSet(['**/*.@(pem|key)']).refused[0]?.reason ?? '', /extglob/);
  // A leading `!` negates, as in minimatch, whatever follows; a parenthesis that opens no group is a name character.
  assert.deepEqual(new GlobSet(['!(keep)/x']).refused, []);
  assert.equal(new GlobSet(['**/photo (1).jpg']).match('a/photo (1).jpg'), '**/photo (1).jpg');
});

test('a glob the engine refuses makes every path match it (fail closed), and says why', () => {
  const tooLong = `**/${'a'.repeat(MAX_GLOB_CHARS)}`;
  const tooMany = '{a,b}'.repeat(Math.log2(MAX_BRACE_EXPANSIONS) + 1);
  for (const bad of ['**/[abc', 'key\\', tooLong, tooMany, '**/*.@(pem|key)']) {
    const guard = new SecretGuard(['**/*.pem', bad]);
    assert.deepEqual(guard.refused.map((r) => r.glob), [bad]);
    assert.ok((guard.refused[0]?.reason ?? '') !== '');
    for (const p of ['src/app.ts', 'README.md', 'k.pem', 'a/b/c']) {
      assert.equal(guard.isSecret(p), true, `${bad}: ${p}`);
      assert.equal(guard.match(p), bad);
    }
  }
  // A protected glob the same way: every write asks.
  assert.equal(new GlobSet(['[unclosed']).match('src/app.ts'), '[unclosed');
});

test('the policy refuses every file while a secret glob is refused, and reads them again once it is fixed', () => {
  const root = makeTree({ 'src/app.ts': 'export const x = 1;\n' }, 'ab-refused-glob-');
  try {
    const broken = new AccessPolicy(new NodeWorkspace(root, { secrets: new SecretGuard(['**/*.pem', '**/[abc']) }));
    assert.deepEqual(broken.classify('src/app.ts'), { kind: 'secret', rule: '**/[abc', matched: 'src/app.ts' });
    const fixed = new AccessPolicy(new NodeWorkspace(root, { secrets: new SecretGuard(['**/*.pem', '**/[abc]']) }));
    assert.deepEqual(fixed.classify('src/app.ts'), { kind: 'normal' });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the headless host says which glob it cannot read, and what that does', () => {
  const root = makeTree({ 'src/app.ts': 'export const x = 1;\n' }, 'ab-refused-headless-');
  const warned: string[] = [];
  const log = { info: () => {}, debug: () => {}, error: () => {}, warn: (m: string) => warned.push(m) };
  // Nothing listens on port 9: the host retries in the background until stopped.
  const host = startHeadlessHost({ serverUrl: 'ws://127.0.0.1:9', workspace: root, log, stateDir: false, excludeGlobs: ['**/[abc'], protectedGlobs: ['x'.repeat(MAX_GLOB_CHARS + 1)] });
  try {
    assert.equal(host.secrets.isSecret('src/app.ts'), true);
    assert.ok(warned.some((m) => m.includes("secret glob '**/[abc'") && m.includes('every file counts as secret')), warned.join('\n'));
    assert.ok(warned.some((m) => m.includes('protected glob') && m.includes('longer than')), warned.join('\n'));
  } finally {
    host.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the automaton reads a folder holding a newline, and matches letters and Unicode forms without case', () => {
  const guard = new SecretGuard(DEFAULT_EXCLUDE_GLOBS);
  for (const p of ['a\nb/.env', 'x\n/.ssh/k', '.GIT/CONFIG', 'Keys/SERVER.Pem', 'caf\u00e9/.env', 'cafe\u0301/.env']) assert.equal(guard.isSecret(p), true, JSON.stringify(p));
  const accented = new GlobSet(['**/Caf\u00e9-[A-C].key']);
  for (const p of ['x/CAF\u00c9-b.KEY', 'x/cafe\u0301-c.key']) assert.equal(accented.match(p), '**/Caf\u00e9-[A-C].key', p);
  assert.equal(accented.match('x/cafe-b.key'), undefined);
});
