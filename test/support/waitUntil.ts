/**
 * Polls `probe` until it gives something truthy and returns that value; rejects after `timeoutMs`
 * with an error naming `what` (a function when the message should show the state at that moment).
 */
export async function waitUntil<T>(
  probe: () => T | undefined | null | false,
  what: string | (() => string),
  timeoutMs = 10_000,
  everyMs = 20,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() - start > timeoutMs) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
