import * as path from 'node:path';
import type { Logger } from '../../log';
import { accessPolicy } from '../../policy/accessPolicy';
import { toRelative } from '../../workspace/paths';
import { decodeText, isBinary } from '../../workspace/text';
import type { Workspace } from '../../workspace/workspace';
import { languageForPath, type ExtractMode } from '../languages/registry';
import { unpackJson, type FileHead, type PackedJson, type PackedSymbols } from '../packedSymbols';
import { parseBounded } from './offThreadParse';
import { cacheLines, cacheReader, readCacheFile, writeCacheFile, type CachedFile } from './indexCache';

/**
 * The code index's records, one per source file: its declarations and call sites (packed), each
 * read through the access policy, kept fresh file by file, and cached on disk keyed by the file's
 * mtime and size so a restart reparses only what changed (indexCache.ts). The build that fills
 * them is `IndexStore` (indexStore.ts).
 */

/** A file on its way into a record: read (`text`), left for a parse worker (`abs`), parsed (`packed`), unchanged, or gone (mtimeMs 0). */
export interface Job {
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
  /** What a lookup by name needs, as objects (packedSymbols.ts). */
  readonly head: FileHead;
  /**
   * The declarations, deflated (every method's `calls` empty), then the methods' call sites,
   * deflated (`declBytes`, `callBytes`): one buffer, not two, per file.
   */
  readonly packed: Buffer;
  readonly declLength: number;
  /** The distinct names the file calls, as ids in the store's name table. */
  readonly keys: Uint32Array;
  /** The distinct names of the file's methods, as ids in the same table. */
  readonly methods: Uint32Array;
  /** Declarations only, from the file's outline: its call sites are not parsed yet (`calls` and `keys` empty). */
  readonly outline?: true;
}

/** A record's declarations, deflated. */
export const declBytes = (r: FileRecord): Buffer => r.packed.subarray(0, r.declLength);

/** A record's call sites, deflated; undefined when it has none. */
export const callBytes = (r: FileRecord): Buffer | undefined => (r.declLength < r.packed.length ? r.packed.subarray(r.declLength) : undefined);

/**
 * Source files larger than this are not parsed (left out of the index and of answers made before
 * it): generated files are rarely larger, and a larger hostile one would cost the parser seconds
 * (and tree-sitter itself fails on very large files).
 */
export const MAX_PARSED_BYTES = 2_000_000;

export class RecordStore {
  protected readonly files = new Map<string, FileRecord>();
  /** Every name any file calls or declares a method of, once: records hold their ids. */
  private readonly keyIds = new Map<string, number>();
  private readonly keyNames: string[] = [];
  /** Every package name, once. */
  private readonly packages = new Map<string, string>();
  /**
   * Where the records' packed bytes are copied (`ByteArena`). Blocks that held the first pass's
   * records stay while any of their records does: copying every record anew after the build would
   * free them, but the C allocator keeps the memory and the RSS grows (docs/design.md, Memory).
   */
  private readonly arena = new ByteArena();
  /**
   * Records are being written many at a time (a build, a cache load): into the arena. One written
   * alone (a save) gets a buffer of its own: saves scattered over the project would otherwise leave
   * blocks mostly dead, each kept by one live record.
   */
  protected bulk = false;
  /** Bumped on every change; resolvers and call graphs cache per generation. */
  generation = 0;
  /** How often `update` changed or `remove` removed each file's record: a build's read made before the last of them is not stored. */
  private readonly edits = new Map<string, number>();
  private editCount = 0;

  constructor(
    readonly ws: Workspace,
    private readonly limits: { readonly maxFileBytes?: number; readonly log?: Logger; readonly workerScript?: string } = {},
  ) {}

  protected get maxFileBytes(): number {
    return this.limits.maxFileBytes ?? MAX_PARSED_BYTES;
  }

  /**
   * Reads the file unless the record in hand has the same mtime and size. The access policy comes
   * first: a file that leads outside the project (a symbolic link) or is secret is never read, and
   * answers as gone (mtimeMs 0). With `leaveRead`, a changed file is not read here but answered
   * with its checked absolute path, for a parse worker to read. With `wantCalls`, a record from an
   * outline (no call sites yet) counts as changed.
   */
  protected async readIfChanged(rel: string, leaveRead = false, wantCalls = false): Promise<Job> {
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
      const bytes = await this.ws.readBytes(abs, undefined, accessPolicy(this.ws).mayReadLinked);
      if (isBinary(bytes)) return { rel, mtimeMs: 0, size: 0 };
      return { rel, text: decodeText(bytes).text, mtimeMs, size };
    } catch {
      return { rel, mtimeMs: 0, size: 0 };
    }
  }

  /**
   * Parses the text into the file's record, off the host's thread unless small (offThreadParse.ts; a
   * file no worker can take is left as it was, logged); `stillWanted`, asked once the parse is done,
   * may turn it down (a newer record came meanwhile).
   */
  protected async store(rel: string, text: string, mtimeMs: number, size: number, mode: ExtractMode = 'full', stillWanted?: () => boolean): Promise<void> {
    try {
      const { log, workerScript: script } = this.limits;
      const packed = await parseBounded(rel, text, mode, { ...(script ? { script } : {}), ...(log ? { log } : {}) });
      if (packed === undefined || (stillWanted && !stillWanted())) return;
      this.put(rel, mtimeMs, size, unpackJson(packed));
    } catch (e) {
      this.limits.log?.warn(`code index: ${rel} not indexed: ${String(e)}`);
    }
  }

  protected put(rel: string, mtimeMs: number, size: number, p: PackedSymbols): void {
    const { head, decl, calls } = p;
    const packed = this.arena.copy(calls ? [decl, calls] : [decl], !this.bulk);
    // Files of a package name it alike: one string for all of them.
    let pkg = this.packages.get(head.package);
    if (pkg === undefined) this.packages.set(head.package, (pkg = head.package));
    (head as { package: string }).package = pkg;
    this.files.set(rel, { mtimeMs, size, head, packed, declLength: decl.length, keys: this.ids(p.keys), methods: this.ids(p.methods), ...(p.outline ? { outline: true } : {}) });
  }

  private ids(names: readonly string[]): Uint32Array {
    const ids = new Uint32Array(names.length);
    names.forEach((k, i) => {
      let id = this.keyIds.get(k);
      if (id === undefined) {
        id = this.keyNames.length;
        this.keyIds.set(k, id);
        this.keyNames.push(k);
      }
      ids[i] = id;
    });
    return ids;
  }

  /** The id of a name, if any file calls it or declares a method of that name. */
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
    else return; // unchanged: a build's read of it is as good as this one
    this.edited(rel);
    this.changed();
  }

  remove(file: string): void {
    const rel = this.relOf(file);
    this.edited(rel);
    if (this.files.delete(rel)) this.changed();
  }

  /** How many updates and removals the file has had: a read taken under an older count is stale. */
  protected editsOf(rel: string): number {
    return this.edits.get(rel) ?? 0;
  }

  /** How many updates and removals there have been (an answer that saw one meanwhile asks again: neededCallSites.ts). */
  get totalEdits(): number {
    return this.editCount;
  }

  private edited(rel: string): void {
    this.editCount++;
    this.edits.set(rel, this.editsOf(rel) + 1);
  }

  /** The records as cache lines (indexCache.ts). */
  private cacheLines(): Iterable<string> {
    const names = this.keyNames;
    function* files(all: Map<string, FileRecord>): Iterable<[string, CachedFile]> {
      const named = (ids: Uint32Array) => Array.from(ids, (id) => names[id] as string);
      for (const [rel, rec] of all) {
        const { mtimeMs, size, head, outline } = rec;
        yield [rel, { mtimeMs, size, head, decl: declBytes(rec), calls: callBytes(rec), keys: named(rec.keys), methods: named(rec.methods), ...(outline ? { outline } : {}) }];
      }
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
    this.bulk = true;
    try {
      for (const line of typeof text === 'string' ? text.split('\n') : text) if (!reader.line(line)) break;
    } finally {
      this.bulk = false;
    }
    return this.loaded(reader.count);
  }

  /** Reads a cache file written by `save()`, a line at a time. */
  async loadFile(file: string): Promise<number> {
    const reader = this.reader();
    // Saves that land meanwhile are written into the arena too: a few records among thousands.
    this.bulk = true;
    try {
      await readCacheFile(file, (line) => reader.line(line));
    } finally {
      this.bulk = false;
    }
    return this.loaded(reader.count);
  }

  private reader(): ReturnType<typeof cacheReader> {
    return cacheReader((rel, mtimeMs, size, packed) => !this.files.has(rel) && (this.put(rel, mtimeMs, size, packed), true));
  }

  private loaded(n: number): number {
    if (n) this.changed();
    return n;
  }

  save(file: string): Promise<void> {
    return writeCacheFile(file, this.cacheLines());
  }
}

/** The size of an arena block; a record larger than an eighth of it gets a buffer of its own. */
const ARENA_BLOCK = 256 * 1024;

/**
 * The records' packed bytes, copied one after another into blocks of the index's own: not one
 * allocation per file (each a buffer object and a C allocation), and not Node's shared pool of
 * small buffers, where a record would keep alive a block it shares with short-lived buffers (the
 * cache loader's base64 temporaries), about doubling what records take.
 */
class ByteArena {
  private block = Buffer.alloc(0);
  private at = 0;

  /** The parts one after another, in a block (or with `own`, or when large, in a buffer of their own). */
  copy(parts: readonly Buffer[], own = false): Buffer {
    const length = parts.reduce((n, p) => n + p.length, 0);
    let out: Buffer;
    if (own || length > ARENA_BLOCK / 8) out = Buffer.allocUnsafeSlow(length);
    else {
      if (this.at + length > this.block.length) {
        this.block = Buffer.allocUnsafeSlow(ARENA_BLOCK);
        this.at = 0;
      }
      out = this.block.subarray(this.at, this.at + length);
      this.at += length;
    }
    let at = 0;
    for (const p of parts) at += p.copy(out, at);
    return out;
  }
}
