/**
 * The change regions of an edit, and keeping only some (the developer drops a hunk before approving); undoing them later is revert.ts.
 * Lines keep their terminators: a region that only gained or lost a line ending is a change like any other.
 */
import { diffArrays } from 'diff';
import { linesWithEnds } from './eol';

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

export const CONTEXT = 3;
/** Past this many line edits the diff gives up and the whole middle is one region (exact, only coarser). */
const MAX_EDIT_LENGTH = 1000;

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

/** Lines added and removed by the regions (what a list shows as +N −M). */
export function runCounts(runs: readonly EditRun[]): { added: number; removed: number } {
  return runs.reduce((c, r) => ({ added: c.added + r.after.length, removed: c.removed + r.before.length }), { added: 0, removed: 0 });
}
