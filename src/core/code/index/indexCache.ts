import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { FileHead, PackedSymbols } from '../packedSymbols';
import { removeStaleTemps } from './cacheTemps';

/**
 * The code index's cache on disk: one JSON value per line, a header, then per file
 * `[path, mtimeMs, size, head, decl, calls, keys, methods]` as the index holds it
 * (packedSymbols.ts; `decl` and `calls` deflated, in base64) and a ninth element 1 for a file
 * whose call sites are not parsed yet (its outline's declarations only). Lines, so that neither
 * writing nor reading it needs one string the size of a big project's index.
 */

const CACHE_FORMAT = 'agent-bridge-code-index';
/** Bump whenever what the extractors produce changes: older caches are then ignored. */
const CACHE_VERSION = 10;

/** One file's record as the cache holds it. */
export interface CachedFile {
  readonly mtimeMs: number;
  readonly size: number;
  readonly head: FileHead;
  readonly decl: Buffer;
  readonly calls: Buffer | undefined;
  readonly keys: readonly string[];
  readonly methods: readonly string[];
  readonly outline?: true;
}

/** The header, then a line per file; records of unsaved editor text (mtime −1) are left out. */
export function* cacheLines(files: Iterable<[string, CachedFile]>): Iterable<string> {
  yield JSON.stringify({ format: CACHE_FORMAT, version: CACHE_VERSION });
  for (const [rel, f] of files) {
    if (f.mtimeMs < 0) continue;
    yield JSON.stringify([rel, f.mtimeMs, f.size, f.head, f.decl.toString('base64'), f.calls?.toString('base64') ?? null, f.keys, f.methods, ...(f.outline ? [1] : [])]);
  }
}

/**
 * Reads cache lines into `take` (which may refuse a file it has already). `line` returns false at
 * a header of another format or version: the rest is not read. `count`: the files taken.
 */
export function cacheReader(
  take: (rel: string, mtimeMs: number, size: number, packed: PackedSymbols) => boolean,
): { line(line: string): boolean; readonly count: number } {
  let count = 0;
  let header = false;
  return {
    line(line) {
      if (!line) return true;
      if (!header) {
        const h = JSON.parse(line) as { format?: unknown; version?: unknown };
        if (h.format !== CACHE_FORMAT || h.version !== CACHE_VERSION) return false;
        header = true;
        return true;
      }
      const [rel, mtimeMs, size, head, decl, calls, keys, methods, outline] = JSON.parse(line) as [string, number, number, FileHead, string, string | null, string[], string[], 1?];
      if (head.callsCut === 'time') return true; // parsed again: its call-site query may finish this time
      const packed: PackedSymbols = { head, decl: Buffer.from(decl, 'base64'), calls: calls === null ? undefined : Buffer.from(calls, 'base64'), keys, methods };
      if (take(rel, mtimeMs, size, outline === 1 ? { ...packed, outline: true } : packed)) count++;
      return true;
    },
    get count() {
      return count;
    },
  };
}

/** Feeds a cache file to `line` a line at a time (never the whole file in memory) until it returns false. */
export async function readCacheFile(file: string, line: (line: string) => boolean): Promise<void> {
  const lines = readline.createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  try {
    for await (const l of lines) if (!line(l)) break;
  } finally {
    lines.close();
  }
}

/** Characters of cache lines per write. */
const CHUNK_CHARS = 256 * 1024;

/**
 * Writes the lines to a temporary file beside `file`, in chunks of about 256 KB, then renames it
 * over `file`. Each chunk's lines are made (base64, JSON) on the host's thread between two writes,
 * so small chunks keep each hold of the event loop at the end of a build short.
 */
export async function writeCacheFile(file: string, lines: Iterable<string>): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await removeStaleTemps(file).catch(() => undefined);
  const tmp = `${file}.${process.pid}.tmp`;
  const out = await fs.open(tmp, 'w');
  try {
    let chunk: string[] = [];
    let size = 0;
    for (const line of lines) {
      chunk.push(line);
      size += line.length;
      if (size > CHUNK_CHARS) {
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
