/**
 * The change regions of an edit, and the two things done with them: putting back only some of them
 * (the developer drops a hunk of a proposal before approving it) and undoing them later on a text
 * the developer may have changed since (Revert in the Agent Changes list).
 *
 * Lines keep their terminators here: a revert must give back the bytes that were there, and a
 * region that only gained or lost a line ending is a change like any other.
 */
import { diffArrays } from 'diff';

/** One changed region: `before` lines at `oldAt` became `after` lines at `newAt` (0-based line indexes). */
export interface EditRun {
  readonly oldAt: number;
  readonly newAt: number;
  readonly before: readonly string[];
  readonly after: readonly string[];
  /** Up to CONTEXT lines of the new text just above and below the region: where it sits, to find it again. */
  readonly above: readonly string[];
  readonly below: readonly string[];
}

const CONTEXT = 3;
/** Past this many line edits the diff gives up and the whole middle is one region (exact, only coarser). */
const MAX_EDIT_LENGTH = 1000;

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

/** The regions in which `after` differs from `before`, in order. */
export function editRuns(beforeText: string, afterText: string): EditRun[] {
  const a = linesWithEnds(beforeText);
  const b = linesWithEnds(afterText);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  if (head === a.length && head === b.length) return [];
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const parts = diffArrays(midA, midB, { maxEditLength: MAX_EDIT_LENGTH }) ?? [
    { value: midA, removed: true, added: false, count: midA.length },
    { value: midB, added: true, removed: false, count: midB.length },
  ];
  const runs: EditRun[] = [];
  let i = head;
  let j = head;
  let k = 0;
  while (k < parts.length) {
    const part = parts[k];
    if (!part.added && !part.removed) {
      i += part.value.length;
      j += part.value.length;
      k++;
      continue;
    }
    // A region is a removal, an addition, or a removal followed by an addition.
    const removed = part.removed ? part.value : [];
    const added = part.removed && parts[k + 1]?.added ? parts[k + 1].value : part.added ? part.value : [];
    k += part.removed && parts[k + 1]?.added ? 2 : 1;
    runs.push({
      oldAt: i,
      newAt: j,
      before: removed,
      after: added,
      above: b.slice(Math.max(0, j - CONTEXT), j),
      below: b.slice(j + added.length, j + added.length + CONTEXT),
    });
    i += removed.length;
    j += added.length;
  }
  return runs;
}

/** `before` with only the kept regions applied (`keep[n]` for `runs[n]`): what lands when the developer drops some hunks. */
export function applyKept(beforeText: string, runs: readonly EditRun[], keep: readonly boolean[]): string {
  const a = linesWithEnds(beforeText);
  const out: string[] = [];
  let i = 0;
  runs.forEach((run, n) => {
    out.push(...a.slice(i, run.oldAt));
    out.push(...(keep[n] ? run.after : run.before));
    i = run.oldAt + run.before.length;
  });
  out.push(...a.slice(i));
  return out.join('');
}

export type RevertPlan =
  | { readonly ok: true; readonly text: string }
  /** `line`: 1-based line of the current text where the agent's change was expected; `run`: which region. */
  | { readonly ok: false; readonly reason: 'changed' | 'ambiguous'; readonly line: number; readonly run: number };

const sameAt = (lines: readonly string[], at: number, want: readonly string[]): boolean => {
  if (at < 0 || at + want.length > lines.length) return false;
  for (let n = 0; n < want.length; n++) if (lines[at + n] !== want[n]) return false;
  return true;
};

/**
 * Whether the region's surroundings are still there at `at`: its context lines, and for a region
 * of removed lines only (nothing of the agent's to find), also the file's top or end where it had
 * fewer than CONTEXT lines because it sat there.
 */
function contextAt(lines: readonly string[], at: number, run: EditRun): boolean {
  const top = at - run.above.length;
  const end = at + run.after.length;
  if (!sameAt(lines, top, run.above) || !sameAt(lines, end, run.below)) return false;
  if (run.after.length > 0) return true;
  return (run.above.length === CONTEXT || top === 0) && (run.below.length === CONTEXT || end + run.below.length === lines.length);
}

/**
 * How to undo an edit (its `runs`) on the text the file has now. Each region is looked for where
 * it was, shifted by what moved above it: its lines must still be the agent's and its context
 * lines (the few around it) unchanged. Not there (the developer added or removed lines above it),
 * the nearest place that has both is taken, and only if no other place fits as well. Anything
 * else is refused: a revert never overwrites work done since.
 */
export function planRevert(runs: readonly EditRun[], currentText: string): RevertPlan {
  const cur = linesWithEnds(currentText);
  const found: number[] = [];
  let drift = 0;
  let floor = 0;
  for (let n = 0; n < runs.length; n++) {
    const run = runs[n];
    const expected = run.newAt + drift;
    // The same line can appear elsewhere (the developer typed it again): only its surroundings tell.
    const fits = (at: number) => at >= floor && sameAt(cur, at, run.after) && contextAt(cur, at, run);
    let at: number | undefined = fits(expected) ? expected : undefined;
    for (let d = 1; at === undefined && (expected - d >= floor || expected + d <= cur.length); d++) {
      const up = fits(expected - d);
      const down = fits(expected + d);
      if (up && down) return { ok: false, reason: 'ambiguous', line: Math.min(expected, cur.length) + 1, run: n };
      if (up) at = expected - d;
      else if (down) at = expected + d;
    }
    const line = Math.min(Math.max(expected, 0), cur.length) + 1;
    if (at === undefined) return { ok: false, reason: 'changed', line, run: n };
    // The old text ended the file without a line terminator: anything after the region now (a line
    // the developer added) would be glued onto that last line.
    const last = run.before[run.before.length - 1];
    if (last !== undefined && !/[\r\n]$/.test(last) && at + run.after.length < cur.length) return { ok: false, reason: 'changed', line, run: n };
    found.push(at);
    drift = at - run.newAt;
    floor = at + run.after.length;
  }
  const out: string[] = [];
  let i = 0;
  runs.forEach((run, n) => {
    out.push(...cur.slice(i, found[n]));
    out.push(...run.before);
    i = found[n] + run.after.length;
  });
  out.push(...cur.slice(i));
  return { ok: true, text: out.join('') };
}

/** Lines added and removed by the regions (what a list shows as +N −M). */
export function runCounts(runs: readonly EditRun[]): { added: number; removed: number } {
  return runs.reduce((c, r) => ({ added: c.added + r.after.length, removed: c.removed + r.before.length }), { added: 0, removed: 0 });
}
