/**
 * Undoing an edit's change regions (editRuns.ts) later, on a text the developer may have changed
 * since (Revert in the Agent Changes list). Lines keep their terminators: a revert must give back
 * the bytes that were there.
 */
import { CONTEXT, type EditRun } from './editRuns';
import { linesWithEnds } from './eol';

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
