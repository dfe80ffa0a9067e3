/** Scoring a file's windows against a search text that matched nowhere: a cheap per-line score picks a few candidate windows in O(lines), bigram similarity ranks them. */
import type { Sliced } from '../code/index/slices';
import { LINES_PER_STEP } from './lines';

const CANDIDATES = 6;
const TOKEN_RE = /[A-Za-z0-9_$]+/g;

/** Dice coefficient over character bigrams: cheap, order-aware enough, 1 for equal strings. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const counts = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const bg = a.slice(i, i + 2);
    counts.set(bg, (counts.get(bg) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const bg = b.slice(i, i + 2);
    const n = counts.get(bg) ?? 0;
    if (n > 0) {
      shared++;
      counts.set(bg, n - 1);
    }
  }
  return (2 * shared) / (a.length - 1 + (b.length - 1));
}

/** Per file line (yielding every few thousand): 1 when it equals a search line (blanks aside), else the share of its words found in the search. */
export function* lineScoresSliced(fileKeys: readonly string[], searchKeys: readonly string[]): Sliced<Float64Array> {
  const keySet = new Set(searchKeys.filter((k) => k !== ''));
  const tokens = new Set<string>();
  for (const k of searchKeys) for (const t of k.match(TOKEN_RE) ?? []) tokens.add(t);
  const scores = new Float64Array(fileKeys.length);
  for (let i = 0; i < fileKeys.length; i++) {
    if (i % LINES_PER_STEP === 0) yield;
    const key = fileKeys[i];
    if (key === '') continue;
    if (keySet.has(key)) {
      scores[i] = 1;
      continue;
    }
    const words = key.match(TOKEN_RE);
    if (!words) continue;
    let hits = 0;
    for (const w of words) if (tokens.has(w)) hits++;
    scores[i] = (0.8 * hits) / words.length;
  }
  return scores;
}

/** Start lines (0-based) of the best-scoring windows, spread apart so they are different places (yielding every few thousand lines). */
export function* bestWindowsSliced(scores: Float64Array, height: number): Sliced<number[]> {
  const last = Math.max(0, scores.length - height);
  const sums = new Float64Array(last + 1);
  let sum = 0;
  for (let i = 0; i < Math.min(height, scores.length); i++) sum += scores[i];
  sums[0] = sum;
  for (let i = 1; i <= last; i++) {
    sum += scores[i + height - 1] - scores[i - 1];
    sums[i] = sum;
  }
  const picked: number[] = [];
  const gap = Math.max(1, Math.floor(height / 2));
  for (let round = 0; round < CANDIDATES; round++) {
    let best = -1;
    for (let i = 0; i <= last; i++) {
      if (i % LINES_PER_STEP === 0) yield;
      if (sums[i] <= 0 || (best >= 0 && sums[i] <= sums[best])) continue;
      if (picked.some((p) => Math.abs(p - i) < gap)) continue;
      best = i;
    }
    if (best < 0) break;
    picked.push(best);
  }
  return picked;
}

