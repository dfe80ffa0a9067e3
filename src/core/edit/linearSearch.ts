/**
 * Every occurrence of a needle, overlapping ones included, in time linear in haystack plus needle
 * (Knuth-Morris-Pratt). Native indexOf stepped one position at a time is O(haystack x needle) on
 * repetitive text (a long search in a file of one repeated line), and even a single indexOf call
 * can be quadratic for some needles. Both searches are generators that yield every `STEP`
 * positions, so a caller can run them in slices and under a deadline.
 */
import type { Sliced } from '../code/index/slices';

/** Positions compared between two yields. */
const STEP = 1 << 15;
/** Characters of the needle a jump looks for: few, so even a naive native search costs at most that many compares a character. */
const SKIP_HEAD = 6;
/** Haystack characters scanned between two yields (each costs amortized constant time). */
const CHUNK = 1 << 18;

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

/** Where a search stands between two chunks of the haystack. */
interface Scan {
  /** Length of the needle's prefix matched just before the next position. */
  k: number;
  count: number;
  readonly starts: number[];
}

/**
 * Scans haystack[from, to) on from `scan`, which it updates, and returns where the next scan starts
 * (past `to` when a jump found nothing before it). A plain function rather than the generator
 * itself, so the engine optimizes this hot loop fully.
 */
function scanText(haystack: string, needle: string, border: Int32Array, from: number, to: number, scan: Scan, listed: number, overlapping: boolean): number {
  const m = needle.length;
  const head = needle.slice(0, SKIP_HEAD);
  let { k, count } = scan;
  let i = from;
  for (; i < to; i++) {
    if (k === 0) {
      // Nothing partly matched: jump natively to the next place the needle's first few characters
      // are. Jumps scan disjoint stretches, each character compared at most SKIP_HEAD times: linear.
      const next = haystack.indexOf(head, i);
      if (next < 0) {
        i = haystack.length;
        break;
      }
      i = next;
      if (i >= to) break;
    }
    const c = haystack.charCodeAt(i);
    while (k > 0 && needle.charCodeAt(k) !== c) k = border[k - 1];
    if (needle.charCodeAt(k) === c) k++;
    if (k === m) {
      if (count++ < listed) scan.starts.push(i - m + 1);
      k = overlapping ? border[k - 1] : 0;
    }
  }
  scan.k = k;
  scan.count = count;
  return i;
}

/**
 * Occurrences of the string `needle` (not empty) in `haystack`. Overlapping ones are counted unless
 * `overlapping` is false: then each search goes on after the previous occurrence, as String.split.
 */
export function* textOccurrences(haystack: string, needle: string, listed: number, overlapping = true): Sliced<Occurrences> {
  const border = yield* borders(needle.length, (a, b) => needle.charCodeAt(a) === needle.charCodeAt(b));
  const scan: Scan = { k: 0, count: 0, starts: [] };
  for (let from = 0; from < haystack.length; ) {
    from = scanText(haystack, needle, border, from, Math.min(haystack.length, from + CHUNK), scan, listed, overlapping);
    yield;
  }
  return { count: scan.count, starts: scan.starts };
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
