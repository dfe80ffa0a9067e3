import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';

/**
 * A long lookup written once, as a generator that yields wherever it may pause (after a file, after
 * a call site). Run whole, it is the plain synchronous lookup; run in slices, it gives the event
 * loop back every few milliseconds, so one large question (the callers of `add` on the JDK read
 * thousands of call sites) does not stall the extension host and every other tool call
 * behind it, and its cancel is heard in the middle.
 *
 * A sliced run may see the index change at a pause: it stops there (`stale`), before any step
 * meets the new state beside the old one, and its caller asks again (intel.ts `answerFromBuiltIndex`).
 */
export type Sliced<T> = Generator<undefined, T, undefined>;

/**
 * The time a sliced run keeps the thread before it lets the event loop run, and how many records a
 * scan of the whole index looks at between two yields (tests lower both: a pause at every yield,
 * and yields on a small project).
 */
export const SLICE_LIMITS = { ms: 8, records: 1024 };

/** Pauses the sliced runs have made so far (tests read it: a run meant to be sliced made some). */
export const slicePauses = { count: 0 };

/** A scan's `n`-th record (from 1): yield after it? */
export const scanPause = (n: number): boolean => n % Math.max(1, SLICE_LIMITS.records) === 0;

/** Runs `work` to its end at once. */
export function runWhole<T>(work: Sliced<T>): T {
  for (;;) {
    const r = work.next();
    if (r.done) return r.value;
  }
}

/** What `runSliced` gives when `stale` said so at a pause: the work was stopped there. */
export const STALE: unique symbol = Symbol('stale');

export interface SliceOptions {
  readonly signal?: AbortSignal;
  readonly sliceMs?: number;
  /** Asked after each pause: true stops the work before its next step (the state it read is gone). */
  readonly stale?: () => boolean;
}

/**
 * Runs `work` in slices of about `sliceMs`, the event loop running between them; rejects with the
 * signal's reason at the first pause after it aborts, and gives STALE at the first pause after
 * which `stale` is true (either way the generator is closed, its `finally` run).
 */
export async function runSliced<T>(work: Sliced<T>, options: SliceOptions = {}): Promise<T | typeof STALE> {
  const { signal, sliceMs = SLICE_LIMITS.ms, stale } = options;
  let done = false;
  try {
    let from = performance.now();
    for (;;) {
      const r = work.next();
      if (r.done) {
        done = true;
        return r.value;
      }
      if (performance.now() - from < sliceMs) continue;
      slicePauses.count++;
      await new Promise<void>((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      if (stale?.()) return STALE;
      from = performance.now();
    }
  } finally {
    if (!done) work.return(undefined as never);
  }
}
