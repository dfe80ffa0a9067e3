import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { applyKept, editRuns, runCounts } from '../../src/core/edit/editRuns';
import { linesWithEnds } from '../../src/core/edit/eol';
import { planRevert } from '../../src/core/edit/revert';

const RUNS = Number(process.env.EDIT_PROPERTY_RUNS) || 250;
const line = fc.string({ unit: fc.constantFrom('a', 'b', 'x', ' ', ';'), maxLength: 6 });
const eol = fc.constantFrom('\n', '\r\n');
/** A text of 0–25 lines with one kind of line ending, the last line with or without it. */
const text = fc.tuple(fc.array(line, { maxLength: 25 }), eol, fc.boolean()).map(([ls, e, last]) => ls.map((l, i) => (i < ls.length - 1 || last ? l + e : l)).join(''));

describe('linesWithEnds', () => {
  test('keeps every terminator, so joining gives the text back byte for byte', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('a', '\r', '\n', ' ') }), (t) => assert.equal(linesWithEnds(t).join(''), t)), { numRuns: RUNS });
    assert.deepEqual(linesWithEnds('a\r\nb\rc\nd'), ['a\r\n', 'b\r', 'c\n', 'd']);
  });
});

describe('editRuns and applyKept (dropping hunks of a proposal)', () => {
  const before = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
  const after = 'one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\n';

  test('finds each changed region with its place in both texts', () => {
    const runs = editRuns(before, after);
    assert.equal(runs.length, 2);
    assert.deepEqual([runs[0].oldAt, runs[0].newAt, runs[0].before, runs[0].after], [1, 1, ['two\n'], ['TWO\n']]);
    assert.deepEqual([runs[1].oldAt, runs[1].newAt, runs[1].before, runs[1].after], [7, 7, [], ['eight\n']]);
    assert.deepEqual(runCounts(runs), { added: 2, removed: 1 });
    assert.deepEqual(editRuns(before, before), []);
  });

  test('keeping all gives the proposal, keeping none the original, keeping one only that hunk', () => {
    const runs = editRuns(before, after);
    assert.equal(applyKept(before, runs, [true, true]), after);
    assert.equal(applyKept(before, runs, [false, false]), before);
    assert.equal(applyKept(before, runs, [false, true]), 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n');
    assert.equal(applyKept(before, runs, [true, false]), 'one\nTWO\nthree\nfour\nfive\nsix\nseven\n');
  });

  test('property: any choice of kept hunks applies them and only them, byte for byte', () => {
    fc.assert(
      fc.property(text, text, fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }), (a, b, keep) => {
        const runs = editRuns(a, b);
        assert.equal(applyKept(a, runs, runs.map(() => true)), b);
        assert.equal(applyKept(a, runs, runs.map(() => false)), a);
        // A partial choice, reverted, gives the original back: the kept regions are exactly the agent's.
        const partial = applyKept(a, runs, keep);
        const kept = runs.filter((_, n) => keep[n]);
        const back = planRevert(editRuns(a, partial), partial);
        assert.ok(back.ok);
        assert.equal(back.text, a);
        assert.ok(kept.length <= runs.length);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('planRevert (Revert in the Agent Changes list)', () => {
  const before = 'package a;\n\nclass A {\n  int x = 1;\n  int y = 2;\n}\n';
  const after = 'package a;\n\nclass A {\n  int x = 10;\n  int y = 2;\n  int z = 3;\n}\n';
  const runs = editRuns(before, after);

  test('a file still as the agent left it gets its old text back exactly', () => {
    assert.deepEqual(planRevert(runs, after), { ok: true, text: before });
  });

  test("the developer's later work elsewhere in the file is kept", () => {
    const later = `// header added later\n${after}\n// footer\n`;
    const plan = planRevert(runs, later);
    assert.ok(plan.ok);
    assert.equal(plan.text, `// header added later\n${before}\n// footer\n`);
  });

  test('refuses when the developer changed the lines the agent wrote, and says where', () => {
    const edited = after.replace('int x = 10;', 'int x = 11;');
    const plan = planRevert(runs, edited);
    assert.deepEqual(plan, { ok: false, reason: 'changed', line: 4, run: 0 });
  });

  test('refuses to put back lines the agent deleted when the lines around the gap changed', () => {
    const b = 'a\nb\nsecret-ish\nc\nd\n';
    const a = 'a\nb\nc\nd\n';
    const r = editRuns(b, a);
    assert.deepEqual(planRevert(r, a), { ok: true, text: b });
    assert.deepEqual(planRevert(r, 'a\nB\nc\nd\n'), { ok: false, reason: 'changed', line: 3, run: 0 });
  });

  test('refuses rather than guess when the agent\'s lines now appear twice, equally near', () => {
    const b = 'k\nk\nk\nold\nk\nk\nk\n';
    const a = 'k\nk\nk\nnew\nk\nk\nk\n';
    const r = editRuns(b, a);
    const twice = 'k\nk\nk\nnew\nk\nk\nk\nk\nk\nk\nnew\nk\nk\nk\n';
    // Removing the first copy's line shifts the place: the nearest full match decides, unless two tie.
    assert.equal(planRevert(r, twice).ok, true, 'the copy at its own place wins');
    const shifted = `x\n${twice}`;
    const plan = planRevert(r, shifted);
    assert.ok(plan.ok, 'moved down by one: the nearer copy');
    assert.equal(plan.text, `x\n${b}k\nk\nk\nnew\nk\nk\nk\n`);
  });

  test('a created file (empty before) reverts to empty only if untouched', () => {
    const r = editRuns('', 'hello\nworld\n');
    assert.deepEqual(planRevert(r, 'hello\nworld\n'), { ok: true, text: '' });
    assert.equal(planRevert(r, 'hello\nthere\n').ok, false);
  });

  test('CRLF and a missing final newline are given back byte for byte', () => {
    const b = 'a\r\nb\r\nc';
    const a = 'a\r\nB\r\nc\r\n';
    assert.deepEqual(planRevert(editRuns(b, a), a), { ok: true, text: b });
  });

  test('property: reverting on the untouched result always gives the original back', () => {
    fc.assert(fc.property(text, text, (a, b) => assert.deepEqual(planRevert(editRuns(a, b), b), { ok: true, text: a })), { numRuns: RUNS });
  });

  test('property: a revert after unrelated lines were added above or below keeps them and undoes the agent', () => {
    fc.assert(
      fc.property(text, text, fc.array(fc.constantFrom('ZZ top\n', 'QQ\n'), { maxLength: 4 }), fc.array(fc.constantFrom('ZZ end\n', 'WW\n'), { maxLength: 4 }), (a, b, top, bottom) => {
        const b1 = b === '' || b.endsWith('\n') ? b : `${b}\n`;
        const a1 = a === '' || a.endsWith('\n') ? a : `${a}\n`;
        const runs = editRuns(a1, b1);
        const plan = planRevert(runs, top.join('') + b1 + bottom.join(''));
        // Either exactly the original between the developer's additions, or an honest refusal; never anything else.
        if (plan.ok) assert.equal(plan.text, top.join('') + a1 + bottom.join(''));
        else assert.ok(plan.reason === 'ambiguous' || plan.reason === 'changed');
      }),
      { numRuns: RUNS },
    );
  });

  test('property: it never writes over a line the developer changed inside the agent\'s region', () => {
    fc.assert(
      fc.property(text, text, fc.nat(), (a, b, pick) => {
        const runs = editRuns(a, b).filter((r) => r.after.length > 0);
        if (!runs.length) return;
        const run = runs[pick % runs.length];
        const lines = linesWithEnds(b);
        lines[run.newAt] = `DEV EDIT ${lines[run.newAt]}`;
        const plan = planRevert(editRuns(a, b), lines.join(''));
        if (plan.ok) assert.ok(plan.text.includes('DEV EDIT'), 'the developer\'s line survives');
      }),
      { numRuns: RUNS },
    );
  });
});

describe('planRevert at the edges of a file', () => {
  test('a change on the first line still reverts after the developer added lines above it', () => {
    const r = editRuns('first\nsecond\nthird\nfourth\n', 'FIRST\nsecond\nthird\nfourth\n');
    assert.deepEqual(planRevert(r, 'added\nFIRST\nsecond\nthird\nfourth\n'), { ok: true, text: 'added\nfirst\nsecond\nthird\nfourth\n' });
  });

  test('lines the agent removed from the end of the file are not put back once the end moved', () => {
    const r = editRuns('a\nb\nc\nd\ntail\n', 'a\nb\nc\nd\n');
    assert.deepEqual(planRevert(r, 'a\nb\nc\nd\n'), { ok: true, text: 'a\nb\nc\nd\ntail\n' });
    assert.equal(planRevert(r, 'a\nb\nc\nd\nmore\n').ok, false);
  });
});

describe('planRevert: cases an adversarial review found', () => {
  test('a file that ended without a newline: a line the developer appended is not glued onto it', () => {
    const r = editRuns('x', 'x\ny\n');
    assert.deepEqual(planRevert(r, 'x\ny\n'), { ok: true, text: 'x' });
    assert.equal(planRevert(r, 'x\ny\nz\n').ok, false);
    const r2 = editRuns('a\nb', 'a\nb\n');
    assert.equal(planRevert(r2, 'a\nb\nc\n').ok, false);
  });

  test("the developer's copy of the agent's line, typed above, is not taken for the agent's", () => {
    const before = 'p\nq\nfoo();\nr\ns\n';
    const after = 'p\nq\nbar();\nr\ns\n';
    const plan = planRevert(editRuns(before, after), `N1\nN2\nbar();\n${after}`);
    assert.deepEqual(plan, { ok: true, text: `N1\nN2\nbar();\n${before}` });
  });

  test('property: with lines appended at the end, the result is the original plus them, or a refusal', () => {
    fc.assert(
      fc.property(text, text, fc.array(fc.constantFrom('z\n', 'DEV\n'), { minLength: 1, maxLength: 3 }), (a, b, extra) => {
        const plan = planRevert(editRuns(a, b), b + extra.join(''));
        if (!plan.ok) return;
        // Appended to a text without a final newline, the first extra line joins its last line in
        // the file itself; the revert must give back exactly the original followed by the developer's lines.
        const joined = b === '' || /[\r\n]$/.test(b) ? a + extra.join('') : undefined;
        if (joined !== undefined) assert.equal(plan.text, joined);
      }),
      { numRuns: RUNS },
    );
  });
});
