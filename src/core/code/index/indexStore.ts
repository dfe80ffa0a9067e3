import * as fs from 'node:fs';
import * as path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from '../../log';
import type { Workspace } from '../../workspace/workspace';
import type { ExtractMode } from '../languages/registry';
import { listSourceTree } from '../languages/sourceFiles';
import { unpackJson, type PackedSymbols } from '../packedSymbols';
import { defaultWorkerCount, ParsePool, ParseRefused, workerScript } from './parsePool';
import { FilesWanted, PassProgress, PassQueue } from './passQueue';
import { RecordStore, type Job } from './recordStore';

/**
 * The code index's build: every source file's record (recordStore.ts), parsed once (lazily, on
 * first use), in two passes (declarations, then call sites), taking from the disk cache what has
 * not changed. `CodeIndex` (codeIndex.ts) answers lookups over the records.
 */

export interface IndexProgress {
  /** `parsing`: the declarations; `calls`: the call sites (the index answers all but call_chain meanwhile). */
  readonly phase: 'listing' | 'parsing' | 'calls' | 'ready';
  readonly done: number;
  readonly total: number;
}

export interface CodeIndexOptions {
  /** Where `ready()` loads the cache from and saves it to (a file the extension owns). */
  readonly cacheFile?: string;
  readonly log?: Logger;
  /** Lists project-relative source paths; default: a walk of the root (see `listSourceFiles`; a list given here has no linked files). */
  readonly listFiles?: (ws: Workspace) => Promise<string[]>;
  /** Larger files (generated code) are not indexed. Default 2 MB. */
  readonly maxFileBytes?: number;
  /** Parse workers for a build of many files; 0: parse on the main thread. Default `defaultWorkerCount()`. */
  readonly workers?: number;
  /** The parse workers' script; default `workerScript()` (tests give a broken one to see the fallback). */
  readonly workerScript?: string;
  /** While `busy`, the build starts no more files until `idle()` resolves (cold answers first: intel/foreground.ts). */
  readonly foreground?: { readonly busy: boolean; idle(): Promise<void> };
}

interface Phases {
  readonly declarations: Promise<void>;
  readonly calls: Promise<void>;
}

const YIELD_EVERY_MS = 25;
const READ_AHEAD = 16;
/** Fewer files to parse than this: the main thread does it (starting a worker costs more)... */
const MIN_FILES_FOR_WORKERS = 64;
/** ...unless they are this large in all: a hostile file can cost the parser seconds per megabyte, and the host's thread must stay free. */
const MIN_BYTES_FOR_WORKERS = 128 * 1024;
/** How often the call-site pass lets lookups made meanwhile drop the records it replaced. */
const RELEASE_EVERY_MS = 5000;

/** The build of the records (recordStore.ts): both passes over the project's files, with parse workers. */
export class IndexStore extends RecordStore {
  private phases: Phases | undefined;
  private listeners = new Set<(p: IndexProgress) => void>();
  progress: IndexProgress = { phase: 'listing', done: 0, total: 0 };
  /** Every file's declarations are in: the index answers all but call_chain. */
  declarationsIn = false;
  /** The build is complete: every file's call sites are in too. */
  isReady = false;
  /** The last build: files parsed, files taken from the cache, milliseconds to the declarations and to the end. */
  lastBuild: { parsed: number; cached: number; declarationsMs: number; ms: number } | undefined;
  /** Files answers wait for: the call-site pass takes them first (`parseCallSitesFirst`). */
  private readonly filesWanted = new FilesWanted();
  /** What the call-site pass has done so far (neededCallSites.ts). */
  readonly passProgress = new PassProgress();
  /** Source files that are symbolic links, as the last build listed them (ripgrep does not follow them: neededCallSites.ts). */
  linkedSources: ReadonlySet<string> = new Set();

  constructor(
    ws: Workspace,
    private readonly options: CodeIndexOptions = {},
  ) {
    super(ws, options);
  }

  /**
   * Builds the index on first call (loading the cache first when configured); later calls return
   * at once. Resolves once the build is complete (`isReady`): every file's declarations and call sites.
   */
  ready(onProgress?: (p: IndexProgress) => void): Promise<void> {
    if (onProgress) this.listeners.add(onProgress);
    return this.start().calls;
  }

  /**
   * Resolves once each of the files that has only its declarations so far has been through the
   * call-site pass, which takes them before the others (passQueue.ts); at once when the build is
   * not running, and when `signal` aborts. The caller looks again at what is in.
   */
  parseCallSitesFirst(rels: Iterable<string>, signal?: AbortSignal): Promise<void> {
    if (!this.phases || this.isReady) return Promise.resolve();
    return this.filesWanted.want(this.awaitingCalls(rels), signal);
  }

  /** Which of `rels` the call-site pass has yet to parse: only their declarations are in (a file it failed on stays so, and is not waited for). */
  awaitingCalls(rels: Iterable<string>): string[] {
    return [...new Set(rels)].filter((rel) => this.files.get(rel)?.outline && !this.passProgress.hasPassed(rel));
  }

  /**
   * Drops the lookup tables (the call-site pass drops them only now and then): lookups made
   * after this meet no declarations-only copy of a file whose call sites are in.
   */
  freshLookups(): void {
    this.changed();
  }

  protected override changed(): void {
    this.passProgress.lookupsAt = this.passProgress.putCount;
    super.changed();
  }

  protected override put(rel: string, mtimeMs: number, size: number, p: PackedSymbols): void {
    super.put(rel, mtimeMs, size, p);
    this.passProgress.put(rel);
  }

  override remove(file: string): void {
    super.remove(file);
    this.passProgress.put(this.relOf(file));
  }

  /** Resolves once every file's declarations are in (`declarationsIn`), before the call sites; starts the build like `ready`. */
  declarationsReady(): Promise<void> {
    return this.start().declarations;
  }

  private start(): Phases {
    if (!this.phases) {
      let declared = (): void => undefined;
      const declarations = new Promise<void>((resolve) => (declared = resolve));
      const calls = this.build(declared);
      // A build that fails before the declarations are in fails both.
      const phases: Phases = { declarations: Promise.race([declarations, calls]), calls };
      this.phases = phases;
      phases.declarations.catch(() => undefined); // told to whoever waits for it; not unhandled when nobody does
      calls
        .finally(() => this.listeners.clear())
        .catch(() => {
          if (this.phases === phases) this.phases = undefined;
        });
    }
    return this.phases;
  }

  private report(p: IndexProgress): void {
    this.progress = p;
    for (const l of this.listeners) l(p);
  }

  /**
   * Two passes over the files. First the declarations, from each Java file's outline (its bodies
   * left out: about half the work of a full parse), so read_class and read_method answer from the
   * index early; `declared` is called then (`declarationsIn`). Then the call sites, from a full
   * parse of every file the first pass outlined, for call_chain. Files unchanged since the cache
   * was written are parsed in neither.
   */
  private async build(declared: () => void): Promise<void> {
    const log = this.options.log;
    const started = Date.now();
    if (this.options.cacheFile) {
      try {
        const n = await this.loadFile(this.options.cacheFile);
        log?.debug(`code index: ${n} cached files loaded from ${this.options.cacheFile}`);
      } catch {
        // no cache yet, or unreadable: parse everything
      }
    }
    this.report({ phase: 'listing', done: 0, total: 0 });
    const listed = this.options.listFiles ? { files: await this.options.listFiles(this.ws), links: [] } : await listSourceTree(this.ws.root);
    const list = listed.files;
    this.linkedSources = new Set(listed.links);
    const wanted = new Set(list);
    for (const rel of [...this.files.keys()]) if (!wanted.has(rel)) this.files.delete(rel);
    // One pool for both passes, started once there is enough to parse to pay for it (each worker
    // loads the wasm and the grammars).
    let pool: ParsePool | undefined;
    const heavy = list.length < MIN_FILES_FOR_WORKERS && (await bytesOf(this.ws.root, list)) >= MIN_BYTES_FOR_WORKERS;
    const poolFor = (toParse: number): ParsePool | undefined => {
      if (!pool && (toParse >= MIN_FILES_FOR_WORKERS || (heavy && toParse > 0))) pool = ParsePool.start(this.workerCount, this.options.workerScript ?? workerScript());
      return pool;
    };
    this.bulk = true;
    try {
      await this.passes(list, poolFor, declared, started);
    } finally {
      this.filesWanted.finish();
      this.passProgress.end(this.isReady);
      this.bulk = false;
      await (pool as ParsePool | undefined)?.close();
    }
  }

  private get workerCount(): number {
    return this.options.workers ?? defaultWorkerCount();
  }

  private async passes(list: readonly string[], poolFor: (toParse: number) => ParsePool | undefined, declared: () => void, started: number): Promise<void> {
    const log = this.options.log;
    const parsed = await this.pass(list, 'outline', poolFor(list.length - this.files.size));
    this.changed();
    this.declarationsIn = true;
    const declarationsMs = Date.now() - started;
    log?.info(`code index: declarations of ${list.length} files (${parsed} parsed, ${list.length - parsed} from cache) in ${declarationsMs} ms`);
    declared();
    // Saved between the passes too: a window closed before the call sites are in reopens with the declarations.
    if (parsed > 0) await this.saveCache();
    const outlined = list.filter((rel) => this.files.get(rel)?.outline);
    const withCalls = await this.pass(outlined, 'full', poolFor(outlined.length));
    this.changed();
    this.isReady = true;
    this.passProgress.end(true);
    this.report({ phase: 'ready', done: list.length, total: list.length });
    this.lastBuild = { parsed, cached: list.length - parsed, declarationsMs, ms: Date.now() - started };
    log?.info(`code index: call sites of ${outlined.length} files in ${Date.now() - started - declarationsMs} ms`);
    if (withCalls > 0) await this.saveCache();
  }

  private async saveCache(): Promise<void> {
    const file = this.options.cacheFile;
    if (!file) return;
    const t0 = Date.now();
    await this.save(file).then(
      () => this.options.log?.debug(`code index: cache saved in ${Date.now() - t0} ms`),
      (e: unknown) => this.options.log?.warn(`code index: cache not saved: ${String(e)}`),
    );
  }

  /**
   * One pass over `list`: each file whose record is missing or stale (or, for `full`, only
   * outlined) is read and parsed in `mode`, with parse workers when there are enough of them;
   * the records are stored in list order. Returns how many files were parsed.
   */
  private async pass(list: readonly string[], mode: ExtractMode, pool: ParsePool | undefined): Promise<number> {
    let parsed = 0;
    let lastYield = Date.now();
    let lastReport = 0;
    let lastChange = Date.now();
    const phase = mode === 'outline' ? 'parsing' : 'calls';
    const wantCalls = mode === 'full';
    // Files are read (and, with workers, parsed) ahead, but stored in list order: the same index either way.
    const ahead = pool ? READ_AHEAD * this.workerCount * 2 : READ_AHEAD;
    /** Jobs started ahead, each with the file's edit count when it started (see `wanted` below). */
    const jobs = new Map<string, { readonly job: Promise<Job>; readonly edits: number }>();
    // Where the workspace reads its own disk, a worker reads the file as well as parsing it: the
    // reads, their buffers and the copy of the text to the worker were half the main thread's work.
    const workerReads = !!pool && this.ws.readsLocalFiles === true;
    // A file a worker failed on, died on or ran out of time with is left out (logged), never parsed here.
    const refused = (r: Job, e: ParseRefused): Job => {
      this.options.log?.warn(`code index: ${r.rel} not indexed: ${e.message}`);
      return { rel: r.rel, mtimeMs: r.mtimeMs, size: r.size };
    };
    // A text (a buffer's, or a file read here) goes to a worker to parse when one is alive.
    const parseText = (r: Job): Promise<Job> =>
      r.text === undefined || !pool?.alive
        ? Promise.resolve(r)
        : pool.parse(r.rel, r.text, mode).then(
            (packed) => ({ ...r, packed }),
            (e: unknown) => (e instanceof ParseRefused ? refused(r, e) : r),
          );
    // Checked and read again, here: the worker's read was refused, or there is no worker left.
    const recheck = (rel: string): Promise<Job> => this.readIfChanged(rel, false, wantCalls).then(parseText);
    const viaWorker = (r: Job): Promise<Job> => {
      if (r.abs === undefined) return parseText(r);
      if (!pool?.alive) return recheck(r.rel);
      return pool.parseFile(r.rel, r.abs, this.maxFileBytes, { mtimeMs: r.mtimeMs, size: r.size }, mode).then(
        (o): Job | Promise<Job> =>
          o.unreadable
            ? { rel: r.rel, mtimeMs: 0, size: 0 }
            : o.changed
              ? recheck(r.rel) // not the file that was checked (replaced, or linked since)
              : { rel: r.rel, mtimeMs: r.mtimeMs, size: r.size, packed: o.packed, parsed: true },
        (e: unknown) => (e instanceof ParseRefused ? refused(r, e) : recheck(r.rel)), // the worker failed
      );
    };
    const startJob = (rel: string): void => {
      if (jobs.has(rel)) return;
      const edits = this.editsOf(rel);
      const read = this.readIfChanged(rel, workerReads, wantCalls);
      jobs.set(rel, { job: pool ? read.then(viaWorker) : read, edits });
    };
    const foreground = this.options.foreground;
    // The call-site pass takes first the files answers wait for (passQueue.ts), even while a cold answer holds the build back.
    const filesWanted = wantCalls ? this.filesWanted : undefined;
    const queue = new PassQueue(list, filesWanted);
    if (filesWanted) {
      filesWanted.reopen();
      this.passProgress.begin();
    }
    this.report({ phase, done: 0, total: list.length });
    for (let i = 0; ; i++) {
      if (foreground?.busy && !filesWanted?.pending) await Promise.race([foreground.idle(), ...(filesWanted ? [filesWanted.arrival()] : [])]);
      const rel = queue.take();
      if (rel === undefined) break;
      startJob(rel);
      for (const next of queue.ahead(ahead - 1)) startJob(next);
      const { job, edits } = jobs.get(rel) as { job: Promise<Job>; edits: number };
      const r = await job;
      jobs.delete(rel);
      // A file updated or removed since this pass read it (a save, a checkout) has a newer record
      // than this read; and the call-site pass replaces only records still outlined.
      const wanted = (): boolean => this.editsOf(r.rel) === edits && (!wantCalls || this.files.get(r.rel)?.outline === true);
      if (!wanted()) {
        // newer than this pass's read: kept
      } else if (r.parsed || r.text !== undefined) {
        // A worker's answer (undefined for a file in no supported language), else parse the text here.
        if (r.packed !== undefined) this.put(r.rel, r.mtimeMs, r.size, unpackJson(r.packed));
        else if (r.text !== undefined) await this.store(r.rel, r.text, r.mtimeMs, r.size, mode, wanted);
        parsed++;
      } else if (r.mtimeMs === 0) {
        // Gone, unreadable, secret or leading outside: a record from the cache must not stay.
        if (this.files.delete(r.rel)) this.passProgress.put(r.rel);
      }
      if (filesWanted) {
        this.passProgress.passed(r.rel);
        filesWanted.doneWith(r.rel);
      }
      const now = Date.now();
      if (now - lastYield > YIELD_EVERY_MS) {
        await nextTurn();
        lastYield = Date.now();
      }
      if (now - lastReport > 100) {
        this.report({ phase, done: i + 1, total: list.length });
        lastReport = now;
      }
      // Lookups made meanwhile hold the records they found; now and then they are let go.
      if (wantCalls && now - lastChange > RELEASE_EVERY_MS) {
        this.changed();
        lastChange = now;
      }
    }
    return parsed;
  }
}

/**
 * The files' sizes added up, a link at its target's size: the parse reads the target, and a link's
 * own few bytes would let a large file through to the host's thread. A file that cannot be looked at counts nothing.
 */
async function bytesOf(root: string, rels: readonly string[]): Promise<number> {
  const sizes = await Promise.all(rels.map((rel) => fs.promises.stat(path.join(root, rel)).then((st) => st.size, () => 0)));
  return sizes.reduce((a, b) => a + b, 0);
}
