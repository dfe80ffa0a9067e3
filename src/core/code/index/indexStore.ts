import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as readline from 'node:readline';
import * as path from 'node:path';
import type { Logger } from '../../log';
import { toRelative } from '../../workspace/paths';
import { accessPolicy } from '../../policy/accessPolicy';
import { decodeText, isBinary } from '../../workspace/text';
import type { Workspace } from '../../workspace/workspace';
import { extractPacked, languageForPath, listSourceFiles } from '../languages/registry';
import { SymbolInterner } from '../compactSymbols';
import type { FileSymbols } from '../model';
import { asPacked, unpackJson, type PackedJson, type PackedSymbols } from '../packedSymbols';
import { defaultWorkerCount, ParsePool, workerScript } from '../parse/parsePool';
import { removeStaleTemps } from './cacheTemps';

/**
 * The code index's records, one per source file: its declarations and call sites, parsed once
 * (lazily, on first use), kept fresh file by file, and cached on disk keyed by each file's mtime
 * and size so a restart reparses only what changed. `CodeIndex` (codeIndex.ts) answers lookups
 * over them.
 */

export interface IndexProgress {
  readonly phase: 'listing' | 'parsing' | 'ready';
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
}

export const CACHE_FORMAT = 'agent-bridge-code-index';
/** Bump whenever what the extractors produce changes: older caches are then ignored. */
export const CACHE_VERSION = 5;
const YIELD_EVERY_MS = 25;
const READ_AHEAD = 16;
/** Fewer files to parse than this: the main thread does it (starting a worker costs more). */
const MIN_FILES_FOR_WORKERS = 64;

/** The per-file records and their lifecycle: build, updates, disk cache. */
export class IndexStore {
  protected readonly files = new Map<string, FileRecord>();
  /** Every call name any file uses, once: records hold their ids. */
  private readonly keyIds = new Map<string, number>();
  private readonly keyNames: string[] = [];
  /** Shares the names, type texts and lists the records repeat (compactSymbols.ts). */
  private readonly interner = new SymbolInterner();
  private building: Promise<void> | undefined;
  private listeners = new Set<(p: IndexProgress) => void>();
  /** Bumped on every change; resolvers and call graphs cache per generation. */
  generation = 0;
  progress: IndexProgress = { phase: 'listing', done: 0, total: 0 };
  isReady = false;
  /** The last build: files parsed, files taken from the cache, milliseconds. */
  lastBuild: { parsed: number; cached: number; ms: number } | undefined;

  constructor(
    readonly ws: Workspace,
    private readonly options: CodeIndexOptions = {},
  ) {}

  /** Builds the index on first call (loading the cache first when configured); later calls return at once. */
  ready(onProgress?: (p: IndexProgress) => void): Promise<void> {
    if (onProgress) this.listeners.add(onProgress);
    this.building ??= this.build().finally(() => {
      this.listeners.clear();
    });
    this.building.catch(() => {
      this.building = undefined;
    });
    return this.building;
  }

  private report(p: IndexProgress): void {
    this.progress = p;
    for (const l of this.listeners) l(p);
  }

  private async build(): Promise<void> {
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
    let parsed = 0;
    let lastYield = Date.now();
    let lastReport = 0;
    // Parse workers when there is enough to parse to pay for starting them (each loads the wasm).
    const workers = this.options.workers ?? defaultWorkerCount();
    const pool = list.length - this.files.size >= MIN_FILES_FOR_WORKERS ? ParsePool.start(workers, this.options.workerScript ?? workerScript()) : undefined;
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
        return pool.parseFile(r.rel, abs, this.maxFileBytes).then(
          (o): Job => (o.unreadable ? { rel: r.rel, mtimeMs: 0, size: 0 } : { rel: r.rel, mtimeMs: r.mtimeMs, size: r.size, packed: o.packed, parsed: true }),
          () => this.readFromDisk(r.rel, abs, r.mtimeMs, r.size), // the worker failed: read and parse here
        );
      }
      if (r.text === undefined) return Promise.resolve(r);
      return pool.parse(r.rel, r.text).then((packed) => ({ ...r, packed }), () => r);
    };
    const startJob = (i: number): void => {
      const rel = list[i];
      if (rel === undefined || jobs.has(i)) return;
      const read = this.readIfChanged(rel, workerReads);
      jobs.set(i, pool ? read.then(viaWorker) : read);
    };
    try {
      const foreground = this.options.foreground;
      for (let i = 0; i < list.length; i++) {
        if (foreground?.busy) await foreground.idle();
        for (let j = i; j < Math.min(list.length, i + ahead); j++) startJob(j);
        const r = await (jobs.get(i) as Promise<Job>);
        jobs.delete(i);
        if (r.parsed || r.text !== undefined) {
          // A worker's answer (undefined for a file in no supported language), else parse the text here.
          if (r.packed !== undefined) this.put(r.rel, r.mtimeMs, r.size, unpackJson(r.packed, this.interner));
          else if (r.text !== undefined) await this.store(r.rel, r.text, r.mtimeMs, r.size);
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
          this.report({ phase: 'parsing', done: i + 1, total: list.length });
          lastReport = now;
        }
      }
    } finally {
      await pool?.close();
    }
    this.changed();
    this.isReady = true;
    this.report({ phase: 'ready', done: list.length, total: list.length });
    this.lastBuild = { parsed, cached: list.length - parsed, ms: Date.now() - started };
    log?.info(`code index: ${list.length} files (${parsed} parsed, ${list.length - parsed} from cache) in ${Date.now() - started} ms`);
    if (this.options.cacheFile && parsed > 0) await this.save(this.options.cacheFile).catch((e: unknown) => log?.warn(`code index: cache not saved: ${String(e)}`));
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
  private async readIfChanged(rel: string, leaveRead = false): Promise<Job> {
    const policy = accessPolicy(this.ws);
    const access = await policy.resolve(rel).catch(() => undefined);
    if (!access || access.kind === 'secret' || (await policy.linksToSecret(access.abs))) return { rel, mtimeMs: 0, size: 0 };
    const abs = access.abs;
    const dirty = this.ws.dirtyText(abs);
    if (dirty !== undefined) return { rel, text: dirty, mtimeMs: -1, size: dirty.length };
    const info = await this.ws.stat(abs).catch(() => undefined);
    if (!info || info.kind !== 'file' || info.size > this.maxFileBytes) return { rel, mtimeMs: 0, size: 0 };
    const old = this.files.get(rel);
    if (old && old.mtimeMs === info.mtimeMs && old.size === info.size) return { rel, mtimeMs: info.mtimeMs, size: info.size };
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

  private async store(rel: string, text: string, mtimeMs: number, size: number): Promise<void> {
    try {
      const packed = await extractPacked(rel, text);
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
    this.files.set(rel, { mtimeMs, size, symbols: p.symbols, calls: p.calls, keys });
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

  /**
   * The cache, one JSON value per line (a header, then `[path, mtimeMs, size, symbols, calls, keys]`
   * per file, `calls` the deflated call sites in base64) so that neither writing nor reading it
   * needs one string the size of a big project's index.
   */
  private *cacheLines(): Iterable<string> {
    yield JSON.stringify({ format: CACHE_FORMAT, version: CACHE_VERSION });
    for (const [rel, rec] of this.files) {
      if (rec.mtimeMs < 0) continue;
      const keys = Array.from(rec.keys, (id) => this.keyNames[id] as string);
      yield JSON.stringify([rel, rec.mtimeMs, rec.size, rec.symbols, rec.calls?.toString('base64') ?? null, keys]);
    }
  }

  /** The whole cache as one string (small projects, tests); `save()` streams it instead. */
  serialize(): string {
    return [...this.cacheLines()].join('\n') + '\n';
  }

  /** Takes records from cache lines; each is reused only while its file's mtime and size still match. Returns how many. */
  load(text: string | Iterable<string>): number {
    const loader = this.loader();
    for (const line of typeof text === 'string' ? text.split('\n') : text) if (!loader.line(line)) break;
    return loader.done();
  }

  /** Reads a cache file written by `save()`, a line at a time (never the whole file in memory). */
  async loadFile(file: string): Promise<number> {
    const lines = readline.createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
    const loader = this.loader();
    try {
      for await (const line of lines) if (!loader.line(line)) break;
    } finally {
      lines.close();
    }
    return loader.done();
  }

  private loader(): { line(line: string): boolean; done(): number } {
    let n = 0;
    let header = false;
    return {
      line: (line) => {
        if (!line) return true;
        if (!header) {
          const h = JSON.parse(line) as { format?: unknown; version?: unknown };
          if (h.format !== CACHE_FORMAT || h.version !== CACHE_VERSION) return false;
          header = true;
          return true;
        }
        const [rel, mtimeMs, size, json, calls, keys] = JSON.parse(line) as [string, number, number, FileSymbols, string | null, string[]];
        if (!this.files.has(rel)) {
          this.put(rel, mtimeMs, size, asPacked(json, calls === null ? undefined : Buffer.from(calls, 'base64'), keys, this.interner));
          n++;
        }
        return true;
      },
      done: () => {
        if (n) this.changed();
        return n;
      },
    };
  }

  async save(file: string): Promise<void> {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await removeStaleTemps(file).catch(() => undefined);
    const tmp = `${file}.${process.pid}.tmp`;
    const out = await fs.open(tmp, 'w');
    try {
      let chunk: string[] = [];
      let size = 0;
      for (const line of this.cacheLines()) {
        chunk.push(line);
        size += line.length;
        if (size > 1 << 20) {
          await out.write(chunk.join('\n') + '\n');
          chunk = [];
          size = 0;
        }
      }
      if (chunk.length) await out.write(chunk.join('\n') + '\n');
    } finally {
      await out.close();
    }
    await fs.rename(tmp, file);
  }
}
