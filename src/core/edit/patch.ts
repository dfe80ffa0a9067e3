/**
 * `structuredPatch` (docs/protocol.md §7.4): hunks of a line diff between the old and new text of an edit.
 *
 * Lines are compared logically: terminators are not part of a line, so a CRLF file diffs like an LF
 * one and hunk lines never carry '\r' or '\n'. Hunks only have ' ', '-', '+' lines; the diff
 * package's "\ No newline at end of file" markers are dropped on purpose, since 004's shape has no
 * such line: a last line that only gained or lost its terminator shows as '-line' '+line'.
 */
import { structuredPatch } from 'diff';
import { splitLines } from '../workspace/text';
import { endsWithEol } from './eol';
import type { Hunk } from './types';

function joinLines(lines: readonly string[], terminated: boolean): string {
  return lines.length === 0 ? '' : lines.join('\n') + (terminated ? '\n' : '');
}

/**
 * The hunks turning `oldText` into `newText`, with `context` unchanged lines around each change
 * (3, as `diff -u` and git; the protocol sources' examples are hand-trimmed and show fewer). Line numbers are
 * 1-based; as in the `diff` package, a hunk that only adds lines has oldLines 0 and oldStart the old
 * line it goes before.
 *
 * Edits change a small region of a possibly huge file, so the common head and tail are cut off
 * first (keeping `context` lines of each) and only the rest goes through the diff package, whose
 * cost grows with the lines it is given.
 */
/** Past this many line edits the diff package gives up (its cost grows with the square of the edits). */
const MAX_EDIT_LENGTH = 4000;

export function structuredPatchOf(oldText: string, newText: string, context = 3): Hunk[] {
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

  const patch = structuredPatch('a', 'b', oldPart, newPart, undefined, undefined, { context, maxEditLength: MAX_EDIT_LENGTH });
  if (!patch) {
    // A change too large to diff line by line in good time (a whole rewritten file): one hunk that
    // replaces the changed lines, still exact, never minutes of the host's CPU.
    const removed = a.slice(head, a.length - tail).map((l) => `-${l}`);
    const added = b.slice(head, b.length - tail).map((l) => `+${l}`);
    const before = a.slice(lo, head).map((l) => ` ${l}`);
    const after = a.slice(a.length - tail, aHi).map((l) => ` ${l}`);
    return [{ oldStart: lo + 1, oldLines: aHi - lo, newStart: lo + 1, newLines: bHi - lo, lines: [...before, ...removed, ...added, ...after] }];
  }
  return patch.hunks.map((h) => ({
    oldStart: h.oldStart + lo,
    oldLines: h.oldLines,
    newStart: h.newStart + lo,
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
