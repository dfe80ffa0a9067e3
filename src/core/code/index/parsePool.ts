import * as os from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { CheckedFile } from '../../policy/safeRead';
import type { ExtractMode } from '../languages/registry';
import { grammarDirectory } from '../parse/parser';
import type { PackedJson } from '../packedSymbols';
import type { WorkerAnswer } from './parseWorker';
import { findWorkerScript, startWorker } from '../../workers';

/**
 * Parse workers for the index build (node:worker_threads, so the same in the headless host and in
 * VS Code's extension host): each loads web-tree-sitter and the grammars itself and turns a file's
 * text into its packed symbols, the same `extractPacked` gives on the main thread. A job goes
 * to the worker with the fewest in hand. A worker whose script or wasm cannot load fails its jobs
 * and is not used again; the caller then parses on the main thread. A file the worker fails on,
 * dies on or hangs on once it works is refused (ParseRefused): the caller leaves it out.
 */

/** The worker script: dist/codeWorker.js beside the bundle, or parseWorker.ts when running from sources (tsx). */
export function workerScript(): string | undefined {
  if (typeof __dirname !== 'string') return undefined;
  return findWorkerScript(__dirname, 'codeWorker.js', 'parseWorker.ts');
}

/**
 * On Linux one worker per core, at most 4: the workers run below the main thread's priority
 * (parseWorker.ts), so the host's event loop still gets the CPU it asks for and the build takes
 * what is left. Elsewhere a worker's priority cannot be lowered alone, so a core is kept for the
 * host: min(cores − 1, 4). At least 1.
 */
export function defaultWorkerCount(): number {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(1, Math.min(process.platform === 'linux' ? cores : cores - 1, 4));
}

/**
 * A parse's outcome: the packed symbols (undefined: no supported language), `unreadable` when the
 * worker read the file and could not use it, `changed` when it was not the file that was checked.
 */
export interface ParseOutcome {
  readonly packed?: PackedJson;
  readonly unreadable?: true;
  readonly changed?: true;
}

/**
 * A file a worker failed on (its extraction threw), or was parsing when it died or ran out of
 * time: the main thread must not parse it in its turn (it would fail the same way, and a worker's
 * out-of-memory would become the host's), so it is left out of the index.
 */
export class ParseRefused extends Error {}

interface Pending {
  readonly resolve: (outcome: ParseOutcome) => void;
  readonly reject: (e: Error) => void;
}

interface Slot {
  readonly worker: Worker;
  /** In the order sent: a worker parses one job at a time, the first. */
  readonly pending: Map<number, Pending>;
  dead: boolean;
  /** The worker's script has loaded: a death from now on is a job's doing, not the script's. */
  ready: boolean;
  /** When the first pending job started. */
  since: number;
  /** The worker has answered a job without an error. */
  parsed: boolean;
}

/** A job running longer is taken as a hostile file: its worker is stopped and the job refused. */
const JOB_TIMEOUT_MS = 30_000;
const MAX_RESPAWNS = 16;
/** How long a worker may take to load before its jobs fail (plainly: the caller parses them). */
const STARTUP_MS = 10_000;

export class ParsePool {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private readonly watchdog: NodeJS.Timeout;

  /** Workers started again after one died on a file (at most MAX_RESPAWNS). */
  private respawns = 0;
  private closed = false;

  private constructor(
    private readonly script: string,
    count: number,
    private readonly jobTimeoutMs: number,
  ) {
    for (let i = 0; i < count; i++) this.spawn();
    this.watchdog = setInterval(() => this.checkTimes(), Math.min(1000, jobTimeoutMs));
    this.watchdog.unref();
  }

  private spawn(): void {
    const slot: Slot = { worker: startWorker(this.script, { workerData: { grammarDir: grammarDirectory() } }), pending: new Map(), dead: false, ready: false, parsed: false, since: Date.now() };
    slot.worker.on('message', (m: WorkerAnswer | { readonly ready: true }) => {
      if ('ready' in m) {
        slot.ready = true;
        // a job's time runs from when the worker can take it: a thread slow to start (a loaded machine) is no hostile file
        if (slot.pending.size) slot.since = Date.now();
        return;
      }
      const p = slot.pending.get(m.id);
      slot.pending.delete(m.id);
      slot.since = Date.now();
      // The extraction threw on this file: once the worker has parsed a file (its grammars load),
      // the main thread would fail the same way, at the host's cost.
      if (m.error !== undefined) return p?.reject(slot.parsed ? new ParseRefused(m.error) : new Error(m.error));
      slot.parsed = true;
      p?.resolve(m.unreadable ? { unreadable: true } : m.changed ? { changed: true } : { packed: m.packed });
    });
    slot.worker.on('error', (e) => this.fail(slot, `parse worker failed: ${String(e)}`));
    slot.worker.on('exit', (code) => this.fail(slot, `parse worker exited (${code})`));
    this.slots.push(slot);
  }

  /**
   * A pool of `count` workers running `script`, or undefined when there is no script or none can
   * start. A job may run `jobTimeoutMs` (default 30 s).
   */
  static start(count: number, script = workerScript(), jobTimeoutMs = JOB_TIMEOUT_MS): ParsePool | undefined {
    if (!script || count < 1) return undefined;
    try {
      return new ParsePool(script, count, jobTimeoutMs);
    } catch {
      return undefined;
    }
  }

  /**
   * The worker is gone: the job it was parsing is refused (ParseRefused) once its script had
   * loaded; the jobs waiting behind it, and every job of a script that never loaded, fail plainly
   * (the caller parses those on the main thread).
   */
  private fail(slot: Slot, why: string): void {
    if (slot.dead) return;
    slot.dead = true;
    let first = slot.ready;
    for (const p of slot.pending.values()) {
      p.reject(first ? new ParseRefused(why) : new Error(why));
      first = false;
    }
    slot.pending.clear();
    // A file's doing, not the script's: another worker takes its place, so the files after it are
    // not all left to the main thread (a few such files would otherwise bring them to the host).
    if (slot.ready && !this.closed && this.respawns < MAX_RESPAWNS) {
      this.respawns++;
      this.spawn();
    }
  }

  private checkTimes(): void {
    const now = Date.now();
    for (const slot of this.slots) {
      // A thread still starting (a loaded machine) gets longer: its jobs are no hostile files yet.
      const limit = slot.ready ? this.jobTimeoutMs : Math.max(this.jobTimeoutMs, STARTUP_MS);
      if (slot.dead || !slot.pending.size || now - slot.since < limit) continue;
      this.fail(slot, slot.ready ? `parsing took over ${Math.round(limit / 1000)} s` : `the parse worker did not start within ${Math.round(limit / 1000)} s`);
      void slot.worker.terminate().catch(() => undefined);
    }
  }

  get alive(): boolean {
    return this.slots.some((s) => !s.dead);
  }

  /** The packed symbols of `text` (undefined: no supported language); rejects when the worker fails. */
  async parse(rel: string, text: string, mode: ExtractMode = 'full'): Promise<PackedJson | undefined> {
    return (await this.send({ rel, text, mode })).packed;
  }

  /**
   * The packed symbols of the file at `abs`, which the access policy has cleared as `checked`: the
   * worker reads it (safeRead.ts, at most `maxBytes`) and parses it. `unreadable` when it is gone,
   * not a regular file, larger or binary; `changed` when it is no longer what was checked; rejects
   * when the worker fails.
   */
  parseFile(rel: string, abs: string, maxBytes: number, checked: CheckedFile, mode: ExtractMode = 'full'): Promise<ParseOutcome> {
    return this.send({ rel, abs, maxBytes, checked, mode });
  }

  private send(job: { rel: string; mode: ExtractMode } & ({ text: string } | { abs: string; maxBytes: number; checked: CheckedFile })): Promise<ParseOutcome> {
    const live = this.slots.filter((s) => !s.dead);
    if (!live.length) return Promise.reject(new Error('no parse worker'));
    const slot = live.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!slot.pending.size) slot.since = Date.now();
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, ...job });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    await Promise.all(this.slots.map((s) => s.worker.terminate().catch(() => undefined)));
  }
}
