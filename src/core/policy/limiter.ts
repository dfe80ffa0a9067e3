import { english, type Translate } from '../l10n';
import { RetryLaterError } from '../protocol/errors';

export interface ToolLimits {
  /** Tool calls that may run at once (the `agentBridge.maxConcurrentTools` setting). */
  readonly maxConcurrent: number;
  /** Calls that may wait for a slot; one more is answered "busy" at once. */
  readonly maxQueued: number;
  /** A read tool that has not answered this long after it arrived is stopped and answered TIMEOUT. */
  readonly timeoutMs: number;
}

/** 8 at once, 64 waiting, 25 s: under the backend's 30 s forwarding timeout (docs/protocol.md §4.4). */
export const DEFAULT_LIMITS: ToolLimits = { maxConcurrent: 8, maxQueued: 64, timeoutMs: 25_000 };

/** Fills in and clamps limits from settings or flags (a nonsense value falls back to the default). */
export function resolveLimits(partial: Partial<ToolLimits> | undefined): ToolLimits {
  const pick = (v: number | undefined, fallback: number, min: number): number =>
    typeof v === 'number' && Number.isFinite(v) && v >= min ? Math.floor(v) : fallback;
  return {
    maxConcurrent: pick(partial?.maxConcurrent, DEFAULT_LIMITS.maxConcurrent, 1),
    maxQueued: pick(partial?.maxQueued, DEFAULT_LIMITS.maxQueued, 0),
    timeoutMs: pick(partial?.timeoutMs, DEFAULT_LIMITS.timeoutMs, 1),
  };
}

/**
 * A counting semaphore with a bounded, first-come queue. `acquire` resolves with a release
 * function, rejects at once with a "busy" ToolError when the queue is full, and rejects with the
 * signal's reason when the call is aborted while it waits.
 */
export class Limiter {
  private running = 0;
  private readonly queue: { grant: () => void }[] = [];

  constructor(private readonly limits: () => Pick<ToolLimits, 'maxConcurrent' | 'maxQueued'>) {}

  get active(): number {
    return this.running;
  }

  get waiting(): number {
    return this.queue.length;
  }

  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    const { maxConcurrent, maxQueued } = this.limits();
    if (this.running < maxConcurrent && this.queue.length === 0) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    if (this.queue.length >= maxQueued) return Promise.reject(new BusyError(this.running, this.queue.length, maxConcurrent));
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          this.running++;
          resolve(this.releaser());
        },
      };
      const onAbort = (): void => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(entry);
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.running--;
      this.pump();
    };
  }

  private pump(): void {
    const { maxConcurrent } = this.limits();
    while (this.running < maxConcurrent && this.queue.length > 0) this.queue.shift()?.grant();
  }
}

/** The answer to a call beyond the queue: retryable, so never replayed from the answered-id cache. */
export class BusyError extends RetryLaterError {
  constructor(
    readonly running: number,
    readonly waiting: number,
    readonly max: number,
  ) {
    super('INTERNAL_ERROR', busyMessage(english, running, waiting, max));
  }
}

export const busyMessage = (t: Translate, running: number, waiting: number, max: number): string =>
  t('Agent Bridge is busy: {0} tool calls are running and {1} are waiting (at most {2} run at once). Nothing was done; try again in a moment.', running, waiting, max);

/** True for the answer `acquire` gives when the queue is full (such answers are not kept for replay). */
export function isBusyError(e: unknown): e is BusyError {
  return e instanceof BusyError;
}
