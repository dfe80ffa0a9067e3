import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { structuredPatch } from 'diff';
import { applyEdits, applySearchReplace } from '../../src/core/edit/apply';
import { hasMixedEol, minimalReplace } from '../../src/core/edit/eol';
import { floorIndex, indexLinesSliced, lineNumberAt } from '../../src/core/edit/lines';
import { runWhole } from '../../src/core/code/index/slices';
import { patchCounts, structuredPatchOf } from '../../src/core/edit/patch';
import { ToolError } from '../../src/core/protocol/errors';
import { splitLines } from '../../src/core/workspace/text';
import type { Hunk } from '../../src/core/edit/types';

// EDIT_PROPERTY_RUNS=5000 for a deeper search when touching the engine.
const RUNS = Number(process.env.EDIT_PROPERTY_RUNS) || 250;

/** Few distinct characters, so repeated lines and near-misses are common. */
const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'x', '(', ')', ';', ' '), minLength: 1, maxLength: 6 });
const line = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'x', '(', ')', ';', ' ', '\t'), maxLength: 10 });
const lines = fc.array(line, { minLength: 1, maxLength: 30 });
/** A file of LF lines with a final newline, and a non-empty run of whole lines [i, j) in it. */
const fileWithRegion = lines.chain((ls) =>
  fc.tuple(fc.constant(ls), fc.nat(ls.length - 1)).chain(([l, i]) => fc.tuple(fc.constant(l), fc.constant(i), fc.integer({ min: i + 1, max: l.length }))),
);
const replacementLines = fc.array(line, { maxLength: 5 });
const joinLf = (ls: readonly string[]) => ls.map((l) => l + '\n').join('');

/** A tiny, strict applier of structuredPatch hunks (docs/protocol.md §7.4): every context and removed line must be where the hunk says. */
function applyHunks(old: readonly string[], hunks: readonly Hunk[]): string[] {
  const out: string[] = [];
  let pos = 0;
  for (const h of hunks) {
    const at = h.oldStart - 1;
    assert.ok(at >= pos, `hunk at ${h.oldStart} overlaps the previous one`);
    out.push(...old.slice(pos, at));
    pos = at;
    assert.equal(out.length, h.newStart - 1, 'newStart agrees with the lines written so far');
    let oldCount = 0;
    let newCount = 0;
    for (const l of h.lines) {
      const body = l.slice(1);
      if (l[0] === '+') {
        out.push(body);
        newCount++;
      } else {
        assert.ok(l[0] === ' ' || l[0] === '-', `bad hunk line ${JSON.stringify(l)}`);
        assert.equal(old[pos], body, `hunk line ${JSON.stringify(l)} does not match old line ${pos + 1}`);
        if (l[0] === ' ') {
          out.push(body);
          newCount++;
        }
        pos++;
        oldCount++;
      }
    }
    assert.equal(oldCount, h.oldLines);
    assert.equal(newCount, h.newLines);
  }
  out.push(...old.slice(pos));
  return out;
}

function checkPatch(oldText: string, newText: string, context = 3): void {
  const hunks = structuredPatchOf(oldText, newText, context);
  for (const h of hunks) for (const l of h.lines) assert.ok(!/[\r\n]/.test(l) && /^[ +-]/.test(l), JSON.stringify(l));
  assert.deepEqual(applyHunks(splitLines(oldText), hunks), splitLines(newText));
}

describe('edit engine properties', () => {
  test('a unique exact region: prefix and suffix untouched, middle is the replacement', () => {
    fc.assert(
      fc.property(fileWithRegion, replacementLines, ([ls, i, j], rep) => {
        const text = joinLf(ls);
        const search = joinLf(ls.slice(i, j));
        const replace = joinLf(rep);
        fc.pre(search !== replace && text.indexOf(search) === text.lastIndexOf(search));
        const start = joinLf(ls.slice(0, i)).length;
        const r = applySearchReplace(text, search, replace);
        assert.equal(r.kind, 'applied');
        assert.ok(r.kind === 'applied');
        assert.equal(r.strategy, 'exact');
        assert.equal(r.oldRange.start, start);
        assert.equal(r.newText, text.slice(0, start) + replace + text.slice(start + search.length));
        assert.deepEqual([r.oldRange.startLine, r.oldRange.endLine], [i + 1, j]);
        checkPatch(text, r.newText);
      }),
      { numRuns: RUNS },
    );
  });

  test('any substring: a unique one is replaced exactly there, a repeated one is CONFLICT', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '\n', ' ', 'x'), minLength: 2, maxLength: 60 });
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), word, (t, p, q, replace) => {
        const a = p % (t.length - 1);
        const b = a + 1 + (q % (t.length - 1 - a));
        const search = t.slice(a, b);
        fc.pre(search !== replace && search.trim() !== '');
        const unique = t.indexOf(search) === a && t.indexOf(search, a + 1) < 0;
        if (!unique) {
          assert.throws(() => applySearchReplace(t, search, replace), (e: unknown) => e instanceof ToolError && e.code === 'CONFLICT');
          return;
        }
        const r = applySearchReplace(t, search, replace);
        assert.ok(r.kind === 'applied');
        assert.equal(r.newText, t.slice(0, a) + replace + t.slice(b));
        checkPatch(t, r.newText);
      }),
      { numRuns: RUNS },
    );
  });

  test('CRLF file, LF search: the region\'s lines are replaced and every line ending stays CRLF', () => {
    fc.assert(
      fc.property(fileWithRegion, replacementLines, ([ls, i, j], rep) => {
        const crlf = (xs: readonly string[]) => xs.map((l) => l + '\r\n').join('');
        const text = crlf(ls);
        const search = joinLf(ls.slice(i, j));
        fc.pre(search.trim() !== '' && search !== joinLf(rep));
        try {
          const r = applySearchReplace(text, search, joinLf(rep));
          assert.ok(r.kind === 'applied');
          assert.equal(r.newText, crlf(ls.slice(0, i)) + crlf(rep) + crlf(ls.slice(j)));
          checkPatch(text, r.newText);
        } catch (e) {
          // Trailing blanks are ignored at this rung, so equal-looking regions elsewhere are ambiguous.
          assert.ok(e instanceof ToolError && e.code === 'CONFLICT', String(e));
        }
      }),
      { numRuns: RUNS },
    );
  });

  test('a dedented search is re-indented: changing one line keeps every line\'s indentation', () => {
    let reindented = 0;
    const indented = fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), word), { minLength: 2, maxLength: 25 });
    fc.assert(
      fc.property(indented, fc.nat(), fc.nat(), fc.nat(), word, fc.boolean(), (rows, p, q, t, newWord, tabs) => {
        const unit = tabs ? '\t' : '    ';
        const ls = rows.map(([lvl, w]) => unit.repeat(lvl) + w.trim()).filter((l) => l.trim() !== '');
        fc.pre(ls.length >= 2 && newWord.trim() !== '');
        const i = p % (ls.length - 1);
        const j = i + 2 + (q % (ls.length - i - 1));
        const region = ls.slice(i, j);
        const minLead = Math.min(...region.map((l) => l.length - l.trimStart().length));
        fc.pre(minLead > 0);
        const dedented = region.map((l) => l.slice(minLead));
        const k = t % dedented.length;
        const lead = (s: string) => s.slice(0, s.length - s.trimStart().length);
        const changed = dedented.map((l, n) => (n === k ? lead(l) + newWord.trim() : l));
        const text = joinLf(ls);
        fc.pre(joinLf(dedented) !== joinLf(changed));
        let r;
        try {
          r = applySearchReplace(text, joinLf(dedented), joinLf(changed));
        } catch (e) {
          assert.ok(e instanceof ToolError && e.code === 'CONFLICT', String(e));
          return;
        }
        assert.ok(r.kind === 'applied' || r.kind === 'already-applied');
        if (r.kind !== 'applied' || r.strategy !== 'indentation') return;
        reindented++;
        const expected = ls.map((l, n) => (n === i + k ? lead(l) + newWord.trim() : l));
        assert.equal(r.newText, joinLf(expected));
      }),
      { numRuns: RUNS },
    );
    assert.ok(reindented > RUNS / 4, `only ${reindented} runs went through the indentation rung`);
  });

  test('a search found at no rung never changes the text', () => {
    fc.assert(
      fc.property(lines, lines, line, (ls, searchLines, replace) => {
        const text = joinLf(ls);
        // '§' is nowhere in the file, so no rung can match a search containing it.
        const search = joinLf(searchLines) + '§';
        try {
          const r = applySearchReplace(text, search, replace);
          assert.equal(r.kind, 'already-applied');
          assert.equal(r.newText, text);
        } catch (e) {
          assert.ok(e instanceof ToolError && e.code === 'NOT_FOUND', String(e));
          assert.match(e.message, /^searchContent not found in /);
        }
      }),
      { numRuns: RUNS },
    );
  });

  test('anything at all: a ToolError, or a change confined to the reported region', () => {
    const ch = fc.constantFrom('a', 'b', ' ', '\t', '\n', '\r', '\r\n', '\ufeff');
    const s = (max: number) => fc.string({ unit: ch, maxLength: max });
    fc.assert(
      fc.property(s(50), s(12), s(12), (text, search, replace) => {
        let r;
        try {
          r = applySearchReplace(text, search, replace);
        } catch (e) {
          assert.ok(e instanceof ToolError && ['NOT_FOUND', 'CONFLICT', 'VALIDATION_FAILED'].includes(e.code), String(e));
          return;
        }
        if (r.kind === 'already-applied') {
          assert.equal(r.newText, text);
          return;
        }
        assert.ok(r.newText.startsWith(text.slice(0, r.oldRange.start)));
        if (r.oldRange.end < text.length) assert.ok(r.newText.endsWith(text.slice(r.oldRange.end)));
        if (text.startsWith('\ufeff')) assert.ok(r.newText.startsWith('\ufeff'), 'the BOM survives');
        checkPatch(text, r.newText);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  test('MultiEdit: a failing edit anywhere names its index and applies nothing', () => {
    const rows = fc.array(word, { minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(rows, fc.integer({ min: 2, max: 6 }), fc.nat(), (words, count, f) => {
        const text = joinLf(words.map((w, n) => `row ${n} ${w}`));
        const frozen = text.slice();
        const failAt = f % count;
        const edits = Array.from({ length: count }, (_, k) =>
          k === failAt ? { old_string: 'missing ¤ text', new_string: 'x' } : { old_string: `row ${k % words.length} `, new_string: `ROW ${k} ` },
        );
        // Without the failing edit the others are fine, unless two of them hit the same row.
        const others = edits.filter((_, k) => k !== failAt);
        fc.pre(new Set(others.map((e) => e.old_string)).size === others.length);
        assert.equal(applyEdits(text, others).edits.length, count - 1);
        assert.throws(
          () => applyEdits(text, edits, 'f'),
          (e: unknown) =>
            e instanceof ToolError &&
            e.code === 'NOT_FOUND' &&
            e.message.startsWith(`Error in edit ${failAt + 1} of ${count}`) &&
            e.message.endsWith(`None of the ${count} edits were applied.`),
        );
        assert.equal(text, frozen);
      }),
      { numRuns: RUNS / 2 },
    );
  });

  test('replace_all: every non-overlapping exact occurrence, counted', () => {
    const t = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n'), maxLength: 40 }).map((x) => x + '\n');
    const s = fc.string({ unit: fc.constantFrom('a', 'b', ' '), minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(t, s, s, (text, old, rep) => {
        fc.pre(old !== rep && text.includes(old));
        const r = applyEdits(text, [{ old_string: old, new_string: rep, replace_all: true }]);
        assert.equal(r.newText, text.split(old).join(rep));
        assert.equal(r.edits[0].occurrences, text.split(old).length - 1);
        checkPatch(text, r.newText);
      }),
      { numRuns: RUNS },
    );
  });

  test('patches: any two line lists, any context, apply back; change counts are minimal like diff\'s', () => {
    const eolText = fc.tuple(lines, fc.boolean(), fc.constantFrom('\n', '\r\n')).map(([ls, fin, eol]) => ls.join(eol) + (fin ? eol : ''));
    fc.assert(
      fc.property(eolText, eolText, fc.integer({ min: 0, max: 4 }), (a, b, context) => {
        checkPatch(a, b, context);
        const logical = (t: string) => joinLf(splitLines(t));
        const ours = patchCounts(structuredPatchOf(logical(a), logical(b), context));
        const theirs = patchCounts(structuredPatch('a', 'b', logical(a), logical(b), undefined, undefined, { context }).hunks);
        assert.equal(ours.added + ours.removed, theirs.added + theirs.removed);
      }),
      { numRuns: RUNS },
    );
  });

  test('lineNumberAt agrees with the line index', () => {
    const ch = fc.constantFrom('a', '\n', '\r', '\r\n');
    fc.assert(
      fc.property(fc.string({ unit: ch, maxLength: 30 }), fc.nat(), (t, p) => {
        const offset = p % (t.length + 1);
        const index = runWhole(indexLinesSliced(t));
        assert.equal(lineNumberAt(t, offset), index.starts.length === 0 ? 1 : floorIndex(index.starts, offset) + 1);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('minimalReplace (how an approved text is applied to an open document)', () => {
  const eolText = fc.string({ unit: fc.constantFrom('a', 'b', '\r', '\n', '\r\n'), maxLength: 24 });
  test('the replacement turns before into after, and never splits a CRLF at its edges', () => {
    fc.assert(
      fc.property(eolText, eolText, (before, after) => {
        const r = minimalReplace(before, after);
        assert.equal(before.slice(0, r.start) + r.text + before.slice(r.end), after);
        assert.ok(r.start <= r.end);
        // No CRLF pair may straddle an edge, neither in the old text nor in the new one: the kept
        // side and the edited side each hold whole line breaks.
        const torn = (left: string | undefined, right: string | undefined) => left === '\r' && right === '\n';
        const why = JSON.stringify({ before, after, r });
        assert.ok(!torn(before[r.start - 1], before[r.start]) && !torn(before[r.start - 1], r.text[0]), why);
        assert.ok(!torn(before[r.end - 1], before[r.end]) && !torn(r.text[r.text.length - 1], before[r.end]), why);
      }),
      { numRuns: RUNS * 4 },
    );
  });

  test('a change inside a CRLF line break keeps the whole break in the edit', () => {
    assert.deepEqual(minimalReplace('a\r\nb', 'a\nb'), { start: 1, end: 3, text: '\n' });
    assert.deepEqual(minimalReplace('a\nb\r\n', 'a\nC\r\n'), { start: 2, end: 3, text: 'C' });
  });
});

test('hasMixedEol: one kind of line ending is fine, two kinds are mixed', () => {
  for (const t of ['', 'a', 'a\n', 'a\nb\n', 'a\r\nb\r\n', 'a\rb\r', '\r\n\r\n']) assert.equal(hasMixedEol(t), false, JSON.stringify(t));
  for (const t of ['a\r\nb\n', 'a\nb\r\n', 'a\rb\n', 'a\r\nb\r', '\n\r']) assert.equal(hasMixedEol(t), true, JSON.stringify(t));
});
