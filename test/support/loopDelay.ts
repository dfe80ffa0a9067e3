import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * `work`, with the event loop's worst delay meanwhile in ms. The monitor records from its second
 * tick on, and a block that just ended is recorded only when its timer fires once more: it is
 * given a tick before and after, so no block at either end goes unseen.
 */
export async function heldDuring<T>(work: () => Promise<T>): Promise<{ value: T; heldMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  await new Promise((resolve) => setTimeout(resolve, 50));
  try {
    const value = await work();
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { value, heldMs: delay.max / 1e6 };
  } finally {
    delay.disable();
  }
}
