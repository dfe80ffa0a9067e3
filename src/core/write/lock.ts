/**
 * Serializes work per file: two writes to one file never interleave their read-match-write steps,
 * while writes to different files run concurrently.
 */
const tails = new Map<string, Promise<unknown>>();

export async function withFileLock<T>(absPath: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(absPath) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(work);
  const tail = run.catch(() => undefined);
  tails.set(absPath, tail);
  try {
    return await run;
  } finally {
    // Drop the entry once nobody queued behind us, so the map does not grow with every file ever written.
    if (tails.get(absPath) === tail) tails.delete(absPath);
  }
}
