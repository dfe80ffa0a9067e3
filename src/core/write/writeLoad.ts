/**
 * What writes in flight may hold, for the whole process: a write reads its file and plans the
 * change (each a copy of up to the largest file an edit takes), then its proposal waits for a
 * decision, holding the old and new text. Without a bound, many large edits sent at once take
 * gigabytes. Writes do not share the read tools' slots: they wait on people, and a read must not
 * queue behind a change nobody has looked at yet.
 */
import { t } from '../l10n';
import { BusyError, Limiter } from '../policy/limiter';
import { RetryLaterError } from '../protocol/errors';

/** Writes that read and plan at once; more wait in line (beyond the line: busy, nothing done). */
const PREPARING = new Limiter(() => ({ maxConcurrent: 2, maxQueued: 256 }));

/** Text (UTF-16 units) that proposals handed to a gate may hold together until they are decided. */
export const MAX_HELD_CHARS = 128 * 1024 * 1024;
let held = 0;

/**
 * Write calls between their start and the moment their proposal is handed over (waiting for their
 * file's lock or a slot included), and the text their params carry. Writes to one file queue on
 * its lock, each holding its params; past either bound a call is answered busy at once.
 */
export const WRITES_WAITING = { maxCalls: 256, maxChars: 64 * 1024 * 1024 };
let waitingCalls = 0;
let waitingChars = 0;

/**
 * Counts a write call (and the `chars` of text its params carry) until the returned release is
 * called; refuses it busy when the waiting writes already reach a bound. One call alone always fits:
 * its params were bounded when the frame was read.
 */
export function enterWrite(chars: number): () => void {
  if (waitingCalls >= WRITES_WAITING.maxCalls || (waitingCalls > 0 && waitingChars + chars > WRITES_WAITING.maxChars)) {
    // Retryable, and never kept for replay; the dispatcher words it as every busy answer.
    throw new BusyError(waitingCalls, 0, Math.min(waitingCalls, WRITES_WAITING.maxCalls));
  }
  waitingCalls++;
  waitingChars += chars;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    waitingCalls--;
    waitingChars -= chars;
  };
}

/** Write calls waiting now and the text they hold (for tests). */
export function waitingWrites(): { calls: number; chars: number } {
  return { calls: waitingCalls, chars: waitingChars };
}

/** A slot to read and plan one write in; resolves with its release. */
export function preparingSlot(signal: AbortSignal): Promise<() => void> {
  return PREPARING.acquire(signal);
}

/**
 * Counts a proposal's text until the returned release is called; refuses it (nothing is written)
 * when the proposals already waiting hold too much. One proposal alone always fits: edits are
 * bounded in size where they are parsed.
 */
export function holdProposal(chars: number): () => void {
  if (held > 0 && held + chars > MAX_HELD_CHARS) {
    const mb = (n: number): number => Math.ceil((n * 2) / (1024 * 1024));
    throw new RetryLaterError('INTERNAL_ERROR', t('Changes waiting for a decision already hold {0} MB of text; this one ({1} MB) would pass the limit. Nothing was written: try again once some are decided.', mb(held), mb(chars)));
  }
  held += chars;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held -= chars;
  };
}

/** Text held by proposals now (for tests). */
export function heldChars(): number {
  return held;
}
