/**
 * The time an edit may take to match, and how it gives the event loop back meanwhile. Matching is
 * written as generators (slices.ts) that yield every few thousand steps: the writing tools run them
 * in slices under a deadline, so a pathological edit fails with a clear TIMEOUT instead of holding
 * the host, and every other call is answered while it runs. The synchronous entry points (tests,
 * benchmarks) run the same generators whole, under the same deadline.
 */
import { performance } from 'node:perf_hooks';
import { runSliced, runWhole, STALE, type Sliced } from '../code/index/slices';
import type { Translate } from '../l10n';
import { ToolError } from '../protocol/errors';
import { ENGLISH } from './errors';

/**
 * Matching time one call may use, and the most edits one MultiEdit may carry. Real agents send a
 * handful of edits (dozens at most); a thousand leaves ample room. Tests lower `matchMs`.
 */
export const EDIT_LIMITS = { matchMs: 10_000, maxEdits: 1000, maxLines: 1_000_000, maxChars: 16_000_000 };

/**
 * Matching keeps a string, a key and a table entry per line: a large file of empty lines could
 * take gigabytes and end the process. A file past the bounds is refused before any of that is built.
 */
export function refuseUnmatchable(text: string, path: string, t: Translate = ENGLISH): void {
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1 && lines <= EDIT_LIMITS.maxLines; at = text.indexOf('\n', at + 1)) lines++;
  if (text.length > EDIT_LIMITS.maxChars || lines > EDIT_LIMITS.maxLines) {
    throw new ToolError(
      'BAD_REQUEST',
      t('{0} is too large to edit by matching text (at most {1} lines and {2} MB). Nothing was changed. Write the whole file with Replace instead.', path, EDIT_LIMITS.maxLines, EDIT_LIMITS.maxChars / 1_000_000),
    );
  }
}

/** `work`, stopped with TIMEOUT at the first yield after `EDIT_LIMITS.matchMs` from its start. */
function* withinDeadline<T>(work: Sliced<T>, t: Translate = ENGLISH): Sliced<T> {
  const limitMs = EDIT_LIMITS.matchMs;
  const deadline = performance.now() + limitMs;
  let done = false;
  try {
    for (;;) {
      const r = work.next();
      if (r.done) {
        done = true;
        return r.value;
      }
      if (performance.now() > deadline) {
        throw new ToolError(
          'TIMEOUT',
          t('Matching the edit took longer than {0} s and was stopped; the file is too large or too repetitive for this search text. Send a shorter, more distinctive text, or fewer edits. Nothing was changed.', limitMs / 1000),
        );
      }
      yield;
    }
  } finally {
    if (!done) work.return(undefined as never);
  }
}

/** Runs edit work to its end at once, under the deadline. */
export function runEditWhole<T>(work: Sliced<T>, t: Translate = ENGLISH): T {
  return runWhole(withinDeadline(work, t));
}

/** Runs edit work in slices, under the deadline; a cancel (the signal) stops it at the next pause. */
export async function runEditSliced<T>(work: Sliced<T>, signal: AbortSignal | undefined, t: Translate = ENGLISH): Promise<T> {
  const r = await runSliced(withinDeadline(work, t), { signal });
  // No `stale` check is given, so the run always finishes or throws.
  if (r === STALE) throw new Error('edit work reported stale without a stale check');
  return r;
}
