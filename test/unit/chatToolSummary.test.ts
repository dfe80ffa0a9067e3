import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useMessageBundle } from '../../src/core/l10n';
import { compactDiff, rowOutcome, summarizeParams } from '../../src/extension/chat/toolSummary';
import { bundleForLocale } from '../../src/node/language';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { grepFileTool } from '../../src/core/tools/grepFile';
import { readFileTool } from '../../src/core/tools/readFile';
import { makeTree } from '../support/fixtures';
import { callTool } from '../support/tools';

test("a tool row's outcome is read from the answer's structured data, plain and short", () => {
  const read = { path: 'src/A.java', startLine: 1, endLine: 8, totalLines: 8, truncated: false, source: 'disk', language: 'java', content: '' };
  assert.equal(rowOutcome('read_file', read), 'Lines 1–8 of 8 · java');
  const matches = { pattern: 'TODO', path: '.', regex: false, caseSensitive: false, fileType: 'all', totalMatches: 3, totalFiles: 2 };
  assert.equal(rowOutcome('grep_file', matches), 'Matches: 3 lines in 2 files (literal, case-insensitive)');
  assert.equal(rowOutcome('text_search', matches), 'Matches: 3 lines in 2 files (literal, case-insensitive)');
  assert.equal(rowOutcome('call_chain', { callers: [{ children: [{}, {}] }], callees: [{ children: [] }] }), '2 caller(s) · 0 callee(s)');
  assert.equal(rowOutcome('read_class', { ambiguous: true, candidates: [{ className: 'p.C' }, { className: 'q.C' }] }), 'Several classes match: p.C, q.C');
  assert.equal(rowOutcome('get_diagnostics', { available: true, path: 'src', errors: 1, warnings: 2 }), 'Problems in src: 1 errors, 2 warnings');
  useMessageBundle(bundleForLocale('zh-cn'));
  try {
    assert.equal(rowOutcome('read_file', { ...read, endLine: 3, totalLines: 3, language: '' }), '第 1–3 行，共 3 行');
  } finally {
    useMessageBundle(undefined);
  }
  assert.equal(rowOutcome('read_file', { ...read, path: 'x'.repeat(200), language: 'y'.repeat(200) })?.length, 60);
  // The writing tools' answers show a diff instead; data of another shape, or none, has no outcome line.
  assert.equal(rowOutcome('apply_change', { path: 'a.ts', structuredPatch: [] }), undefined);
  assert.equal(rowOutcome('read_file', { path: 'a.ts' }), undefined);
  assert.equal(rowOutcome('read_file', undefined), undefined);
  assert.equal(rowOutcome('toString', {}), undefined);
});

test('the params line keeps the telling params, shortened, in a fixed order', () => {
  assert.equal(summarizeParams({ pattern: 'TODO', relativePath: 'src', limit: 20, extra: 'x' }), '"TODO" · src');
  assert.equal(summarizeParams({ className: 'Greeter', methodName: 'greet' }), 'className: Greeter · methodName: greet');
  assert.equal(summarizeParams({ replaceContent: 'a'.repeat(500) }), '');
});

test("a large change's diff in the chat counts its hunk, whose lines the answer left out", () => {
  const big = compactDiff({ path: 'g.txt', structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 31_457_280, lines: [] }] });
  assert.deepEqual({ added: big?.added, removed: big?.removed }, { added: 31_457_280, removed: 1 });
  const small = compactDiff({ path: 'a.txt', structuredPatch: [{ oldStart: 2, oldLines: 1, newStart: 2, newLines: 1, lines: ['-a', '+b'] }] });
  assert.deepEqual({ added: small?.added, removed: small?.removed }, { added: 1, removed: 1 });
});

test("the outcome readers know the tools' real answers", async () => {
  const ws = new NodeWorkspace(makeTree({ 'src/A.java': 'class A {\n  // TODO one\n}\n' }, 'ab-outcome-'));
  const read = await callTool(readFileTool, ws, { relativePath: 'src/A.java' });
  assert.equal(rowOutcome(readFileTool.name, read.structured), 'Lines 1–3 of 3 · java');
  const grep = await callTool(grepFileTool, ws, { pattern: 'todo' });
  assert.equal(rowOutcome(grepFileTool.name, grep.structured), 'Matches: 1 line in 1 file (literal, case-insensitive)');
});
