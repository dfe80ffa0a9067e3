/** The search lines against the file's closest region, as the failure message shows them: a short diff with long lines cut. */
import { diffArrays } from 'diff';
import { stripTrailingBlanks, trimBlanks } from './blanks';

const MAX_DIFF_LINES = 24;
/** Minified files have megabyte lines: shown lines are cut. */
const MAX_SHOWN_CHARS = 200;
const MAX_EDITS = 200;
/** Lines of each side compared: the diff is cut to a few rows anyway, and Myers on a million lines takes seconds even within MAX_EDITS. */
const MAX_DIFFED_LINES = 2000;

const sameKey = (x: string, y: string): boolean => trimBlanks(x) === trimBlanks(y);

/**
 * Long sides only: the equal lines at both ends dropped (but for the one line of context before the
 * first change and the two after the last that the snippet would show), and what is left capped.
 */
function focus(a: readonly string[], b: readonly string[]): { a: readonly string[]; b: readonly string[]; cut: boolean } {
  if (a.length <= MAX_DIFFED_LINES && b.length <= MAX_DIFFED_LINES) return { a, b, cut: false };
  let head = 0;
  while (head < a.length && head < b.length && sameKey(a[head], b[head])) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && sameKey(a[a.length - 1 - tail], b[b.length - 1 - tail])) tail++;
  const from = Math.max(0, head - 1);
  const kept = Math.min(tail, 2);
  const aEnd = a.length - tail + kept;
  const bEnd = b.length - tail + kept;
  const cut = aEnd - from > MAX_DIFFED_LINES || bEnd - from > MAX_DIFFED_LINES;
  return { a: a.slice(from, Math.min(aEnd, from + MAX_DIFFED_LINES)), b: b.slice(from, Math.min(bEnd, from + MAX_DIFFED_LINES)), cut };
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
export function diffSnippet(searchLines: readonly string[], fileLines: readonly string[]): string[] {
  const focused = focus(searchLines, fileLines);
  const a = focused.a.map(stripTrailingBlanks);
  const b = focused.b.map(stripTrailingBlanks);
  // Bounded: Myers is O(lines x edits), and a 2,000-line search unlike its region must not take seconds.
  const parts = diffArrays(a, b, { comparator: sameKey, maxEditLength: MAX_EDITS });
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
  return focused.cut ? [...out, `… (only ${MAX_DIFFED_LINES} lines compared)`] : out;
}

