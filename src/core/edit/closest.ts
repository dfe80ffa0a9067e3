/**
 * Where a search text that matched nowhere was probably meant to land, so the failure message can
 * show the agent the file's actual lines. Runs only on failure, but must still be fast on big files:
 * a cheap per-line score summed over a sliding window of the search's height picks a few candidate
 * windows in O(lines), and only those are scored precisely (bigram similarity) and diffed.
 */
import { diffArrays } from 'diff';
import type { ClosestRegion } from './types';
import { stripTrailingBlanks, trimBlanks } from './blanks';
import { splitSearchLines } from './lines';

const CANDIDATES = 6;
const MIN_SIMILARITY = 0.3;
const MAX_DIFF_LINES = 24;
/** Minified files have megabyte lines: shown lines are cut, and compared text is capped. */
const MAX_SHOWN_CHARS = 200;
const MAX_COMPARED_CHARS = 20_000;
const MAX_EDITS = 200;
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

/** Per file line: 1 when it equals a search line (blanks aside), else the share of its words found in the search. */
function lineScores(fileKeys: readonly string[], searchKeys: readonly string[]): Float64Array {
  const keySet = new Set(searchKeys.filter((k) => k !== ''));
  const tokens = new Set<string>();
  for (const k of searchKeys) for (const t of k.match(TOKEN_RE) ?? []) tokens.add(t);
  const scores = new Float64Array(fileKeys.length);
  for (let i = 0; i < fileKeys.length; i++) {
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

/** Start lines (0-based) of the best-scoring windows, spread apart so they are different places. */
function bestWindows(scores: Float64Array, height: number): number[] {
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
      if (sums[i] <= 0 || (best >= 0 && sums[i] <= sums[best])) continue;
      if (picked.some((p) => Math.abs(p - i) < gap)) continue;
      best = i;
    }
    if (best < 0) break;
    picked.push(best);
  }
  return picked;
}

/** Rows of a line-by-line comparison, for when the real diff would take too long. */
function positionalRows(searchLines: readonly string[], fileLines: readonly string[]): { sign: string; line: string }[] {
  const rows: { sign: string; line: string }[] = [];
  for (let i = 0; i < Math.max(searchLines.length, fileLines.length); i++) {
    const [a, b] = [searchLines[i], fileLines[i]];
    if (a !== undefined && b !== undefined && trimBlanks(a) === trimBlanks(b)) rows.push({ sign: ' ', line: b });
    else {
      if (a !== undefined) rows.push({ sign: '-', line: a });
      if (b !== undefined) rows.push({ sign: '+', line: b });
    }
  }
  return rows;
}

/** The search lines against the file's: equal lines (blanks aside) as context, changes with one line around them. */
function diffSnippet(searchLines: readonly string[], fileLines: readonly string[]): string[] {
  const a = searchLines.map(stripTrailingBlanks);
  const b = fileLines.map(stripTrailingBlanks);
  // Bounded: Myers is O(lines x edits), and a 2,000-line search unlike its region must not take seconds.
  const parts = diffArrays(a, b, { comparator: (x: string, y: string) => trimBlanks(x) === trimBlanks(y), maxEditLength: MAX_EDITS });
  const signed = parts
    ? parts.flatMap((part) => part.value.map((line) => ({ sign: part.added ? '+' : part.removed ? '-' : ' ', line })))
    : positionalRows(a, b);
  const rows = signed.map(({ sign, line }) => ({
    text: sign + (line.length > MAX_SHOWN_CHARS ? `${line.slice(0, MAX_SHOWN_CHARS)}… [${line.length} chars]` : line),
    changed: sign !== ' ',
  }));
  const keep = rows.map((r, i) => r.changed || rows[i - 1]?.changed === true || rows[i + 1]?.changed === true);
  const out: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    if (keep[i]) out.push(rows[i].text);
    else if (keep[i - 1] && i > 0) out.push('…');
  }
  if (out.length > MAX_DIFF_LINES) return [...out.slice(0, MAX_DIFF_LINES), `… (${out.length - MAX_DIFF_LINES} more diff lines)`];
  return out;
}

/** The region of `fileLines` most like `search`, or undefined when nothing is even roughly alike. */
export function findClosest(
  fileLines: readonly string[],
  search: string,
  fileKeys: readonly string[] = fileLines.map(trimBlanks),
): ClosestRegion | undefined {
  const searchLines = splitSearchLines(search);
  const searchKeys = searchLines.map(trimBlanks);
  if (fileLines.length === 0 || searchKeys.every((k) => k === '')) return undefined;
  const height = Math.min(searchLines.length, fileLines.length);
  const scores = lineScores(fileKeys, searchKeys);
  const fullSearch = searchKeys.join('\n');
  const searchText = fullSearch.slice(0, MAX_COMPARED_CHARS);
  // A capped search is compared with windows capped alike; otherwise windows are capped only
  // generously (a minified line can be a megabyte), so that both sides stay comparable.
  const windowCap = searchText.length < fullSearch.length ? MAX_COMPARED_CHARS : 2 * searchText.length + 200;

  let best: { start: number; sim: number } | undefined;
  for (const start of bestWindows(scores, height)) {
    const window = fileKeys.slice(start, start + height).join('\n').slice(0, windowCap);
    const sim = similarity(searchText, window);
    if (!best || sim > best.sim) best = { start, sim };
  }
  if (!best || best.sim < MIN_SIMILARITY) return undefined;
  const region = fileLines.slice(best.start, best.start + height);
  return {
    startLine: best.start + 1,
    endLine: best.start + height,
    similarity: Math.round(best.sim * 100) / 100,
    diff: diffSnippet(searchLines, region),
  };
}
