import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runFallback } from '../../src/core/search/fallback';
import { explicitIgnoreLines, normalizeExcludes } from '../../src/core/search/ignore';
import { runRipgrep } from '../../src/core/search/ripgrep';
import type { EngineRequest, FileResult, ResultSink } from '../../src/core/search/types';
import { grepFileTool } from '../../src/core/tools/grepFile';
import { textSearchTool } from '../../src/core/tools/textSearch';
import { buildRichTree, callTool, EXCLUDES, RG, structured, workspaces } from '../support/searchFixtures';

/**
 * The promise of the fallback: for the same request it answers exactly what ripgrep answers,
 * structured result and Markdown alike.
 */

const { root } = buildRichTree();
const ws = workspaces(root);

const COMBINATIONS: Array<Record<string, unknown>> = [
  { pattern: 'todo' },
  { pattern: 'TODO', case_sensitive: true, limit: 1000 },
  { pattern: 'todo', limit: 1000, context_lines: 2 },
  { pattern: 'TODO', limit: 7, context_lines: 1 },
  { pattern: 'x', limit: 3 },
  { pattern: 'foo\\(\\d+\\)', regex: true },
  { pattern: '^\\s*import', regex: true, file_type: 'ts' },
  { pattern: 'foo$', regex: true },
  { pattern: 'foo.$', regex: true },
  { pattern: 'TODO', file_type: 'java,py', context_lines: 3 },
  { pattern: 'todo', file_type: '.log', limit: 100 },
  { pattern: 'a.c' },
  { pattern: 'a.c', regex: true },
  { pattern: '[x] (y) $z ^w' },
  { pattern: 'é', limit: 100 },
  { pattern: 'école', case_sensitive: false },
  { pattern: 'café', case_sensitive: true },
  { pattern: 'after emoji' },
  { pattern: 'middle of a long line', context_lines: 1 },
  { pattern: '```' },
  { pattern: 'TODO', relativePath: 'src', limit: 1000 },
  { pattern: 'TODO', relativePath: 'src/deep', limit: 1000, context_lines: 1 },
  { pattern: 'TODO', relativePath: 'src/deep/file.txt', context_lines: 2 },
  { pattern: 'TODO', relativePath: 'build' },
  { pattern: 'TODO', relativePath: 'node_modules' },
  { pattern: 'TODO', relativePath: 'a.log' },
  { pattern: 'TODO', relativePath: 'huge.txt', limit: 3 },
  { pattern: 'TODO', relativePath: 'binary.dat' },
  { pattern: 'TODO', relativePath: 'utf16le.txt', context_lines: 1 },
  { pattern: '^$', regex: true, limit: 1000 },
  { pattern: 'o*', regex: true, limit: 50 },
  { pattern: 'nothing-matches-this' },
];

for (const params of COMBINATIONS) {
  void test(`ripgrep and the fallback agree: ${JSON.stringify(params)}`, async () => {
    const a = await callTool(grepFileTool, ws.rg, params);
    const b = await callTool(grepFileTool, ws.fb, params);
    assert.deepEqual(structured(b), structured(a));
    assert.equal(b.result, a.result);
  });
}

void test('text_search answers exactly what grep_file answers', async () => {
  for (const params of [{ pattern: 'todo', limit: 50 }, { pattern: 'TODO', relativePath: 'src' }]) {
    for (const w of [ws.rg, ws.fb]) {
      const a = await callTool(grepFileTool, w, params);
      const b = await callTool(textSearchTool, w, params);
      assert.deepEqual(b, a);
    }
  }
});

void test('an invalid regular expression is refused by both engines', async () => {
  for (const w of [ws.rg, ws.fb]) {
    await assert.rejects(callTool(grepFileTool, w, { pattern: 'a(b', regex: true }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'VALIDATION_FAILED');
      assert.match(e.message, /^Invalid regular expression/);
      return true;
    });
  }
});

/** Below the collector: every file, every match, every context line, no limit (what was found, not how the engine read it). */
async function everything(engine: 'rg' | 'fb', req: EngineRequest): Promise<Map<string, FileResult>> {
  const files = new Map<string, FileResult>();
  const sink: ResultSink = {
    wantDetails: () => true,
    addFile: ({ opened: _opened, ...f }) => {
      assert.ok(!files.has(f.path), `file reported twice: ${f.path}`);
      files.set(f.path, f);
    },
  };
  const signal = new AbortController().signal;
  if (engine === 'rg') await runRipgrep(RG as string, req, sink, signal);
  else await runFallback(req, sink, signal);
  return files;
}

void test('both engines report the same files, lines, columns and context, without any limit', async () => {
  const base = {
    root: ws.rg.root,
    targetIsFile: false,
    caseSensitive: false,
    perFileLimit: 1_000_000,
    typeGlobs: undefined,
    excludeGlobs: normalizeExcludes(EXCLUDES),
    maxFileSize: 20 * 1024 * 1024,
  };
  const requests: EngineRequest[] = [];
  for (const target of ['.', 'src', 'src/deep', 'docs']) {
    const explicitIgnore = await explicitIgnoreLines(ws.rg.root, target);
    requests.push(
      { ...base, target, explicitIgnore, pattern: 'todo', regex: false, contextLines: 2 },
      { ...base, target, explicitIgnore, pattern: '.', regex: true, contextLines: 0 },
      { ...base, target, explicitIgnore, pattern: 'O', regex: false, contextLines: 1, caseSensitive: true },
    );
  }
  for (const req of requests) {
    const a = await everything('rg', req);
    const b = await everything('fb', req);
    assert.ok(a.size > 0, `no results at all for ${JSON.stringify(req)}`);
    const sorted = (m: Map<string, FileResult>) => [...m.values()].sort((x, y) => (x.path < y.path ? -1 : 1));
    assert.deepEqual(sorted(b), sorted(a), `engines disagree on ${req.target} /${req.pattern}/`);
  }
});
