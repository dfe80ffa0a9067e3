/**
 * Line bookkeeping shared by the matcher, the applier and the patcher. Line terminators are CRLF,
 * LF or a lone CR, as in VS Code and text.ts's splitLines.
 */

export type Eol = '\r\n' | '\n' | '\r';

const EOL_RE = /\r\n|\n|\r/g;

/** A text's lines with their positions: `starts[i]` is where line i begins, `ends[i]` where its content ends. */
export interface LineIndex {
  readonly starts: readonly number[];
  readonly ends: readonly number[];
  readonly lines: readonly string[];
}

/**
 * Indexes every line of `text`. A final terminator does not open an extra empty line (as splitLines),
 * so a text of n complete lines has n entries; the empty text has none.
 */
export function indexLines(text: string): LineIndex {
  const starts: number[] = [];
  const ends: number[] = [];
  const lines: string[] = [];
  let pos = 0;
  for (const m of text.matchAll(EOL_RE)) {
    starts.push(pos);
    ends.push(m.index);
    lines.push(text.slice(pos, m.index));
    pos = m.index + m[0].length;
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

/** 1-based line of the character at `offset` (an offset at the very end counts as the last line). */
export function lineAt(index: LineIndex, offset: number): number {
  return index.starts.length === 0 ? 1 : floorIndex(index.starts, offset) + 1;
}

/**
 * The terminator used by most lines, or undefined for a text without any. Ties go to LF, then CRLF.
 * Counted with indexOf (native scans), as this runs on every edit of possibly huge files.
 */
export function dominantEol(text: string): Eol | undefined {
  let lf = 0;
  let crlf = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  let cr = 0;
  for (let i = text.indexOf('\r'); i >= 0; i = text.indexOf('\r', i + 1)) if (text.charCodeAt(i + 1) !== 10) cr++;
  if (crlf + lf + cr === 0) return undefined;
  if (lf >= crlf && lf >= cr) return '\n';
  return crlf >= cr ? '\r\n' : '\r';
}

/** Rewrites every terminator of `text` as `eol`. */
export function withEol(text: string, eol: Eol): string {
  return text.replace(EOL_RE, eol);
}

export function endsWithEol(text: string): boolean {
  const last = text.charCodeAt(text.length - 1);
  return last === 10 || last === 13;
}

/** Drops one final terminator (CRLF counts as one). */
export function dropFinalEol(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  return endsWithEol(text) ? text.slice(0, -1) : text;
}

/** Splits into lines the way the matcher compares them; a final terminator does not make an extra line. */
export function splitSearchLines(text: string): string[] {
  const lines = text.split(/\r\n|\n|\r/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Only spaces and tabs count as indentation or trailing blanks: a BOM or NBSP is content. */
export function stripTrailingBlanks(line: string): string {
  let end = line.length;
  while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
  return end === line.length ? line : line.slice(0, end);
}

export function leadingBlanks(line: string): string {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
  return line.slice(0, i);
}

/** A line with its indentation and trailing blanks removed: the key of the indentation tier. */
export function trimBlanks(line: string): string {
  return stripTrailingBlanks(line).slice(leadingBlanks(line).length);
}

export function isBlank(line: string): boolean {
  return trimBlanks(line) === '';
}

/**
 * 1-based line of the character at `offset`, without indexing the whole text (the apply path runs
 * this on every edit). Agrees with lineAt(indexLines(text), offset): the end of a text with a final
 * terminator counts as its last line, and an offset between the CR and LF of a CRLF is on that CRLF's line.
 */
export function lineNumberAt(text: string, offset: number): number {
  let o = Math.min(offset, text.length);
  if (o === text.length && o > 0 && endsWithEol(text)) o -= text.endsWith('\r\n') ? 2 : 1;
  // Every LF before o ends a line; a CR does when no LF follows it. indexOf keeps the scans native.
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < o; i = text.indexOf('\n', i + 1)) line++;
  for (let i = text.indexOf('\r'); i >= 0 && i < o; i = text.indexOf('\r', i + 1)) {
    if (text.charCodeAt(i + 1) !== 10) line++;
  }
  return line;
}

const CR = 13;
const LF = 10;

/**
 * The smallest single replacement that turns `before` into `after`: keeps cursors, folds and undo
 * tidy. Its edges never fall between the CR and LF of one line break: a document takes a lone CR
 * at the edge of an edit as a line break of its own, and would add an empty line.
 */
export function minimalReplace(before: string, after: string): { start: number; end: number; text: string } {
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  if (start > 0 && before.charCodeAt(start - 1) === CR) start--;
  let tail = 0;
  while (tail < max - start && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  if (tail > 0 && before.charCodeAt(before.length - tail) === LF) tail--;
  return { start, end: before.length - tail, text: after.slice(start, after.length - tail) };
}

/** Whether a text ends its lines in more than one way (CRLF, LF, lone CR): an editor document cannot hold it as it is. */
export function hasMixedEol(text: string): boolean {
  let seen = '';
  for (let i = text.search(/[\r\n]/); i >= 0 && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== CR && c !== LF) continue;
    const kind = c === LF ? 'lf' : text.charCodeAt(i + 1) === LF ? 'crlf' : 'cr';
    if (kind === 'crlf') i++;
    if (seen && seen !== kind) return true;
    seen = kind;
  }
  return false;
}
