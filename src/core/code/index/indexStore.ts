import * as path from 'node:path';
import type { Logger } from '../../log';
import { toRelative } from '../../workspace/paths';
import { accessPolicy } from '../../policy/accessPolicy';
import { decodeText, isBinary } from '../../workspace/text';
import type { Workspace } from '../../workspace/workspace';
import { extractPacked, languageForPath, listSourceFiles, type ExtractMode } from '../languages/registry';
import { SymbolInterner } from '../compactSymbols';
import type { FileSymbols } from '../model';
import { unpackJson, type PackedJson, type PackedSymbols } from '../packedSymbols';
import { defaultWorkerCount, ParsePool, workerScript } from '../parse/parsePool';
import { cacheLines, cacheReader, readCacheFile, writeCacheFile, type CachedFile } from './indexCache';

/**
 * The code index's records, one per source file: its declarations and call sites, parsed once
 * (lazily, on first use), kept fresh file by file, and cached on disk keyed by each file's mtime
 * and size so a restart reparses only what changed (indexCache.ts). `CodeIndex` (codeIndex.ts) answers lookups
 * over them.
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
  /** Lists project-relative source paths; default: a walk of the root (see `listSourceFiles`). */
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

interface Job {
  readonly rel: string;
  readonly text?: string;
  readonly mtimeMs: number;
  readonly size: number;
  /** The packed symbols, when a parse worker made them. */
  readonly packed?: PackedJson;
  /** A parse worker read and parsed the file (`packed` is its answer). */
  readonly parsed?: true;
  /** The checked absolute path, when the file is left for a parse worker to read. */
  readonly abs?: string;
}

export interface FileRecord {
  /** -1 when the text came from an unsaved editor buffer: never trusted from the cache. */
  readonly mtimeMs: number;
  readonly size: number;
  /** The declarations; every method's `calls` is empty here: they are in `calls` (packedSymbols.ts). */
  readonly symbols: FileSymbols;
  /** The methods' call sites, deflated; see `CodeIndex.callsOf`. */
  readonly calls: Buffer | undefined;
  /** The distinct names the file calls, as ids in the store's key table. */
  readonly keys: Uint32Array;
  /** Declarations only, from the file's outline: its call sites are not parsed yet (`calls` and `keys` empty). */
  readonly outline?: true;
}

interface Phases {
  readonly declarations: Promise<void>;
  readonly calls: Promise<void>;
}

const YIELD_EVERY_MS = 25;
const READ_AHEAD = 16;
/** Fewer files to parse than this: the main thread does it (starting a worker costs more). */
const MIN_FILES_FOR_WORKERS = 64;
/** How often the call-site pass lets lookups made meanwhile drop the records it replaced. */
const RELEASE_EVERY_MS = 5000;

/** The per-file records and their lifecycle: build, updates, disk cache. */
export class IndexStore {
  protected readonly files = new Map<string, FileRecord>();
  /** Every call name any file uses, once: records hold their ids. */
  private readonly keyIds = new Map<string, number>();
  private readonly keyNames: string[] = [];
  /** Shares the names, type texts and lists the records repeat (compactSymbols.ts). */
  private readonly interner = new SymbolInterner();
  private phases: Phases | undefined;
  private listeners = new Set<(p: IndexProgress) => void>();
  /** Bumped on every change; resolvers and call graphs cache per generation. */
  generation = 0;
  progress: IndexProgress = { phase: 'listing', done: 0, total: 0 };
  /** Every file's declarations are in: the index answers all but call_chain. */
  declarationsIn = false;
  /** The build is complete: every file's call sites are in too. */
  isReady = false;
  /** The last build: files parsed, files taken from the cache, milliseconds to the declarations and to the end. */
  lastBuild: { parsed: number; cached: number; declarationsMs: number; ms: number } | undefined;

  constructor(
    readonly ws: Workspace,
    private readonly options: CodeIndexOptions = {},
  ) {}

  /**
   * Builds the index on first call (loading the cache first when configured); later calls return
   * at once. Resolves once the build is complete (`isReady`): every file's declarations and call sites.
   */
  ready(onProgress?: (p: IndexProgress) => void): Promise<void> {
    if (onProgress) this.listeners.add(onProgress);
    return this.start().calls;
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
   * left out: a third of a full parse), so read_class and read_method answer from the index early;
   * `declared` is called then (`declarationsIn`). Then the call sites, from a full parse of every file the first pass
   * outlined, for call_chain. Files unchanged since the cache was written are parsed in neither.
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
    const list = await (this.options.listFiles ?? ((ws) => listSourceFiles(ws.root)))(this.ws);
    const wanted = new Set(list);
    for (const rel of [...this.files.keys()]) if (!wanted.has(rel)) this.files.delete(rel);
    const parsed = await this.pass(list, 'outline');
    this.changed();
    this.declarationsIn = true;
    const declarationsMs = Date.now() - started;
    log?.info(`code index: declarations of ${list.length} files (${parsed} parsed, ${list.length - parsed} from cache) in ${declarationsMs} ms`);
    declared();
    if (this.options.cacheFile && parsed > 0) await this.save(this.options.cacheFile).catch((e: unknown) => log?.warn(`code index: cache not saved: ${String(e)}`));
    const outlined = list.filter((rel) => this.files.get(rel)?.outline);
    const withCalls = await this.pass(outlined, 'full');
    this.changed();
    this.isReady = true;
    this.report({ phase: 'ready', done: list.length, total: list.length });
    this.lastBuild = { parsed, cached: list.length - parsed, declarationsMs, ms: Date.now() - started };
    log?.info(`code index: call sites of ${outlined.length} files in ${Date.now() - started - declarationsMs} ms`);
    if (this.options.cacheFile && withCalls > 0) await this.save(this.options.cacheFile).catch((e: unknown) => log?.warn(`code index: cache not saved: ${String(e)}`));
  }

  /**
   * One pass over `list`: each file whose record is missing or stale (or, for `full`, only
   * outlined) is read and parsed in `mode`, with parse workers when there are enough of them;
   * the records are stored in list order. Returns how many files were parsed.
   */
  private async pass(list: readonly string[], mode: ExtractMode): Promise<number> {
    let parsed = 0;
    let lastYield = Date.now();
    let lastReport = 0;
    let lastChange = Date.now();
    const phase = mode === 'outline' ? 'parsing' : 'calls';
    const wantCalls = mode === 'full';
    // Parse workers when there is enough to parse to pay for starting them (each loads the wasm).
    const workers = this.options.workers ?? defaultWorkerCount();
    const toParse = wantCalls ? list.length : list.length - this.files.size;
    const pool = toParse >= MIN_FILES_FOR_WORKERS ? ParsePool.start(workers, this.options.workerScript ?? workerScript()) : undefined;
    // Files are read (and, with workers, parsed) ahead, but stored in list order: the same index either way.
    const ahead = pool ? READ_AHEAD * workers * 2 : READ_AHEAD;
    const jobs = new Map<number, Promise<Job>>();
    // Where the workspace reads its own disk, a worker reads the file as well as parsing it: the
    // reads, their buffers and the copy of the text to the worker were half the main thread's work.
    const workerReads = !!pool && this.ws.readsLocalFiles === true;
    const viaWorker = (r: Job): Promise<Job> => {
      if (!pool?.alive) return r.abs !== undefined ? this.readFromDisk(r.rel, r.abs, r.mtimeMs, r.size) : Promise.resolve(r);
      if (r.abs !== undefined) {
        const abs = r.abs;
        return pool.parseFile(r.rel, abs, this.maxFileBytes, mode).then(
          (o): Job => (o.unreadable ? { rel: r.rel, mtimeMs: 0, size: 0 } : { rel: r.rel, mtimeMs: r.mtimeMs, size: r.size, packed: o.packed, parsed: true }),
          () => this.readFromDisk(r.rel, abs, r.mtimeMs, r.size), // the worker failed: read and parse here
        );
      }
      if (r.text === undefined) return Promise.resolve(r);
      return pool.parse(r.rel, r.text, mode).then((packed) => ({ ...r, packed }), () => r);
    };
    const startJob = (i: number): void => {
      const rel = list[i];
      if (rel === undefined || jobs.has(i)) return;
      const read = this.readIfChanged(rel, workerReads, wantCalls);
      jobs.set(i, pool ? read.then(viaWorker) : read);
    };
    try {
      const foreground = this.options.foreground;
      for (let i = 0; i < list.length; i++) {
        if (foreground?.busy) await foreground.idle();
        for (let j = i; j < Math.min(list.length, i + ahead); j++) startJob(j);
        const r = await (jobs.get(i) as Promise<Job>);
        jobs.delete(i);
        const before = this.files.get(r.rel);
        if (wantCalls && before && !before.outline) {
          // updated meanwhile (a save after the declarations were in): that record is newer
        } else if (r.parsed || r.text !== undefined) {
          // A worker's answer (undefined for a file in no supported language), else parse the text here.
          if (r.packed !== undefined) this.put(r.rel, r.mtimeMs, r.size, unpackJson(r.packed, this.interner));
          else if (r.text !== undefined) await this.store(r.rel, r.text, r.mtimeMs, r.size, mode);
          parsed++;
        } else if (r.mtimeMs === 0) {
          // Gone, unreadable, secret or leading outside: a record from the cache must not stay.
          this.files.delete(r.rel);
        }
        const now = Date.now();
        if (now - lastYield > YIELD_EVERY_MS) {
          await new Promise((resolve) => setImmediate(resolve));
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
    } finally {
      await pool?.close();
    }
    return parsed;
  }

  private get maxFileBytes(): number {
    return this.options.maxFileBytes ?? 2_000_000;
  }

  /**
   * Reads the file unless the record in hand has the same mtime and size. The access policy comes
   * first: a file that leads outside the project (a symbolic link) or is secret is never read, and
   * answers as gone (mtimeMs 0). With `leaveRead`, a changed file is not read here but answered
   * with its checked absolute path, for a parse worker to read.
   */
  private async readIfChanged(rel: string, leaveRead = false, wantCalls = false): Promise<Job> {
    const policy = accessPolicy(this.ws);
    const access = await policy.resolve(rel).catch(() => undefined);
    if (!access || access.kind === 'secret' || (await policy.linksToSecret(access.abs))) return { rel, mtimeMs: 0, size: 0 };
    const abs = access.abs;
    const dirty = this.ws.dirtyText(abs);
    if (dirty !== undefined) return { rel, text: dirty, mtimeMs: -1, size: dirty.length };
    const info = await this.ws.stat(abs).catch(() => undefined);
    if (!info || info.kind !== 'file' || info.size > this.maxFileBytes) return { rel, mtimeMs: 0, size: 0 };
    const old = this.files.get(rel);
    const fresh = old && old.mtimeMs === info.mtimeMs && old.size === info.size && !(wantCalls && old.outline);
    if (fresh) return { rel, mtimeMs: info.mtimeMs, size: info.size };
    if (leaveRead) return { rel, abs, mtimeMs: info.mtimeMs, size: info.size };
    return this.readFromDisk(rel, abs, info.mtimeMs, info.size);
  }

  /** The file's text as a Job; gone (mtimeMs 0) when unreadable or binary. */
  private async readFromDisk(rel: string, abs: string, mtimeMs: number, size: number): Promise<Job> {
    try {
      const bytes = await this.ws.readBytes(abs);
      if (isBinary(bytes)) return { rel, mtimeMs: 0, size: 0 };
      return { rel, text: decodeText(bytes).text, mtimeMs, size };
    } catch {
      return { rel, mtimeMs: 0, size: 0 };
    }
  }

  private async store(rel: string, text: string, mtimeMs: number, size: number, mode: ExtractMode = 'full'): Promise<void> {
    try {
      const packed = await extractPacked(rel, text, mode);
      if (packed === undefined) return;
      this.put(rel, mtimeMs, size, unpackJson(packed, this.interner));
    } catch (e) {
      this.options.log?.warn(`code index: ${rel} not indexed: ${String(e)}`);
    }
  }

  private put(rel: string, mtimeMs: number, size: number, p: PackedSymbols): void {
    const keys = new Uint32Array(p.keys.length);
    p.keys.forEach((k, i) => {
      let id = this.keyIds.get(k);
      if (id === undefined) {
        id = this.keyNames.length;
        this.keyIds.set(k, id);
        this.keyNames.push(k);
      }
      keys[i] = id;
    });
    this.files.set(rel, { mtimeMs, size, symbols: p.symbols, calls: p.calls, keys, ...(p.outline ? { outline: true } : {}) });
  }

  /** The id of a call name, if any file calls it. */
  protected keyId(key: string): number | undefined {
    return this.keyIds.get(key);
  }

  /** Every change goes through here; `CodeIndex` drops its lookup tables too. */
  protected changed(): void {
    this.generation++;
  }

  protected relOf(p: string): string {
    return path.isAbsolute(p) ? toRelative(this.ws.root, p) : p.split(path.sep).join('/');
  }

  /** Reparses one file (after a save, an edit, a create); a file that is gone is removed. */
  async update(file: string): Promise<void> {
    const rel = this.relOf(file);
    if (!languageForPath(rel)) return;
    const r = await this.readIfChanged(rel);
    if (r.text !== undefined) await this.store(rel, r.text, r.mtimeMs, r.size);
    else if (r.mtimeMs === 0) this.files.delete(rel);
    else return;
    this.changed();
  }

  remove(file: string): void {
    if (this.files.delete(this.relOf(file))) this.changed();
  }

  /** The records as cache lines (indexCache.ts). */
  private cacheLines(): Iterable<string> {
    const names = this.keyNames;
    function* files(all: Map<string, FileRecord>): Iterable<[string, CachedFile]> {
      for (const [rel, rec] of all) yield [rel, { ...rec, keys: Array.from(rec.keys, (id) => names[id] as string) }];
    }
    return cacheLines(files(this.files));
  }

  /** The whole cache as one string (small projects, tests); `save()` streams it instead. */
  serialize(): string {
    return [...this.cacheLines()].join('\n') + '\n';
  }

  /** Takes records from cache lines; each is reused only while its file's mtime and size still match. Returns how many. */
  load(text: string | Iterable<string>): number {
    const reader = this.reader();
    for (const line of typeof text === 'string' ? text.split('\n') : text) if (!reader.line(line)) break;
    return this.loaded(reader.count);
  }

  /** Reads a cache file written by `save()`, a line at a time. */
  async loadFile(file: string): Promise<number> {
    const reader = this.reader();
    await readCacheFile(file, (line) => reader.line(line));
    return this.loaded(reader.count);
  }

  private reader(): ReturnType<typeof cacheReader> {
    return cacheReader((rel, mtimeMs, size, packed) => !this.files.has(rel) && (this.put(rel, mtimeMs, size, packed), true), this.interner);
  }

  private loaded(n: number): number {
    if (n) this.changed();
    return n;
  }

  save(file: string): Promise<void> {
    return writeCacheFile(file, this.cacheLines());
  }
}
