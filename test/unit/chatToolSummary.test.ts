import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compactDiff, outcomeOf, summarizeParams } from '../../src/extension/chat/toolSummary';

test("a tool row's outcome is the first line after the answer's heading, plain and short", () => {
  assert.equal(outcomeOf('## File: src/A.java\n\nLines 1–8 of 8 · java\n\n```java\nclass A {}\n```'), 'Lines 1–8 of 8 · java');
  assert.equal(outcomeOf('## Search: `TODO` in the project\n\n**Matches**: 3 lines in 2 files (literal)\n\n### [a.ts](a.ts)'), 'Matches: 3 lines in 2 files (literal)');
  assert.equal(outcomeOf('## 文件：a.ts\n\n第 1–3 行，共 3 行'), '第 1–3 行，共 3 行');
  assert.equal(outcomeOf('x'.repeat(200))?.length, 60);
  // JSON answers (writes) and answers with nothing but a heading and code have no outcome line.
  assert.equal(outcomeOf('{"path":"a.ts"}'), undefined);
  assert.equal(outcomeOf('## Only a heading\n\n```\ncode\n```'), undefined);
  assert.equal(outcomeOf(undefined), undefined);
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
