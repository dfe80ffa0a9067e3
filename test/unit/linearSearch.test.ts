import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { runWhole } from '../../src/core/code/index/slices';
import { sequenceOccurrences, textOccurrences } from '../../src/core/edit/linearSearch';

/** Every start of `needle` in `haystack`, overlapping ones included, by brute force. */
function naiveStarts<T>(haystack: ArrayLike<T>, needle: ArrayLike<T>): number[] {
  const out: number[] = [];
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    let same = true;
    for (let j = 0; j < needle.length && same; j++) same = haystack[i + j] === needle[j];
    if (same) out.push(i);
  }
  return out;
}

const text = fc.string({ unit: fc.constantFrom('a', 'b', '\n'), maxLength: 60 });
const needle = fc.string({ unit: fc.constantFrom('a', 'b', '\n'), minLength: 1, maxLength: 10 });

test('textOccurrences counts and lists every overlapping occurrence, as brute force does', () => {
  fc.assert(
    fc.property(text, needle, fc.integer({ min: 0, max: 12 }), (h, n, listed) => {
      const expected = naiveStarts(h, n);
      const got = runWhole(textOccurrences(h, n, listed));
      assert.equal(got.count, expected.length);
      assert.deepEqual(got.starts, expected.slice(0, listed));
    }),
  );
});

test('textOccurrences without overlaps finds what String.split cuts at', () => {
  fc.assert(
    fc.property(text, needle, (h, n) => {
      const got = runWhole(textOccurrences(h, n, Infinity, false));
      const parts = h.split(n);
      assert.equal(got.count, parts.length - 1);
      let at = 0;
      const starts = parts.slice(0, -1).map((p) => ((at += p.length), (at += n.length) - n.length));
      assert.deepEqual(got.starts, starts);
    }),
  );
});

test('sequenceOccurrences finds every window of equal numbers, as brute force does', () => {
  const seq = (min: number, max: number) => fc.array(fc.integer({ min: 0, max: 2 }), { minLength: min, maxLength: max });
  fc.assert(
    fc.property(seq(0, 60), seq(1, 6), (h, n) => {
      const got = runWhole(sequenceOccurrences(Int32Array.from(h), Int32Array.from(n), 5));
      const expected = naiveStarts(h, n);
      assert.equal(got.count, expected.length);
      assert.deepEqual(got.starts, expected.slice(0, 5));
    }),
  );
});

test('a pathological needle on repetitive text is searched in linear time', () => {
  const haystack = 'a'.repeat(2_000_000);
  const started = performance.now();
  const hit = runWhole(textOccurrences(haystack, 'a'.repeat(20_000), 3));
  const miss = runWhole(textOccurrences(haystack, `${'a'.repeat(10_000)}b${'a'.repeat(10_000)}`, 3));
  const took = performance.now() - started;
  assert.equal(hit.count, 2_000_000 - 20_000 + 1);
  assert.deepEqual(hit.starts, [0, 1, 2]);
  assert.equal(miss.count, 0);
  // Both are O(N x M) for stepped indexOf (seconds to minutes); linear is tens of milliseconds.
  assert.ok(took < 2000, `took ${Math.round(took)} ms`);
});

test('occurrences across the internal chunks of the search are all found, with the same positions as indexOf', () => {
  // Over half a million characters in which the needle's first characters are frequent.
  const parts: string[] = [];
  let len = 0;
  let seed = 7;
  while (len < 600_000) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const piece = seed % 5 === 0 ? 'needle-ab' : 'needle-a'.slice(0, 1 + (seed % 8)) + 'x';
    parts.push(piece);
    len += piece.length;
  }
  let haystack = parts.join('');
  // A run of occurrences over each 2^18 boundary: one of them is cut by it, whatever the run's phase.
  for (const at of [262_144, 524_288]) haystack = haystack.slice(0, at - 40) + 'needle-ab'.repeat(10) + haystack.slice(at + 50);
  const expected: number[] = [];
  for (let at = haystack.indexOf('needle-ab'); at >= 0; at = haystack.indexOf('needle-ab', at + 1)) expected.push(at);
  const got = runWhole(textOccurrences(haystack, 'needle-ab', Infinity));
  assert.equal(got.count, expected.length);
  assert.deepEqual(got.starts, expected);
});
