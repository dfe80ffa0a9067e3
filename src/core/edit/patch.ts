/**
 * `structuredPatch` (docs/protocol.md §7.4): hunks of a line diff between the old and new text of an edit.
 *
 * Lines are compared logically: terminators are not part of a line, so a CRLF file diffs like an LF
 * one and hunk lines never carry '\r' or '\n'. Hunks only have ' ', '-', '+' lines; the diff
 * package's "\ No newline at end of file" markers are dropped on purpose, since 004's shape has no
 * such line: a last line that only gained or lost its terminator shows as '-line' '+line'.
 *
 * Texts may be tens of megabytes, so neither is split whole: the common head and tail are found by
 * characters, only the changed middle (with a few lines around it) is split and diffed, and a middle
 * too large to list is described by its line numbers and counts alone.
 */
import { structuredPatch } from 'diff';
import { runWhole, type Sliced } from '../code/index/slices';
import { splitLines } from '../workspace/text';
import { endsWithEol } from './eol';
import type { Hunk } from './types';
import { wireCost } from '../protocol/answerBudget';

/** A diff with its line counts; when `linesOmitted`, the hunks give line numbers and counts but no lines. */
export interface Patch {
  readonly hunks: Hunk[];
  readonly added: number;
  readonly removed: number;
  readonly linesOmitted: boolean;
}

/**
 * Changed text (old and new middle together) up to which a patch lists its lines, in UTF-16 units
 * and in bytes on the wire (JSON-escaped: a control character costs 6).
 */
export const MAX_LISTED_PATCH_CHARS = 1024 * 1024;

/** Past this many line edits the diff package gives up (its cost grows with the square of the edits). */
const MAX_EDIT_LENGTH = 4000;
/** Characters compared or scanned between two pauses of a sliced run. */
const SCAN_STEP = 1 << 20;
const LF = 10;
const CR = 13;

/**
 * The hunks turning `oldText` into `newText`, with `context` unchanged lines around each change
 * (3, as `diff -u` and git). Line numbers are 1-based; as in the `diff` package, a hunk that only
 * adds lines has oldLines 0 and oldStart the old line it goes before. Run whole: for small texts
 * and tests; the write path runs `patchSliced` in slices.
 */
export function structuredPatchOf(oldText: string, newText: string, context = 3): Hunk[] {
  return runWhole(patchSliced(oldText, newText, context)).hunks;
}

/** The whole patch (hunks and counts) at once. */
export function patchOf(oldText: string, newText: string, context = 3): Patch {
  return runWhole(patchSliced(oldText, newText, context));
}

/** The patch as a generator that yields every megabyte or so scanned, to be run in slices. */
export function* patchSliced(oldText: string, newText: string, context = 3): Sliced<Patch> {
  if (oldText === newText) return { hunks: [], added: 0, removed: 0, linesOmitted: false };
  const a = oldText;
  const b = newText;
  const head = yield* commonPrefix(a, b);
  const tail = yield* commonSuffix(a, b, Math.min(a.length, b.length) - head);
  // The changed region, widened to whole lines. A CR just before it may pair with an LF that
  // differs between the texts, so its line is taken in too.
  const start = lineStartBefore(a, head, a.charCodeAt(head - 1) === CR ? 2 : 1);
  const reach = Math.max(lineEndAfter(a, a.length - tail) - (a.length - tail), lineEndAfter(b, b.length - tail) - (b.length - tail));
  const aEnd = a.length - tail + reach;
  const bEnd = b.length - tail + reach;
  const changedChars = aEnd - start + (bEnd - start);
  // The length bound first: it keeps the byte count to at most a megabyte or so scanned.
  if (changedChars <= MAX_LISTED_PATCH_CHARS && wireCost(a.slice(start, aEnd)) + wireCost(b.slice(start, bEnd)) <= MAX_LISTED_PATCH_CHARS) {
    // A line or two more than the context on each side: the diff trims identical lines itself.
    const from = lineStartBefore(a, start, context + 2);
    const after = lineEndsAhead(a, aEnd, context + 1) - aEnd;
    const offset = yield* countTerminators(a, 0, from);
    const hunks = listedPatch(a.slice(from, aEnd + after), b.slice(from, bEnd + after), context, offset);
    return { hunks, ...patchCounts(hunks), linesOmitted: false };
  }
  const removed = yield* countLines(a, start, aEnd);
  const added = yield* countLines(b, start, bEnd);
  const from = lineStartBefore(a, start, context + 1);
  const after = lineEndsAhead(a, aEnd, context) - aEnd;
  const before = yield* countTerminators(a, from, start);
  const following = yield* countLines(a, aEnd, aEnd + after);
  const firstLine = (yield* countTerminators(a, 0, from)) + 1;
  const hunk: Hunk = { oldStart: firstLine, oldLines: before + removed + following, newStart: firstLine, newLines: before + added + following, lines: [] };
  return { hunks: [hunk], added, removed, linesOmitted: true };
}

function* commonPrefix(a: string, b: string): Sliced<number> {
  const most = Math.min(a.length, b.length);
  let n = 0;
  // Whole blocks first: comparing two slices is a native compare, a loop over characters is not.
  for (let block = 65_536; n + block <= most && a.slice(n, n + block) === b.slice(n, n + block); n += block) {
    if (n % SCAN_STEP === 0) yield;
  }
  while (n < most && a.charCodeAt(n) === b.charCodeAt(n)) n++;
  return n;
}

function* commonSuffix(a: string, b: string, most: number): Sliced<number> {
  let n = 0;
  for (let block = 65_536; n + block <= most && a.slice(a.length - n - block, a.length - n) === b.slice(b.length - n - block, b.length - n); n += block) {
    if (n % SCAN_STEP === 0) yield;
  }
  while (n < most && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  return n;
}

/** The start of the line holding `at` (`lines` 1), or of the one `lines` - 1 lines before it; 0 when the text runs out. */
function lineStartBefore(t: string, at: number, lines: number): number {
  let q = at;
  for (let k = 0; k < lines; k++) {
    if (q <= 0) return 0;
    const found = Math.max(t.lastIndexOf('\n', q - 1), t.lastIndexOf('\r', q - 1));
    if (found < 0) return 0;
    // The first character of that terminator (CRLF counts as one).
    q = t.charCodeAt(found) === LF && found > 0 && t.charCodeAt(found - 1) === CR ? found - 1 : found;
  }
  return q + (t.charCodeAt(q) === CR && t.charCodeAt(q + 1) === LF ? 2 : 1);
}

/** `at` if a line ends just before it (or the text does), else just past the terminator of the line holding it. */
function lineEndAfter(t: string, at: number): number {
  if (at >= t.length || at === 0) return at;
  const prev = t.charCodeAt(at - 1);
  if (prev === LF || (prev === CR && t.charCodeAt(at) !== LF)) return at;
  return lineEndsAhead(t, at, 1);
}

/** Just past the `lines`-th line terminator at or after `at` (the text's end when there are fewer). */
function lineEndsAhead(t: string, at: number, lines: number): number {
  let q = at;
  for (let k = 0; k < lines && q < t.length; k++) {
    const lf = t.indexOf('\n', q);
    const cr = t.indexOf('\r', q);
    const found = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
    if (found < 0) return t.length;
    q = found + (t.charCodeAt(found) === CR && t.charCodeAt(found + 1) === LF ? 2 : 1);
  }
  return q;
}

const isTerminator = (c: number): boolean => c === LF || c === CR;

/** Line terminators in [from, to) (CRLF counts once); from and to never split a CRLF here. */
function* countTerminators(t: string, from: number, to: number): Sliced<number> {
  let n = 0;
  let mark = from;
  for (let i = t.indexOf('\n', from); i >= 0 && i < to; i = t.indexOf('\n', i + 1)) {
    n++;
    if (i - mark > SCAN_STEP || (n & 0xffff) === 0) {
      mark = i;
      yield;
    }
  }
  const firstCr = t.indexOf('\r', from);
  if (firstCr < 0 || firstCr >= to) return n;
  mark = from;
  for (let i = firstCr; i >= 0 && i < to; i = t.indexOf('\r', i + 1)) {
    if (t.charCodeAt(i + 1) !== LF) n++;
    if (i - mark > SCAN_STEP) {
      mark = i;
      yield;
    }
  }
  return n;
}

/** Lines in [from, to), as splitLines counts them (a last line without terminator counts). */
function* countLines(t: string, from: number, to: number): Sliced<number> {
  if (to <= from) return 0;
  const n = yield* countTerminators(t, from, to);
  return isTerminator(t.charCodeAt(to - 1)) ? n : n + 1;
}

function joinLines(lines: readonly string[], terminated: boolean): string {
  return lines.length === 0 ? '' : lines.join('\n') + (terminated ? '\n' : '');
}

/** The listed hunks between two small texts, numbered as if `offset` lines came before both. */
function listedPatch(oldText: string, newText: string, context: number, offset: number): Hunk[] {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const aEol = endsWithEol(oldText);
  const bEol = endsWithEol(newText);
  // The last line of a text without a final terminator differs from the same words with one.
  const same = (i: number, j: number) =>
    a[i] === b[j] && (i === a.length - 1 && !aEol) === (j === b.length - 1 && !bEol);

  let head = 0;
  while (head < a.length && head < b.length && same(head, head)) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && same(a.length - 1 - tail, b.length - 1 - tail)) tail++;
  if (head === a.length && head === b.length) return [];

  const lo = Math.max(0, head - context);
  const keepTail = Math.min(tail, context);
  const aHi = a.length - tail + keepTail;
  const bHi = b.length - tail + keepTail;
  const oldPart = joinLines(a.slice(lo, aHi), aHi < a.length || aEol);
  const newPart = joinLines(b.slice(lo, bHi), bHi < b.length || bEol);
  const base = offset + lo;

  const patch = structuredPatch('a', 'b', oldPart, newPart, undefined, undefined, { context, maxEditLength: MAX_EDIT_LENGTH });
  if (!patch) {
    // A change too large to diff line by line in good time (a whole rewritten region): one hunk
    // that replaces the changed lines, still exact, never minutes of the host's CPU.
    const removed = a.slice(head, a.length - tail).map((l) => `-${l}`);
    const added = b.slice(head, b.length - tail).map((l) => `+${l}`);
    const before = a.slice(lo, head).map((l) => ` ${l}`);
    const after = a.slice(a.length - tail, aHi).map((l) => ` ${l}`);
    return [{ oldStart: base + 1, oldLines: aHi - lo, newStart: base + 1, newLines: bHi - lo, lines: [...before, ...removed, ...added, ...after] }];
  }
  return patch.hunks.map((h) => ({
    oldStart: h.oldStart + base,
    oldLines: h.oldLines,
    newStart: h.newStart + base,
    newLines: h.newLines,
    lines: h.lines.filter((l) => !l.startsWith('\\')),
  }));
}

/** Lines added and removed over all hunks. */
export function patchCounts(hunks: readonly Pick<Hunk, 'lines'>[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    for (const l of h.lines) {
      if (l.startsWith('+')) added++;
      else if (l.startsWith('-')) removed++;
    }
  }
  return { added, removed };
}
