/**
 * Fuzzy matching for the chat's `@` completion, as a file picker does it: every character of the
 * query in order, preferring matches in the file name over the folders, at word starts (after `/`,
 * `.`, `_`, `-`, or a camelCase hump) and in runs. Linear in the candidate's length, so scoring a
 * 60,000-file list per keystroke stays in the tens of milliseconds.
 */

import { setImmediate as nextTurn } from 'node:timers/promises';

const SEPARATORS = new Set(['/', '\\', '.', '_', '-', ' ', ':']);

function isWordStart(text: string, i: number): boolean {
  if (i === 0) return true;
  const prev = text[i - 1];
  if (SEPARATORS.has(prev)) return true;
  const c = text[i];
  return prev === prev.toLowerCase() && c !== c.toLowerCase() && c === c.toUpperCase();
}

/** Greedy subsequence match of `q` (lower case) in `text` from `from`; the score, or undefined when a character is missing. */
function matchFrom(q: string, text: string, lower: string, from: number): number | undefined {
  let score = 0;
  let at = from;
  let prev = -2;
  for (const ch of q) {
    const i = lower.indexOf(ch, at);
    if (i < 0) return undefined;
    score += 1;
    if (i === prev + 1) score += 5;
    if (isWordStart(text, i)) score += 8;
    prev = i;
    at = i + 1;
  }
  return score;
}

/** Whether every character of `q` starts a word of `text` (from `from`), in order: `osi` in OrderServiceImpl. */
function acronym(q: string, text: string, lower: string, from: number): boolean {
  let at = from;
  for (const ch of q) {
    let i = lower.indexOf(ch, at);
    while (i >= 0 && !isWordStart(text, i)) i = lower.indexOf(ch, i + 1);
    if (i < 0) return false;
    at = i + 1;
  }
  return true;
}

/**
 * How well `query` matches `candidate` (a path or a symbol name); undefined when it does not.
 * Higher is better. Case-insensitive; an empty query matches everything with score 0.
 */
export function fuzzyScore(query: string, candidate: string): number | undefined {
  const q = query.trim().toLowerCase().replace(/\\/g, '/');
  if (!q) return 0;
  const lower = candidate.toLowerCase();
  const nameStart = candidate.lastIndexOf('/') + 1;
  const name = lower.slice(nameStart);
  // A query without a slash is about the file name first; the folders only when the name lacks a character.
  let score = q.includes('/') ? undefined : matchFrom(q, candidate, lower, nameStart);
  if (score !== undefined) {
    score += 10;
    if (name.startsWith(q)) score += 20;
    else if (name.includes(q)) score += 10;
    if (name === q || name.startsWith(`${q}.`)) score += 15;
    if (q.length > 1 && acronym(q, candidate, lower, nameStart)) score += 8 * q.length;
  } else {
    score = matchFrom(q, candidate, lower, 0);
    if (score === undefined) return undefined;
    if (lower.includes(q)) score += 10;
  }
  // Between equals, the shorter (less nested) path first.
  return score - candidate.length / 100;
}

interface Scored<T> {
  readonly item: T;
  readonly score: number;
  readonly order: number;
}

function scoreSlice<T>(query: string, items: readonly T[], key: (item: T) => string, from: number, to: number, out: Scored<T>[]): void {
  for (let order = from; order < to; order++) {
    const item = items[order] as T;
    const score = fuzzyScore(query, key(item));
    if (score !== undefined) out.push({ item, score, order });
  }
}

function best<T>(scored: Scored<T>[], limit: number): T[] {
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored.slice(0, limit).map((s) => s.item);
}

/** Items scored between two turns of the event loop: about 5 ms of work. */
export const FUZZY_SLICE = 10_000;

/**
 * The `limit` best matches of `query`, best first (ties: in the given order). A list may be long
 * (a monorepo's files, its symbols), so it is scored `FUZZY_SLICE` items at a time, the event loop
 * turning between slices, and the extension host is never held for more than a few milliseconds;
 * undefined, with the rest left unscored, once `stale()` says a newer query replaced this one
 * (each keystroke asks anew).
 */
export async function fuzzyFilterYielding<T>(query: string, items: readonly T[], key: (item: T) => string, limit: number, stale: () => boolean): Promise<T[] | undefined> {
  const scored: Scored<T>[] = [];
  for (let from = 0; from < items.length; from += FUZZY_SLICE) {
    if (from > 0) await nextTurn();
    if (stale()) return undefined;
    scoreSlice(query, items, key, from, Math.min(items.length, from + FUZZY_SLICE), scored);
  }
  return best(scored, limit);
}
