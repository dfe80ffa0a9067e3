import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { search } from '../../src/core/search';
import { MAX_LIMIT } from '../../src/core/search/types';
import { grepFileTool, searchParams } from '../../src/core/tools/grepFile';
import { textSearchTool } from '../../src/core/tools/textSearch';
import type { Workspace } from '../../src/core/workspace/workspace';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { buildRichTree, callTool, filesOf, hits, RG, structured, workspaces } from '../support/searchFixtures';
import { isAlive, pidRecordingWrapper } from '../support/processes';
import { failsWith } from '../support/tools';
import { waitUntil } from '../support/waitUntil';

const { root, outside } = buildRichTree();
const ws = workspaces(root);
const ENGINES: Array<[string, Workspace]> = [
  ['ripgrep', ws.rg],
  ['fallback', ws.fb],
];

const grep = (w: Workspace, params: Record<string, unknown>, signal?: AbortSignal) =>
  callTool(grepFileTool, w, params, signal);

for (const [engine, w] of ENGINES) {
  void test(`[${engine}] literal search: regex characters are plain text`, async () => {
    const out = await grep(w, { pattern: 'a.c', relativePath: 'special-chars.txt' });
    assert.deepEqual(hits(out), ['special-chars.txt:1']);
    assert.equal(structured(out).files[0]?.matches[0]?.column, 1);
    const brackets = await grep(w, { pattern: '[x] (y) $z ^w' });
    assert.deepEqual(hits(brackets), ['special-chars.txt:1']);
  });

  void test(`[${engine}] regex search`, async () => {
    const out = await grep(w, { pattern: 'a.c', regex: true, relativePath: 'special-chars.txt' });
    assert.deepEqual(hits(out), ['special-chars.txt:1']);
    const calls = await grep(w, { pattern: 'foo\\(\\d{2}\\)', regex: 'true' });
    assert.deepEqual(hits(calls), ['special-chars.txt:2']);
    assert.equal(structured(calls).files[0]?.matches[0]?.column, 8);
    assert.match(calls.result, /\(regex, case-insensitive\)/);
  });

  void test(`[${engine}] case-insensitive by default, case-sensitive on request`, async () => {
    const insensitive = await grep(w, { pattern: 'todo lower', relativePath: 'src' });
    assert.deepEqual(hits(insensitive), ['src/app.ts:3']);
    const upper = await grep(w, { pattern: 'TODO LOWER', relativePath: 'src' });
    assert.deepEqual(hits(upper), ['src/app.ts:3']);
    const sensitive = await grep(w, { pattern: 'TODO LOWER', relativePath: 'src', case_sensitive: true });
    assert.equal(structured(sensitive).totalMatches, 0);
    const unicode = await grep(w, { pattern: 'école', relativePath: 'unicode.txt' });
    assert.deepEqual(hits(unicode), ['unicode.txt:3']);
  });

  void test(`[${engine}] context lines: before, after, merged groups and separators`, async () => {
    const out = await grep(w, { pattern: 'TODO', relativePath: 'a.txt', context_lines: 1 });
    const s = structured(out);
    assert.deepEqual(
      s.files[0]?.matches.map((m) => ({ line: m.line, before: m.before, after: m.after })),
      [
        { line: 2, before: ['alpha'], after: ['beta'] },
        { line: 6, before: ['delta'], after: ['epsilon'] },
      ],
    );
    assert.ok(out.result.includes('1- alpha\n2: TODO a one\n3- beta\n--\n5- delta\n6: TODO a two\n7- epsilon\n'), out.result);
    const merged = await grep(w, { pattern: 'TODO', relativePath: 'src/deep/file.txt', context_lines: 2 });
    assert.ok(merged.result.includes('5- five\n6- six\n7: seven TODO\n8- eight\n'), merged.result);
    assert.ok(!merged.result.includes('--'), 'groups 2±2 and 7±2 touch: no separator');
  });

  void test(`[${engine}] limit: total counted, first matches by path then line, and how to see more`, async () => {
    const out = await grep(w, { pattern: 'tail x', relativePath: 'src/many', limit: '5' });
    const s = structured(out);
    assert.equal(s.totalMatches, 30);
    assert.equal(s.totalFiles, 30);
    assert.equal(s.returnedMatches, 5);
    assert.equal(s.truncated, true);
    assert.deepEqual(hits(out), [0, 1, 2, 3, 4].map((i) => `src/many/f0${i}.txt:3`));
    assert.match(out.result, /\*\*Matches\*\*: 30 lines in 30 files/);
    assert.match(out.result, /the first 5 .*25 more not shown.*raise `limit`.*narrow `relativePath`/);
    const all = await grep(w, { pattern: 'tail x', relativePath: 'src/many', limit: 30 });
    assert.equal(structured(all).truncated, false);
    assert.doesNotMatch(all.result, /not shown/);
  });

  void test(`[${engine}] a limit above the maximum is lowered, with a note`, async () => {
    const out = await grep(w, { pattern: 'zzzz-none', limit: 5000, context_lines: 500 });
    assert.equal(structured(out).limit, MAX_LIMIT);
    assert.equal(structured(out).contextLines, 50);
    assert.match(out.result, /limit 5000 was lowered to 1000/);
  });

  void test(`[${engine}] file_type: names, extensions, lists`, async () => {
    assert.deepEqual(filesOf(await grep(w, { pattern: 'TODO', file_type: 'java' })), ['src/Main.java']);
    assert.deepEqual(filesOf(await grep(w, { pattern: 'TODO', file_type: '.ts' })), ['src/app.ts']);
    assert.deepEqual(filesOf(await grep(w, { pattern: 'TODO', file_type: 'python' })), ['src/tool.py']);
    assert.deepEqual(filesOf(await grep(w, { pattern: 'TODO', file_type: 'java, py' })), ['src/Main.java', 'src/tool.py']);
    assert.deepEqual(filesOf(await grep(w, { pattern: 'TODO', file_type: '*.md' })), ['docs/readme.md']);
    assert.ok(filesOf(await grep(w, { pattern: 'TODO', file_type: 'all', limit: 100 })).length > 20);
    await failsWith(grep(w, { pattern: 'TODO', file_type: '../x' }), 'VALIDATION_FAILED', /file_type/);
  });

  void test(`[${engine}] relativePath: a file, a folder, the whole project`, async () => {
    assert.deepEqual(hits(await grep(w, { pattern: 'TODO', relativePath: 'src/deep/file.txt' })), [
      'src/deep/file.txt:2',
      'src/deep/file.txt:7',
    ]);
    assert.deepEqual(filesOf(await grep(w, { pattern: 'TODO', relativePath: 'src/deep/' })), [
      'src/deep/file.txt',
      'src/deep/more/only-here.txt',
    ]);
    const whole = await grep(w, { pattern: 'TODO', relativePath: '', limit: 100 });
    assert.ok(filesOf(whole).includes('src/deep/file.txt') && filesOf(whole).includes('a.txt'));
    assert.match(whole.result, /^## Search: `TODO` in the project\n/);
    const dot = await grep(w, { pattern: 'TODO', relativePath: '.', limit: 100 });
    assert.deepEqual(structured(dot).files, structured(whole).files);
  });

  void test(`[${engine}] .gitignore, .ignore, .rgignore and .git/info/exclude are honoured without a git repository`, async () => {
    const files = filesOf(await grep(w, { pattern: 'TODO', limit: 1000 }));
    for (const ignored of [
      'a.log',
      'sub/x.log',
      'build/out.txt',
      'src/build/y.txt',
      'rootonly.txt',
      'docs/c.tmp',
      'docs/a/b.tmp',
      'gen/g.txt',
      'out/o.txt',
      'trailing-space.txt ',
      '#hash.txt',
      'sp ace.txt',
      'brack[et].txt',
      'ignored-by-dot-ignore.txt',
      'excluded-by-info.txt',
      'src/local.txt',
      'src/deep/only-here.txt',
    ]) {
      assert.ok(!files.includes(ignored), `${ignored} should be ignored`);
    }
    for (const kept of ['keep.log', 'special.log', 'src/z.log', 'src/rootonly.txt', 'src/deep/more/only-here.txt']) {
      assert.ok(files.includes(kept), `${kept} should be searched`);
    }
  });

  void test(`[${engine}] the root's ignore files still apply when searching a subfolder`, async () => {
    const files = filesOf(await grep(w, { pattern: 'TODO', relativePath: 'src', limit: 1000 }));
    assert.ok(!files.includes('src/build/y.txt'), 'build/ from the root .gitignore');
    assert.ok(!files.includes('src/local.txt'));
    assert.ok(files.includes('src/z.log'), 'src/.gitignore re-includes *.log');
    assert.ok(files.includes('src/rootonly.txt'));
    const deep = filesOf(await grep(w, { pattern: 'TODO', relativePath: 'src/deep', limit: 1000 }));
    assert.deepEqual(deep, ['src/deep/file.txt', 'src/deep/more/only-here.txt']);
  });

  void test(`[${engine}] a file or folder named explicitly is searched even when ignored`, async () => {
    assert.deepEqual(hits(await grep(w, { pattern: 'TODO', relativePath: 'a.log' })), ['a.log:1']);
    assert.deepEqual(filesOf(await grep(w, { pattern: 'TODO', relativePath: 'build' })), ['build/out.txt']);
  });

  void test(`[${engine}] exclusion globs are honoured, with VS Code's anchoring`, async () => {
    const files = filesOf(await grep(w, { pattern: 'TODO', limit: 1000 }));
    for (const excluded of [
      'node_modules/pkg/index.js',
      'src/node_modules/pkg/index.js',
      'lib/app.min.js',
      'src/styles.min.js',
      'root-excluded.txt',
    ]) {
      assert.ok(!files.includes(excluded), `${excluded} should be excluded`);
    }
    assert.ok(files.includes('src/root-excluded.txt'), 'a glob without **/ only applies at the root');
  });

  void test(`[${engine}] hidden files are searched, .git and secret files (.env, by default) never`, async () => {
    const files = filesOf(await grep(w, { pattern: 'TODO', limit: 1000 }));
    assert.ok(!files.includes('.env'), 'a workspace that names no secret globs gets the defaults');
    assert.ok(files.includes('.github/workflows/ci.yml'));
    assert.ok(!files.some((f) => f.startsWith('.git/')));
  });

  void test(`[${engine}] binary files are skipped, a named one is reported as binary`, async () => {
    const files = filesOf(await grep(w, { pattern: 'TODO', limit: 1000 }));
    assert.ok(!files.includes('binary.dat'));
    assert.ok(!files.includes('late-nul.txt'), 'a NUL byte anywhere makes a file binary');
    const named = await grep(w, { pattern: 'TODO', relativePath: 'binary.dat' });
    assert.equal(structured(named).totalMatches, 0);
    assert.equal(structured(named).binaryFile, true);
    assert.match(named.result, /binary\.dat is a binary file/);
  });

  void test(`[${engine}] files over the size limit are skipped while walking, searched when named`, async () => {
    const walked = await grep(w, { pattern: 'TODO huge', limit: 10 });
    assert.deepEqual(filesOf(walked), []);
    assert.match(walked.result, /files over 20 MB were not searched/, 'the skip is said, not silent');
    const named = await grep(w, { pattern: 'TODO huge', relativePath: 'huge.txt', limit: 2 });
    assert.equal(structured(named).totalMatches, 260_000);
    assert.deepEqual(hits(named), ['huge.txt:1', 'huge.txt:3']);
  });

  void test(`[${engine}] encodings: BOMs, UTF-16, CRLF, invalid UTF-8, astral characters`, async () => {
    assert.deepEqual(hits(await grep(w, { pattern: '^TODO with', regex: true })), ['utf8bom.txt:1']);
    assert.deepEqual(hits(await grep(w, { pattern: 'utf-16' })), ['utf16be.txt:1', 'utf16le.txt:1']);
    assert.deepEqual(hits(await grep(w, { pattern: 'café todo', relativePath: 'utf16le.txt' })), ['utf16le.txt:2']);
    const crlf = await grep(w, { pattern: 'foo$', regex: true, relativePath: 'crlf.txt' });
    assert.equal(structured(crlf).totalMatches, 0, "'$' does not match before '\\r', as in ripgrep");
    const crlfText = await grep(w, { pattern: 'crlf' });
    assert.equal(structured(crlfText).files[0]?.matches[0]?.text, 'TODO crlf foo', 'no \\r shown');
    const invalid = await grep(w, { pattern: 'TODO invalid' });
    assert.equal(structured(invalid).files[0]?.matches[0]?.text, 'caf\ufffd\ufffd TODO invalid');
    assert.equal(structured(invalid).files[0]?.matches[0]?.column, 7);
    const emoji = await grep(w, { pattern: 'after emoji' });
    assert.equal(structured(emoji).files[0]?.matches[0]?.column, 11, 'columns count UTF-16 code units');
  });

  void test(`[${engine}] symbolic links are not followed, links out of the project are refused`, async () => {
    const files = filesOf(await grep(w, { pattern: 'TODO', limit: 1000 }));
    assert.ok(!files.some((f) => f.startsWith('link')), files.join(', '));
    await failsWith(grep(w, { pattern: 'TODO', relativePath: 'link-out' }), 'PERMISSION_DENIED');
    await failsWith(grep(w, { pattern: 'TODO', relativePath: 'link-out-secret.txt' }), 'PERMISSION_DENIED');
    await failsWith(grep(w, { pattern: 'TODO', relativePath: '../x' }), 'PERMISSION_DENIED');
    await failsWith(grep(w, { pattern: 'TODO', relativePath: outside }), 'PERMISSION_DENIED');
    // A link inside the project, named explicitly, leads to its real place.
    assert.deepEqual(hits(await grep(w, { pattern: 'TODO a one', relativePath: 'link-to-a.txt' })), ['a.txt:2']);
  });

  void test(`[${engine}] errors: invalid regex, missing path, bad params`, async () => {
    await failsWith(grep(w, { pattern: '(unclosed', regex: true }), 'VALIDATION_FAILED', /^Invalid regular expression/);
    assert.equal(structured(await grep(w, { pattern: '(unclosed' })).totalMatches, 0, 'as a literal it is fine');
    await failsWith(grep(w, { pattern: 'TODO', relativePath: 'no/such/dir' }), 'NOT_FOUND', /no\/such\/dir/);
    await failsWith(grep(w, { pattern: 'TODO', relativePath: 'src/Nope.java' }), 'NOT_FOUND');
    await failsWith(grep(w, { pattern: 'a\nb' }), 'VALIDATION_FAILED', /single line/);
  });

  void test(`[${engine}] no match is a success with a clear sentence`, async () => {
    const out = await grep(w, { pattern: 'zzz-nothing', relativePath: 'src' });
    assert.equal(
      out.result,
      '## Search: `zzz-nothing` in src\nNo matches for `zzz-nothing` in src (literal, case-insensitive).\n_Note: files over 20 MB were not searched; name one in relativePath to search it._\n',
    );
    assert.equal(structured(out).totalMatches, 0);
    assert.deepEqual(structured(out).files, []);
  });

  void test(`[${engine}] Markdown: header, per-file fences, language, backticks, long lines`, async () => {
    const out = await grep(w, { pattern: 'TODO', file_type: 'java', context_lines: 1 });
    assert.equal(
      out.result,
      [
        '## Search: `TODO` in the project',
        '**Matches**: 1 line in 1 file (literal, case-insensitive, file type: java)',
        '',
        '### src/Main.java',
        '```java',
        '5- class Main {',
        '6:   // TODO: fix foo(1)',
        '7-   void foo(int x) {}',
        '```',
        '',
      ].join('\n'),
    );
    const ticks = await grep(w, { pattern: '```' });
    assert.match(ticks.result, /^## Search: ```` ``` ```` in the project/);
    assert.match(ticks.result, /\n````markdown\n2: TODO document ``` fences `` here\n````\n/);
    const long = await grep(w, { pattern: 'middle of a long line' });
    const text = structured(long).files[0]?.matches[0]?.text ?? '';
    assert.ok(text.length <= 402 && text.startsWith('…') && text.endsWith('…') && text.includes('middle of a long line'));
    assert.equal(structured(long).files[0]?.matches[0]?.column, 3007);
  });

  void test(`[${engine}] cancellation stops the search`, async () => {
    const ac = new AbortController();
    ac.abort();
    await failsWith(grep(w, { pattern: 'TODO' }, ac.signal), 'CANCELLED');
  });
}

void test('the params: strings for numbers and booleans, null as absent, extra keys ignored', () => {
  const p = searchParams.parse({
    pattern: 'x',
    limit: '20',
    context_lines: '2',
    regex: 'true',
    case_sensitive: null,
    file_type: null,
    projectKey: 'autoloop',
    webSocketSessionId: 'abc',
  });
  assert.deepEqual(p, {
    pattern: 'x',
    regex: true,
    case_sensitive: false,
    context_lines: 2,
    limit: 20,
    file_type: 'all',
  });
  assert.equal(searchParams.safeParse({ pattern: '' }).success, false);
  assert.equal(searchParams.safeParse({}).success, false);
  assert.equal(searchParams.safeParse({ pattern: 'x', limit: 0 }).success, false);
  assert.equal(searchParams.safeParse({ pattern: 'x', context_lines: -1 }).success, false);
  assert.equal(searchParams.safeParse({ pattern: 'x', limit: 'many' }).success, false);
});

void test('text_search is the same tool under another name', async () => {
  assert.equal(textSearchTool.name, 'text_search');
  assert.equal(grepFileTool.name, 'grep_file');
  assert.equal(textSearchTool.writes, false);
  const out = await callTool(textSearchTool, ws.rg, { pattern: 'TODO python' });
  assert.deepEqual(hits(out), ['src/tool.py:2']);
});

void test('results are deterministic: the same answer on every run', async () => {
  const first = await grep(ws.rg, { pattern: 'TODO', limit: 1000 });
  for (let i = 0; i < 3; i++) assert.deepEqual(await grep(ws.rg, { pattern: 'TODO', limit: 1000 }), first);
});

void test('a catastrophic regular expression does not hang: the fallback stops when cancelled', async () => {
  const dir = makeTree({ 'evil.txt': `${'a'.repeat(40)}b\n` });
  const w = new NodeWorkspace(dir, { ripgrep: false });
  const ac = new AbortController();
  let ticks = 0;
  const timer = setInterval(() => ticks++, 20);
  const started = Date.now();
  setTimeout(() => ac.abort(), 300);
  try {
    await failsWith(grep(w, { pattern: '^(a+)+$', regex: true }, ac.signal), 'CANCELLED');
  } finally {
    clearInterval(timer);
  }
  assert.ok(Date.now() - started < 3000, 'stopped soon after the abort');
  assert.ok(ticks >= 5, 'the event loop kept running during the match');
});

void test('a search over its time budget stops with TIMEOUT and says what to do', async () => {
  const dir = makeTree({ 'evil.txt': `${'a'.repeat(40)}b\n` });
  const w = new NodeWorkspace(dir, { ripgrep: false });
  const started = Date.now();
  const options = { pattern: '^(a+)+$', regex: true, caseSensitive: false, contextLines: 0, limit: 20, fileType: 'all' };
  await failsWith(search(w, { ...options, timeoutMs: 300 }, new AbortController().signal), 'TIMEOUT', /stopped after 0\.3 s.*\(a\+\)\+/);
  assert.ok(Date.now() - started < 3000);
});

void test('ripgrep is killed when the call is cancelled', async () => {
  assert.ok(RG, 'ripgrep on PATH');
  const dir = makeTree({ 'a.txt': 'needle\n' });
  // Also given a FIFO no one writes to, this ripgrep never ends by itself: only a kill ends it.
  const fifo = path.join(makeTree({}, 'ab-fifo-'), 'never-written');
  execFileSync('mkfifo', [fifo]);
  const rg = pidRecordingWrapper(RG, [fifo]);
  const w = new NodeWorkspace(dir, { ripgrep: rg.command });
  const ac = new AbortController();
  const p = grep(w, { pattern: 'needle' }, ac.signal);
  await waitUntil(() => fs.existsSync(rg.pidFile) && fs.readFileSync(rg.pidFile, 'utf8').trim(), 'ripgrep to start', 5000);
  const pid = Number(fs.readFileSync(rg.pidFile, 'utf8'));
  ac.abort();
  try {
    const notKilled = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`ripgrep (pid ${pid}) still running 5 s after the cancel`)), 5000).unref());
    await Promise.race([failsWith(p, 'CANCELLED'), notKilled]);
    await waitUntil(() => !isAlive(pid), `ripgrep (pid ${pid}) to be gone`, 2000);
  } finally {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL'); // so a failure does not leave the test file hanging
  }
});

void test('a ripgrep that cannot start falls back to the in-process search', async () => {
  const w = new NodeWorkspace(root, { ripgrep: path.join(root, 'no-such-rg') });
  const out = await grep(w, { pattern: 'TODO python' });
  assert.deepEqual(hits(out), ['src/tool.py:2']);
});

void test('the ignore rules also apply in a real git repository, and only inside the project', async () => {
  const parent = makeTree({ '.gitignore': '*\n', 'project/.git/HEAD': 'ref\n', 'project/a.txt': 'needle\n' });
  for (const w of Object.values(workspaces(path.join(parent, 'project'), []))) {
    assert.deepEqual(hits(await grep(w, { pattern: 'needle' })), ['a.txt:1'], 'a .gitignore above the project is not read');
  }
});
