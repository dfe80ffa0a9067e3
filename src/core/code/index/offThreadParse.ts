import type { Logger } from '../../log';
import { ToolError } from '../../protocol/errors';
import { extractPacked, languageForPath, type ExtractMode } from '../languages/registry';
import type { PackedJson } from '../packedSymbols';
import { ParsePool, ParseRefused, workerScript } from './parsePool';

/**
 * Parses made one file at a time, outside a build's own pool: a saved file (`RecordStore.update`),
 * a build whose workers are gone, the answers made before the index is built (intel/coldParse.ts).
 * A hostile or generated file near the size limit costs the parser seconds, which on the host's
 * thread would freeze every other call (in VS Code, the whole extension host). So anything but a
 * small file is parsed by a parse worker (parsePool.ts: the same packed symbols a build stores),
 * from a pool shared by these parses and closed once idle. A larger file no worker can take is not
 * parsed at all (`NotParsedHere`).
 */

/** Files up to this size are parsed on the host's thread (a worker's start costs more than their parse). */
const MAIN_THREAD_PARSE_BYTES = 64 * 1024;

/** How long a shared worker is kept after its last job: the next saves and questions come soon. */
const IDLE_CLOSE_MS = 30_000;

/** The file was not parsed: too large for the host's thread with no worker to take it, or a worker failed on it. */
export class NotParsedHere extends Error {}

interface SharedPool {
  readonly script: string | undefined;
  readonly pool: ParsePool;
  jobs: number;
  idleTimer: NodeJS.Timeout | undefined;
}

/** One pool per worker script (tests give broken ones). */
const pools = new Map<string | undefined, SharedPool>();

function sharedPool(script: string | undefined): SharedPool | undefined {
  const known = pools.get(script);
  if (known && !known.pool.alive) dropPool(known);
  let shared = pools.get(script);
  if (!shared) {
    const pool = ParsePool.start(1, script ?? workerScript());
    if (!pool) return undefined;
    pools.set(script, (shared = { script, pool, jobs: 0, idleTimer: undefined }));
  }
  return shared;
}

function dropPool(p: SharedPool): void {
  if (p.idleTimer) clearTimeout(p.idleTimer);
  if (pools.get(p.script) === p) pools.delete(p.script);
  void p.pool.close();
}

/** Closes the shared workers now (tests; a host shutting down). */
export async function closeSharedParsePools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  for (const p of all) if (p.idleTimer) clearTimeout(p.idleTimer);
  await Promise.all(all.map((p) => p.pool.close()));
}

export interface OffThreadOptions {
  /** The worker script; default `workerScript()`. */
  readonly script?: string;
  readonly signal?: AbortSignal;
  readonly log?: Logger;
}

/**
 * The packed symbols of `text` (the file `rel`) parsed in `mode`: undefined for a file in no
 * supported language. A small file is parsed here, a larger one by a shared worker. Throws
 * NotParsedHere when it cannot be parsed within the host's bounds, and CANCELLED when `signal`
 * aborts first (the worker's job is left to end on its own).
 */
export async function parseBounded(rel: string, text: string, mode: ExtractMode, options: OffThreadOptions = {}): Promise<PackedJson | undefined> {
  const { signal } = options;
  if (!languageForPath(rel)) return undefined;
  if (signal?.aborted) throw cancelled();
  if (Buffer.byteLength(text, 'utf8') <= MAIN_THREAD_PARSE_BYTES) return extractPacked(rel, text, mode);
  const p = sharedPool(options.script);
  if (!p) throw notParsed(rel, 'no parse worker could start', options.log);
  p.jobs++;
  if (p.idleTimer) clearTimeout(p.idleTimer);
  try {
    return await untilAborted(p.pool.parse(rel, text, mode), signal);
  } catch (e) {
    if (e instanceof ToolError) throw e;
    // A worker that could not load takes no more jobs: the next parse starts another.
    if (!(e instanceof ParseRefused)) dropPool(p);
    throw notParsed(rel, e instanceof Error ? e.message : String(e), options.log);
  } finally {
    if (--p.jobs === 0 && pools.get(p.script) === p) {
      p.idleTimer = setTimeout(() => dropPool(p), IDLE_CLOSE_MS);
      p.idleTimer.unref();
    }
  }
}

function notParsed(rel: string, why: string, log: Logger | undefined): NotParsedHere {
  log?.debug(`code index: ${rel} not parsed off the host's thread: ${why}`);
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
