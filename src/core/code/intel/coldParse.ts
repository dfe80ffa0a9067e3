import { ToolError } from '../../protocol/errors';
import { ParsePool, ParseRefused, workerScript } from '../index/parsePool';
import { extractPacked, languageForPath, type ExtractMode } from '../languages/registry';
import type { PackedJson } from '../packedSymbols';
import { codeIndexSettings } from './state';

/**
 * The parses made for answers before the index is built (quickLookup.ts, neededFilesIndex.ts).
 * A hostile or generated file of 2 MB costs the parser seconds, which on the host's thread would
 * freeze every other call (in VS Code, the whole extension host). So anything but a small file is
 * parsed by a parse worker (parsePool.ts, the index build's, giving the same packed symbols the
 * index stores), one shared pool for these answers, closed once idle. Only small files are parsed
 * here; a larger one no worker can take is not parsed at all (`NotParsedHere`: the index answers).
 */

/** Files up to this size are parsed on the host's thread (a worker's start costs more than their parse). */
export const MAIN_THREAD_PARSE_BYTES = 64 * 1024;

/** How long the cold answers' worker is kept after its last job: the next questions of a session come soon. */
const IDLE_CLOSE_MS = 30_000;

/**
 * The file was not parsed for this answer: too large for the host's thread with no worker to take
 * it, or a worker failed on it (the index leaves such a file out). The caller gives the question to
 * the index instead.
 */
export class NotParsedHere extends Error {}

interface ColdPool {
  readonly pool: ParsePool;
  jobs: number;
  idleTimer: NodeJS.Timeout | undefined;
}

let cold: ColdPool | undefined;

/** The shared pool, started when first needed; undefined when no worker can start. */
function coldPool(): ColdPool | undefined {
  if (cold && !cold.pool.alive) dropPool(cold);
  if (!cold) {
    const pool = ParsePool.start(1, codeIndexSettings().coldWorkerScript ?? workerScript());
    if (!pool) return undefined;
    cold = { pool, jobs: 0, idleTimer: undefined };
  }
  return cold;
}

function dropPool(c: ColdPool): void {
  if (c.idleTimer) clearTimeout(c.idleTimer);
  if (cold === c) cold = undefined;
  void c.pool.close();
}

/** Closes the cold answers' worker now (tests; a host shutting down). */
export async function closeColdParsePool(): Promise<void> {
  const c = cold;
  cold = undefined;
  if (c?.idleTimer) clearTimeout(c.idleTimer);
  await c?.pool.close();
}

/**
 * The packed symbols of `text` (the file `rel`) parsed in `mode`, as the index would store them:
 * undefined for a file in no supported language. Throws NotParsedHere when it cannot be parsed
 * within the host's bounds, and CANCELLED when `signal` aborts first (the worker's job is left to
 * end on its own).
 */
export async function packedAlone(rel: string, text: string, mode: ExtractMode, signal?: AbortSignal): Promise<PackedJson | undefined> {
  if (!languageForPath(rel)) return undefined;
  if (signal?.aborted) throw cancelled();
  if (Buffer.byteLength(text, 'utf8') <= MAIN_THREAD_PARSE_BYTES) return extractPacked(rel, text, mode);
  const c = coldPool();
  if (!c) throw notParsed(rel, 'no parse worker could start');
  c.jobs++;
  if (c.idleTimer) clearTimeout(c.idleTimer);
  try {
    return await untilAborted(c.pool.parse(rel, text, mode), signal);
  } catch (e) {
    if (e instanceof ToolError) throw e;
    // A worker that could not load takes no more jobs: the next answer starts another.
    if (!(e instanceof ParseRefused)) dropPool(c);
    throw notParsed(rel, e instanceof Error ? e.message : String(e));
  } finally {
    if (--c.jobs === 0 && cold === c) {
      c.idleTimer = setTimeout(() => dropPool(c), IDLE_CLOSE_MS);
      c.idleTimer.unref();
    }
  }
}

function notParsed(rel: string, why: string): NotParsedHere {
  codeIndexSettings().log?.debug(`code answer: ${rel} not parsed before the index: ${why}`);
  return new NotParsedHere(`${rel}: ${why}`);
}

const cancelled = (): ToolError => new ToolError('CANCELLED', 'Cancelled while parsing files for the answer.');

/** `work`'s outcome, or CANCELLED as soon as `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(cancelled());
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (): void => signal.removeEventListener('abort', onAbort);
    work.then(
      (v) => (done(), resolve(v)),
      (e: unknown) => (done(), reject(e)),
    );
  });
}
