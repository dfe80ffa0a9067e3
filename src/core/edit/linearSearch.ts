/**
 * Every occurrence of a needle, overlapping ones included, in time linear in haystack plus needle
 * (Knuth-Morris-Pratt). Native indexOf stepped one position at a time is O(haystack x needle) on
 * repetitive text (a 20 KB search in a 2 MB file of one repeated line took a minute), and even a
 * single indexOf call can be quadratic for some needles. Both searches are generators that yield
 * every few thousand positions, so a caller can run them in slices and under a deadline.
 */
import type { Sliced } from '../code/index/slices';

/** Positions compared between two yields. */
const STEP = 1 << 15;

export interface Occurrences {
  readonly count: number;
  /** The first `listed` starting positions, in order. */
  readonly starts: readonly number[];
}

/** For each prefix of `needle`, the length of its longest proper border (prefix that is also a suffix). */
function* borders(length: number, same: (a: number, b: number) => boolean): Sliced<Int32Array> {
  const border = new Int32Array(length);
  for (let i = 1, k = 0; i < length; i++) {
    while (k > 0 && !same(i, k)) k = border[k - 1];
    if (same(i, k)) k++;
    border[i] = k;
    if (i % STEP === 0) yield;
  }
  return border;
}

/**
 * Occurrences of the string `needle` (not empty) in `haystack`. Overlapping ones are counted unless
 * `overlapping` is false: then each search goes on after the previous occurrence, as String.split.
 */
export function* textOccurrences(haystack: string, needle: string, listed: number, overlapping = true): Sliced<Occurrences> {
  const m = needle.length;
  const border = yield* borders(m, (a, b) => needle.charCodeAt(a) === needle.charCodeAt(b));
  const first = needle[0];
  const starts: number[] = [];
  let count = 0;
  let nextYield = STEP;
  for (let i = 0, k = 0; i < haystack.length; i++) {
    if (k === 0) {
      // Nothing partly matched: jump natively to the next place the needle could start (still linear).
      i = haystack.indexOf(first, i);
      if (i < 0) break;
    }
    const c = haystack.charCodeAt(i);
    while (k > 0 && needle.charCodeAt(k) !== c) k = border[k - 1];
    if (needle.charCodeAt(k) === c) k++;
    if (k === m) {
      if (count++ < listed) starts.push(i - m + 1);
      k = overlapping ? border[k - 1] : 0;
    }
    if (i >= nextYield) {
      nextYield = i + STEP;
      yield;
    }
  }
  return { count, starts };
}

/** Occurrences of the sequence `needle` (not empty) in `haystack`: the matcher's lines, each as a number. */
export function* sequenceOccurrences(haystack: Int32Array, needle: Int32Array, listed: number): Sliced<Occurrences> {
  const m = needle.length;
  const border = yield* borders(m, (a, b) => needle[a] === needle[b]);
  const starts: number[] = [];
  let count = 0;
  for (let i = 0, k = 0; i < haystack.length; i++) {
    const c = haystack[i];
    while (k > 0 && needle[k] !== c) k = border[k - 1];
    if (needle[k] === c) k++;
    if (k === m) {
      if (count++ < listed) starts.push(i - m + 1);
      k = border[k - 1];
    }
    if (i % STEP === 0) yield;
  }
  return { count, starts };
}
