/** Line terminators (CRLF, LF or a lone CR, as in VS Code): the writers keep a file's own, apart from how lines are counted (lines.ts). */

export type Eol = '\r\n' | '\n' | '\r';

export const EOL_RE = /\r\n|\n|\r/g;

const CR = 13;
const LF = 10;

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

/** Splits a text into lines, each with its own terminator (CRLF, LF or CR); the last may have none. */
export function linesWithEnds(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
      out.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}
