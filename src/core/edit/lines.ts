/**
 * Line bookkeeping shared by the matcher, the applier and the patcher: where lines start and which
 * line an offset is on. Terminators are CRLF, LF or a lone CR (eol.ts), as in text.ts's splitLines.
 */
import { runSliced, runWhole, STALE, type Sliced } from '../code/index/slices';
import { endsWithEol, EOL_RE } from './eol';

/** Lines a sliced pass over a file handles between two yields. */
export const LINES_PER_STEP = 4096;

/** A text's lines with their positions: `starts[i]` is where line i begins, `ends[i]` where its content ends. */
export interface LineIndex {
  readonly starts: readonly number[];
  readonly ends: readonly number[];
  readonly lines: readonly string[];
}

/**
 * Indexes every line of `text`, yielding every few thousand lines (a file may have millions). A
 * final terminator does not open an extra empty line (as splitLines), so a text of n complete
 * lines has n entries; the empty text has none.
 */
export function* indexLinesSliced(text: string): Sliced<LineIndex> {
  const starts: number[] = [];
  const ends: number[] = [];
  const lines: string[] = [];
  let pos = 0;
  for (const m of text.matchAll(EOL_RE)) {
    starts.push(pos);
    ends.push(m.index);
    lines.push(text.slice(pos, m.index));
    pos = m.index + m[0].length;
    if (lines.length % LINES_PER_STEP === 0) yield;
  }
  if (pos < text.length) {
    starts.push(pos);
    ends.push(text.length);
    lines.push(text.slice(pos));
  }
  return { starts, ends, lines };
}

/** Index of the last element of a sorted array that is <= value (0 when none is). */
export function floorIndex(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid] <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Splits into lines the way the matcher compares them; a final terminator does not make an extra line. */
export function splitSearchLines(text: string): string[] {
  const lines = text.split(/\r\n|\n|\r/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * 1-based line of the character at `offset`, without indexing the whole text (the apply path runs
 * this on every edit). Agrees with the line index (indexLinesSliced): the end of a text with a final
 * terminator counts as its last line, and an offset between the CR and LF of a CRLF is on that CRLF's line.
 */
export function lineNumberAt(text: string, offset: number): number {
  return runWhole(lineNumberAtSliced(text, offset));
}

/**
 * Lines of a whole text (a final terminator makes no extra line; 1 for an empty text), counted in
 * slices so a text of millions of lines does not hold the event loop.
 */
export async function lineCountInSlices(text: string, signal: AbortSignal): Promise<number> {
  const lines = await runSliced(lineNumberAtSliced(text, text.length), { signal });
  // Without a stale check the run always finishes or throws.
  if (lines === STALE) throw new Error('line count reported stale without a stale check');
  return lines;
}

/** Terminators counted between two yields of lineNumberAtSliced. */
const TERMINATORS_PER_STEP = 65_536;

/** lineNumberAt as a generator that yields every so many lines: a 60 MB text may hold 30 M of them. */
export function* lineNumberAtSliced(text: string, offset: number): Sliced<number> {
  let o = Math.min(offset, text.length);
  if (o === text.length && o > 0 && endsWithEol(text)) o -= text.endsWith('\r\n') ? 2 : 1;
  // Every LF before o ends a line; a CR does when no LF follows it. indexOf keeps the scans native.
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < o; i = text.indexOf('\n', i + 1)) {
    if (++line % TERMINATORS_PER_STEP === 0) yield;
  }
  let crs = 0;
  for (let i = text.indexOf('\r'); i >= 0 && i < o; i = text.indexOf('\r', i + 1)) {
    if (text.charCodeAt(i + 1) !== 10) line++;
    if (++crs % TERMINATORS_PER_STEP === 0) yield;
  }
  return line;
}
