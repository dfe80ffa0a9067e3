import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findMatch } from '../../src/core/edit/match';
import type { MatchOutcome } from '../../src/core/edit/types';

function expectMatch(o: MatchOutcome): Extract<MatchOutcome, { kind: 'match' }> {
  assert.equal(o.kind, 'match', `expected a match, got ${JSON.stringify(o)}`);
  return o as Extract<MatchOutcome, { kind: 'match' }>;
}

const java = [
  'class A {',
  '    void run() {',
  '        int x = 1;',
  '        call(x);',
  '    }',
  '',
  '    void stop() {',
  '        done();',
  '    }',
  '}',
  '',
].join('\n');

describe('findMatch: tiers', () => {
  test('exact: offsets and 1-based lines of a unique substring', () => {
    const m = expectMatch(findMatch(java, 'int x = 1;\n        call(x);'));
    assert.equal(m.strategy, 'exact');
    assert.equal(java.slice(m.range.start, m.range.end), 'int x = 1;\n        call(x);');
    assert.deepEqual([m.range.startLine, m.range.endLine], [3, 4]);
  });

  test('whitespace: LF search in a CRLF file maps back to the CRLF region', () => {
    const crlf = java.replace(/\n/g, '\r\n');
    const m = expectMatch(findMatch(crlf, '        int x = 1;\n        call(x);\n'));
    assert.equal(m.strategy, 'whitespace');
    assert.equal(crlf.slice(m.range.start, m.range.end), '        int x = 1;\r\n        call(x);\r\n');
    assert.deepEqual([m.range.startLine, m.range.endLine], [3, 4]);
  });

  test('whitespace: CRLF search in an LF file', () => {
    const m = expectMatch(findMatch(java, 'void stop() {\r\n        done();'));
    assert.equal(m.strategy, 'whitespace');
    assert.equal(java.slice(m.range.start, m.range.end), 'void stop() {\n        done();');
  });

  test('whitespace: trailing blanks in the file or in the search are ignored', () => {
    const text = 'a = 1;   \nb = 2;\t\nc = 3;\n';
    const m = expectMatch(findMatch(text, 'a = 1;\nb = 2;\n'));
    assert.equal(m.strategy, 'whitespace');
    assert.equal(text.slice(m.range.start, m.range.end), 'a = 1;   \nb = 2;\t\n');
    const m2 = expectMatch(findMatch(text, 'b = 2;  \nc = 3;'));
    assert.equal(text.slice(m2.range.start, m2.range.end), 'b = 2;\t\nc = 3;');
  });

  test('whitespace: CR-only line endings', () => {
    const text = 'one\rtwo\rthree\r';
    const m = expectMatch(findMatch(text, 'two\nthree\n'));
    assert.equal(text.slice(m.range.start, m.range.end), 'two\rthree\r');
    assert.deepEqual([m.range.startLine, m.range.endLine], [2, 3]);
  });

  test('indentation: a dedented search matches and carries the shift', () => {
    const m = expectMatch(findMatch(java, 'int x = 1;\ncall(x);\n'));
    assert.equal(m.strategy, 'indentation');
    assert.equal(java.slice(m.range.start, m.range.end), '        int x = 1;\n        call(x);\n');
    assert.deepEqual([m.range.startLine, m.range.endLine], [3, 4]);
    assert.equal(m.indent?.from, '');
    assert.equal(m.indent?.to, '        ');
  });

  test('indentation: without a final newline the region stops before the last terminator', () => {
    const m = expectMatch(findMatch(java, '  void stop() {\n      done();'));
    assert.equal(m.strategy, 'indentation');
    assert.equal(java.slice(m.range.start, m.range.end), '    void stop() {\n        done();');
  });

  test('indentation: spaces in the search, tabs in the file', () => {
    const go = 'func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n';
    const m = expectMatch(findMatch(go, '    if x {\n        return 1\n    }\n'));
    assert.equal(m.strategy, 'indentation');
    assert.deepEqual([m.range.startLine, m.range.endLine], [2, 4]);
    assert.equal(m.indent?.fileStyle, 'tabs');
  });

  test('a leading BOM is never part of a match', () => {
    const text = '\ufeffline one\nline two\n';
    const m = expectMatch(findMatch(text, 'line one\n'));
    assert.equal(m.range.start, 1);
    const m2 = expectMatch(findMatch(text, '  line one\n  line two\n'));
    assert.equal(m2.strategy, 'indentation');
    assert.equal(m2.range.start, 1);
    assert.equal(m2.range.startLine, 1);
  });

  test('empty search is refused (creating files is decided before matching)', () => {
    assert.throws(() => findMatch('abc', ''), RangeError);
  });
});

describe('findMatch: ambiguity', () => {
  test('exact: counts and lists the lines', () => {
    const o = findMatch(java, '    }\n');
    assert.equal(o.kind, 'ambiguous');
    assert.ok(o.kind === 'ambiguous');
    assert.equal(o.strategy, 'exact');
    assert.equal(o.count, 2);
    assert.deepEqual(o.lines, [5, 9]);
  });

  test('exact: overlapping occurrences are ambiguous too', () => {
    const o = findMatch('xaaax\n', 'aa');
    assert.ok(o.kind === 'ambiguous');
    assert.equal(o.count, 2);
  });

  test('whitespace tier', () => {
    const text = 'a();  \nb();\nx\na();\nb();\n';
    const o = findMatch(text, 'a();\t\nb();');
    assert.ok(o.kind === 'ambiguous', JSON.stringify(o));
    assert.equal(o.strategy, 'whitespace');
    assert.deepEqual(o.lines, [1, 4]);
  });

  test('indentation tier', () => {
    const text = 'if (a) {\n  go();\n}\nwhile (b) {\n      go();\n}\n';
    const o = findMatch(text, '\tgo();\n');
    assert.ok(o.kind === 'ambiguous', JSON.stringify(o));
    assert.equal(o.strategy, 'indentation');
    assert.equal(o.count, 2);
    assert.deepEqual(o.lines, [2, 5]);
  });

  test('a unique match at a higher rung wins over several at a lower one', () => {
    const text = 'go();\n  go();\n';
    const m = expectMatch(findMatch(text, '  go();'));
    assert.equal(m.strategy, 'exact');
    assert.equal(m.range.startLine, 2);
  });

  test('lists at most 10 places but counts them all', () => {
    const text = 'x;\n'.repeat(25);
    const o = findMatch(text, 'x;');
    assert.ok(o.kind === 'ambiguous');
    assert.equal(o.count, 25);
    assert.equal(o.lines.length, 10);
  });
});

describe('findMatch: not found and already applied', () => {
  const big = Array.from({ length: 400 }, (_, i) => `    value${i} = compute(${i}, "label ${i}");`).join('\n') + '\n';

  test('not found reports the closest region and the differing line', () => {
    const search = '    value200 = compute(200, "label 200");\n    value201 = compute(201, "label two hundred one");\n    value202 = compute(202, "label 202");\n';
    const o = findMatch(big, search);
    assert.ok(o.kind === 'not-found', JSON.stringify(o));
    assert.equal(o.lineCount, 400);
    assert.ok(o.closest);
    assert.deepEqual([o.closest.startLine, o.closest.endLine], [201, 203]);
    assert.ok(o.closest.similarity > 0.8 && o.closest.similarity < 1, String(o.closest.similarity));
    assert.ok(o.closest.diff.includes('-    value201 = compute(201, "label two hundred one");'), o.closest.diff.join('\n'));
    assert.ok(o.closest.diff.includes('+    value201 = compute(201, "label 201");'), o.closest.diff.join('\n'));
  });

  test('not found with nothing similar has no closest region', () => {
    const o = findMatch(big, 'zzzz qqqq wwww\n');
    assert.ok(o.kind === 'not-found');
    assert.equal(o.closest, undefined);
  });

  test('already applied: search gone, replacement present once', () => {
    const o = findMatch(java, 'int x = 0;', 'int x = 1;');
    assert.ok(o.kind === 'already-applied', JSON.stringify(o));
    assert.equal(o.strategy, 'exact');
    assert.deepEqual([o.range.startLine, o.range.endLine], [3, 3]);
  });

  test('already applied is found through the looser rungs too', () => {
    const o = findMatch(java, 'old();\n', 'int x = 1;\ncall(x);\n');
    assert.ok(o.kind === 'already-applied', JSON.stringify(o));
    assert.equal(o.strategy, 'indentation');
    assert.deepEqual([o.range.startLine, o.range.endLine], [3, 4]);
  });

  test('a found search is matched even if the replacement is also present', () => {
    const m = expectMatch(findMatch('a\nb\n', 'a', 'b'));
    assert.equal(m.range.startLine, 1);
  });

  test('a short replacement found by coincidence is not "already applied"', () => {
    assert.equal(findMatch('let y = 2;\n', 'let z = 3;', 'y').kind, 'not-found');
  });

  test('a replacement found several times is not "already applied"', () => {
    const o = findMatch('go();\ngo();\n', 'stop();', 'go();');
    assert.equal(o.kind, 'not-found');
  });
});
