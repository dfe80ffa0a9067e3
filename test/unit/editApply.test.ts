import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyChangeNames, applyEdit, applyEdits, applySearchReplace, planCreate } from '../../src/core/edit/apply';
import { patchCounts, structuredPatchOf } from '../../src/core/edit/patch';
import { ToolError } from '../../src/core/protocol/errors';
import type { ApplyResult } from '../../src/core/edit/types';

function applied(r: ApplyResult): Extract<ApplyResult, { kind: 'applied' }> {
  assert.equal(r.kind, 'applied', JSON.stringify(r));
  return r as Extract<ApplyResult, { kind: 'applied' }>;
}

function throwsTool(fn: () => unknown, code: string, ...patterns: RegExp[]): string {
  let message = '';
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ToolError, `expected ToolError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    for (const p of patterns) assert.match(e.message, p);
    message = e.message;
    return true;
  });
  return message;
}

const py = 'class A:\n    def f(self):\n        if x:\n            return 1\n        return 0\n';

describe('applySearchReplace', () => {
  test('exact: replaces the region and reports old and new line ranges', () => {
    const r = applied(applySearchReplace(py, '            return 1\n', '            log()\n            return 2\n'));
    assert.equal(r.newText, 'class A:\n    def f(self):\n        if x:\n            log()\n            return 2\n        return 0\n');
    assert.equal(r.strategy, 'exact');
    assert.deepEqual([r.oldRange.startLine, r.oldRange.endLine], [4, 4]);
    assert.deepEqual(r.newRange, { startLine: 4, endLine: 5 });
  });

  test('CRLF file: an LF search matches and the LF replacement is written with CRLF', () => {
    const crlf = py.replace(/\n/g, '\r\n');
    const r = applied(applySearchReplace(crlf, '        if x:\n            return 1\n', '        if y:\n            return 3\n'));
    assert.equal(r.strategy, 'whitespace');
    assert.equal(r.newText, py.replace('if x:', 'if y:').replace('return 1', 'return 3').replace(/\n/g, '\r\n'));
    assert.ok(!/[^\r]\n/.test(r.newText), 'no bare LF');
  });

  test('CRLF file: even an exact single-line match gets a CRLF multi-line replacement', () => {
    const crlf = 'a\r\nb\r\nc\r\n';
    const r = applied(applySearchReplace(crlf, 'b', 'b1\nb2'));
    assert.equal(r.newText, 'a\r\nb1\r\nb2\r\nc\r\n');
    assert.deepEqual(r.newRange, { startLine: 2, endLine: 3 });
  });

  test('trailing whitespace in the file does not block the match', () => {
    const text = 'x = 1   \ny = 2\t\nz = 3\n';
    const r = applied(applySearchReplace(text, 'x = 1\ny = 2\n', 'x = 10\ny = 20\n'));
    assert.equal(r.strategy, 'whitespace');
    assert.equal(r.newText, 'x = 10\ny = 20\nz = 3\n');
  });

  test('wrong indentation: the replacement is re-indented, nested relative indentation kept', () => {
    const search = 'def f(self):\n    if x:\n        return 1\n';
    const replace = 'def f(self):\n    if x:\n        if y:\n            return 2\n        return 1\n';
    const r = applied(applySearchReplace(py, search, replace));
    assert.equal(r.strategy, 'indentation');
    assert.equal(
      r.newText,
      'class A:\n    def f(self):\n        if x:\n            if y:\n                return 2\n            return 1\n        return 0\n',
    );
    assert.deepEqual(r.newRange, { startLine: 2, endLine: 6 });
  });

  test('over-indented search: the replacement is dedented by the same amount', () => {
    const text = 'top:\n  a: 1\n  b:\n    c: 2\n';
    const r = applied(applySearchReplace(text, '      b:\n        c: 2\n', '      b:\n        c: 3\n        d: 4\n'));
    assert.equal(r.newText, 'top:\n  a: 1\n  b:\n    c: 3\n    d: 4\n');
  });

  test('tabs in the file, spaces from the agent: the replacement is written with tabs', () => {
    const go = 'func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n';
    const r = applied(applySearchReplace(go, '    if x {\n        return 1\n    }\n', '    if x {\n        log()\n        return 2\n    }\n'));
    assert.equal(r.strategy, 'indentation');
    assert.equal(r.newText, 'func f() {\n\tif x {\n\t\tlog()\n\t\treturn 2\n\t}\n}\n');
  });

  test('spaces in the file, tabs from the agent: tabs become the file\'s unit of spaces', () => {
    const js = 'function f() {\n  if (x) {\n    return 1;\n  }\n}\n';
    const r = applied(applySearchReplace(js, '\tif (x) {\n\t\treturn 1;\n\t}\n', '\tif (x) {\n\t\tlog();\n\t\treturn 2;\n\t}\n'));
    assert.equal(r.newText, 'function f() {\n  if (x) {\n    log();\n    return 2;\n  }\n}\n');
  });

  test('flush-left search in a tab-indented file: the tabs are added as a prefix', () => {
    const text = 'x:\n\t\tfoo()\n\t\tbar()\n';
    const r = applied(applySearchReplace(text, 'foo()\nbar()', 'foo(1)\nbar(2)'));
    assert.equal(r.newText, 'x:\n\t\tfoo(1)\n\t\tbar(2)\n');
  });

  test('final newline: kept when the replacement drops it, not added when the file had none', () => {
    assert.equal(applied(applySearchReplace('a\nb\n', 'b\n', 'c')).newText, 'a\nc\n');
    assert.equal(applied(applySearchReplace('a\nb', 'b', 'c\n')).newText, 'a\nc');
    assert.equal(applied(applySearchReplace('a\r\nb\r\n', 'b\r\n', 'c')).newText, 'a\r\nc\r\n');
    assert.equal(applied(applySearchReplace('a\nb\n', 'a\n', 'z')).newText, 'zb\n', 'not at the end: exactly as asked');
    assert.equal(applied(applySearchReplace('only\n', 'only\n', '')).newText, '', 'deleting everything leaves an empty file');
  });

  test('a text starting with a BOM keeps it', () => {
    const text = '\ufeffname = 1\nother = 2\n';
    assert.equal(applied(applySearchReplace(text, 'name = 1', 'name = 9')).newText, '\ufeffname = 9\nother = 2\n');
    assert.equal(applied(applySearchReplace(text, '  name = 1\n  other = 2\n', 'x = 0\n')).newText, '\ufeffx = 0\n');
    assert.equal(applied(applySearchReplace(text, 'name = 1\nother = 2\n', '')).newText, '\ufeff');
  });

  test('not found: NOT_FOUND naming the path, the closest lines and the differing line', () => {
    const msg = throwsTool(
      () => applySearchReplace(py, 'if x:\n    return 7\n', 'if x:\n    return 8\n', applyChangeNames('src/a.py')),
      'NOT_FOUND',
      /^searchContent not found in src\/a\.py/,
      /Closest region: lines 3-4 \(similarity 0\.\d+\)/,
      /^- {4}return 7$/m,
      /^\+ {12}return 1$/m,
    );
    assert.ok(msg.length < 1500);
  });

  test('ambiguous: CONFLICT listing the lines', () => {
    throwsTool(() => applySearchReplace('go();\nstop();\ngo();\n', 'go();', 'run();', applyChangeNames('m.js')), 'CONFLICT',
      /^searchContent matches 2 places in m\.js \(exact text\), at lines 1, 3\./);
  });

  test('already applied: the text comes back unchanged with the place of the replacement', () => {
    const r = applySearchReplace(py, '        return 0\n', '        return None\n');
    assert.equal(r.kind, 'applied');
    const again = applySearchReplace(r.newText, '        return 0\n', '        return None\n');
    assert.equal(again.kind, 'already-applied');
    assert.equal(again.newText, r.newText);
    assert.ok(again.kind === 'already-applied');
    assert.deepEqual([again.range.startLine, again.range.endLine], [5, 5]);
  });

  test('empty or identical strings are VALIDATION_FAILED', () => {
    throwsTool(() => applySearchReplace('a', '', 'b'), 'VALIDATION_FAILED', /searchContent is empty/);
    throwsTool(() => applySearchReplace('a', 'a', 'a'), 'VALIDATION_FAILED', /identical/);
  });
});

describe('applyEdits (MultiEdit) and applyEdit (Edit)', () => {
  const utils = 'import os\n\n\n\ndef process():\n    return os.getcwd()\n';

  test("edits apply in order, each on the result of the previous (the protocol sources' example)", () => {
    const r = applyEdits(utils, [
      { old_string: 'import os', new_string: 'import os\nimport sys' },
      { old_string: 'def process():', new_string: 'def process_data():' },
    ]);
    assert.equal(r.newText, 'import os\nimport sys\n\n\n\ndef process_data():\n    return os.getcwd()\n');
    assert.deepEqual(r.edits.map((e) => [e.editIndex, e.occurrences, e.strategy]), [[1, 1, 'exact'], [2, 1, 'exact']]);
    assert.deepEqual(r.edits[1].newRange, { startLine: 6, endLine: 6 });
    assert.deepEqual(structuredPatchOf(utils, r.newText, 0), [
      { oldStart: 2, oldLines: 0, newStart: 2, newLines: 1, lines: ['+import sys'] },
      { oldStart: 5, oldLines: 1, newStart: 6, newLines: 1, lines: ['-def process():', '+def process_data():'] },
    ]);
  });

  test('a later edit may rely on an earlier one', () => {
    const r = applyEdits('a\n', [{ old_string: 'a', new_string: 'b' }, { old_string: 'b', new_string: 'c' }]);
    assert.equal(r.newText, 'c\n');
  });

  test('all or nothing: edit 2 failing names edit 2 and the original is untouched', () => {
    const original = utils;
    const frozen = original.slice();
    throwsTool(
      () => applyEdits(original, [
        { old_string: 'import os', new_string: 'import sys' },
        { old_string: 'def missing():', new_string: 'def found():' },
        { old_string: 'return', new_string: 'yield' },
      ], 'utils.py'),
      'NOT_FOUND',
      /^Error in edit 2 of 3 \(line numbers are as after edits 1-1\): old_string not found in utils\.py/,
      /None of the 3 edits were applied\.$/,
    );
    assert.equal(original, frozen);
  });

  test('an ambiguous edit is CONFLICT and suggests replace_all', () => {
    throwsTool(() => applyEdits('x\nx\n', [{ old_string: 'x', new_string: 'y' }], 'f.txt'), 'CONFLICT',
      /^old_string matches 2 places in f\.txt \(exact text\), at lines 1, 2\. .*replace_all/);
  });

  test('replace_all replaces every exact occurrence and counts them', () => {
    const r = applyEdits('foo(1)\nbar\nfoo(2)\nfoo(3)\n', [{ old_string: 'foo', new_string: 'baz', replace_all: true }]);
    assert.equal(r.newText, 'baz(1)\nbar\nbaz(2)\nbaz(3)\n');
    assert.equal(r.edits[0].occurrences, 3);
    assert.deepEqual(r.edits[0].newRange, { startLine: 1, endLine: 4 });
  });

  test('replace_all in a CRLF file with LF strings', () => {
    const r = applyEdit('a\r\nb\r\na\r\nb\r\n', { old_string: 'a\nb', new_string: 'c\nd', replace_all: true });
    assert.equal(r.newText, 'c\r\nd\r\nc\r\nd\r\n');
    assert.equal(r.edits[0].occurrences, 2);
  });

  test('replace_all needs exact text and says where a looser match is', () => {
    throwsTool(() => applyEdit('  foo()\n', { old_string: 'foo()  \n', new_string: 'bar()\n', replace_all: true }, 'f.py'),
      'NOT_FOUND', /as exact text, which replace_all requires; it matches ignoring line endings and trailing blanks at line 1/);
  });

  test('Edit: errors carry no "edit k of n" prefix', () => {
    throwsTool(() => applyEdit(utils, { old_string: 'nope nope nope', new_string: 'x' }, 'utils.py'), 'NOT_FOUND', /^old_string not found in utils\.py/);
  });

  test('an empty old_string creates content only as the first edit of an empty file', () => {
    const r = applyEdits('', [{ old_string: '', new_string: 'a = 1\n' }, { old_string: 'a = 1', new_string: 'a = 2' }]);
    assert.equal(r.newText, 'a = 2\n');
    throwsTool(() => applyEdits('x\n', [{ old_string: '', new_string: 'y' }]), 'VALIDATION_FAILED', /old_string is empty/);
    throwsTool(() => applyEdits('', []), 'VALIDATION_FAILED', /at least one edit/);
  });

  test('identical old_string and new_string is VALIDATION_FAILED naming the edit', () => {
    throwsTool(() => applyEdits('a b\n', [{ old_string: 'a', new_string: 'c' }, { old_string: 'b', new_string: 'b' }]),
      'VALIDATION_FAILED', /^Error in edit 2 of 2.*identical/);
  });
});

describe('planCreate', () => {
  test('writes a new or empty file, is idempotent, refuses to overwrite different content', () => {
    assert.equal(planCreate(undefined, 'x\n'), 'write');
    assert.equal(planCreate('', 'x\n'), 'write');
    assert.equal(planCreate('x\r\n', 'x\n'), 'unchanged');
    throwsTool(() => planCreate('old\n', 'new\n', applyChangeNames('a.txt')), 'CONFLICT', /^a\.txt already exists \(1 lines\) with different content/);
  });
});

describe('structuredPatchOf (the shapes of docs/protocol.md §7.4)', () => {
  const original = '# Configuration\nDEBUG = False\nPORT = 8000\n';
  const edited = applyEdit(original, { old_string: 'DEBUG = False', new_string: 'DEBUG = True' }).newText;

  test('Edit example, context 3 (the default): the hunk with its context lines', () => {
    assert.deepEqual(structuredPatchOf(original, edited), [
      { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' # Configuration', '-DEBUG = False', '+DEBUG = True', ' PORT = 8000'] },
    ]);
  });

  test('Edit example, context 0: exactly the hunk the protocol sources print', () => {
    assert.deepEqual(structuredPatchOf(original, edited, 0), [
      { oldStart: 2, oldLines: 1, newStart: 2, newLines: 1, lines: ['-DEBUG = False', '+DEBUG = True'] },
    ]);
  });

  test('Replace (update) example', () => {
    const hunks = structuredPatchOf("def hello():\n    print('Hello, World!')\n", "def hello():\n    print('Hello, Updated World!')\n");
    assert.deepEqual(hunks, [
      { oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' def hello():', "-    print('Hello, World!')", "+    print('Hello, Updated World!')"] },
    ]);
    assert.deepEqual(patchCounts(hunks), { added: 1, removed: 1 });
  });

  test('no change, and CRLF vs LF alone, give no hunks; CRLF lines carry no \\r', () => {
    assert.deepEqual(structuredPatchOf('a\nb\n', 'a\nb\n'), []);
    assert.deepEqual(structuredPatchOf('a\r\nb\r\n', 'a\nb\n'), []);
    const h = structuredPatchOf('a\r\nb\r\nc\r\n', 'a\r\nB\r\nc\r\n');
    assert.deepEqual(h[0].lines, [' a', '-b', '+B', ' c']);
  });

  test('final newline changes show as the last line replaced, never as a "\\ No newline" line', () => {
    const h = structuredPatchOf('a\nb\n', 'a\nb');
    assert.deepEqual(h, [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' a', '-b', '+b'] }]);
    const h2 = structuredPatchOf('a\nb', 'a\nc');
    assert.deepEqual(h2[0].lines, [' a', '-b', '+c']);
  });

  test('far apart changes make separate hunks with correct numbers in a big file', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `l${i + 1}`);
    const changed = lines.slice();
    changed[99] = 'X';
    changed[899] = 'Y';
    const h = structuredPatchOf(lines.join('\n') + '\n', changed.join('\n') + '\n');
    assert.deepEqual(h.map((x) => [x.oldStart, x.oldLines, x.newStart, x.newLines]), [[97, 7, 97, 7], [897, 7, 897, 7]]);
    assert.deepEqual(h[1].lines, [' l897', ' l898', ' l899', '-l900', '+Y', ' l901', ' l902', ' l903']);
  });

  test('creating from empty is one all-"+" hunk', () => {
    assert.deepEqual(structuredPatchOf('', 'a\nb\n'), [{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 2, lines: ['+a', '+b'] }]);
  });
});
