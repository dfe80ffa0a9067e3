/**
 * Waiting for work with a deadline and a cancel, where the outcome says which of the three
 * happened. The work's own value never doubles as the marker for "too late": a formatter that
 * answered late once had its marker string written into a file as the new text.
 */

export type Raced<T> =
  | { readonly kind: 'done'; readonly value: T }
  | { readonly kind: 'late' }
  | { readonly kind: 'aborted' };

/**
 * Waits for `work` until `ms` have passed or `signal` aborts, whichever comes first. The work is
 * not stopped (a promise cannot be); a rejection of the work before the deadline is thrown, one
 * after it is swallowed.
 */
export async function withinDeadline<T>(work: PromiseLike<T>, ms: number, signal?: AbortSignal): Promise<Raced<T>> {
  if (signal?.aborted) return { kind: 'aborted' };
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const settled = Promise.resolve(work).then((value): Raced<T> => ({ kind: 'done', value }));
  settled.catch(() => undefined);
  const late = new Promise<Raced<T>>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'late' }), Math.max(0, ms));
  });
  const aborted = new Promise<Raced<T>>((resolve) => {
    onAbort = () => resolve({ kind: 'aborted' });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([settled, late, aborted]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
