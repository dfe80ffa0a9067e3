import { setImmediate } from 'node:timers';
import type { FileSymbols, TypeSymbol } from '../model';
import { unpackDecl } from '../packedSymbols';
import type { FileRecord } from './recordStore';

/**
 * The files whose declarations the code index has unpacked lately (packedSymbols.ts), so that
 * the lookups of one answer, and of the next few, see one copy of each: the call graph compares
 * methods by identity, and an answer that met two copies of a method would expand it twice.
 *
 * The files an answer unpacks are all kept while any answer is in flight (`pinned`); once none is,
 * the least recently used are let go down to a budget. Letting go bumps `evictions`: a cache that
 * holds symbols (the call graph's) starts afresh, so no later answer mixes its old copies with
 * new ones.
 */

export interface TypeEntry {
  /** Project-relative path of the file declaring the type. */
  readonly path: string;
  readonly file: FileSymbols;
  readonly type: TypeSymbol;
}

export interface Unpacked {
  readonly file: FileSymbols;
  /** One entry per type, in the order of `file.types`. */
  readonly entries: readonly TypeEntry[];
}

/** About the heap an unpacked file takes, per byte of its deflated declarations. */
const HEAP_PER_PACKED_BYTE = 10;
/** Unpacked files kept past the answers that used them, by that estimate (tests lower it). */
export const UNPACKED_LIMITS = { bytes: 48 * 1024 * 1024 };

export class UnpackedFiles {
  private readonly kept = new Map<FileRecord, Unpacked & { readonly bytes: number }>();
  private bytes = 0;
  /** Which record each unpacked copy came from. */
  private readonly origin = new WeakMap<FileSymbols, FileRecord>();
  private pins = 0;
  private trimQueued = false;
  /** How often unpacked files were let go: symbols held from before may be copies no lookup returns now. */
  evictions = 0;

  /** The record's declarations, unpacked once while kept. */
  get(rel: string, rec: FileRecord): Unpacked {
    const hit = this.kept.get(rec);
    if (hit) {
      this.kept.delete(rec);
      this.kept.set(rec, hit);
      return hit;
    }
    const file = unpackDecl(rec.decl);
    const entries = file.types.map((type): TypeEntry => ({ path: rel, file, type }));
    const bytes = rec.decl.length * HEAP_PER_PACKED_BYTE;
    this.kept.set(rec, { file, entries, bytes });
    this.origin.set(file, rec);
    this.bytes += bytes;
    this.queueTrim();
    return { file, entries };
  }

  /** The declarations for one pass over them, kept only if they already were (a listing of every file must not push out what answers use). */
  peek(rec: FileRecord): FileSymbols {
    return this.kept.get(rec)?.file ?? unpackDecl(rec.decl);
  }

  /** The record an unpacked copy came from; undefined for symbols made elsewhere (a language server's, a file parsed for one answer). */
  recordOf(file: FileSymbols): FileRecord | undefined {
    return this.origin.get(file);
  }

  /** Runs `fn` with everything unpacked meanwhile kept until it ends. */
  async pinned<T>(fn: () => Promise<T>): Promise<T> {
    this.pins++;
    try {
      return await fn();
    } finally {
      this.pins--;
      this.queueTrim();
    }
  }

  /** Never in the middle of a synchronous lookup: on a later turn of the event loop, and only when no pinned answer runs. */
  private queueTrim(): void {
    if (this.trimQueued || this.pins > 0 || this.bytes <= UNPACKED_LIMITS.bytes) return;
    this.trimQueued = true;
    setImmediate(() => {
      this.trimQueued = false;
      if (this.pins === 0) this.trim();
    });
  }

  private trim(): void {
    const budget = UNPACKED_LIMITS.bytes;
    if (this.bytes <= budget) return;
    for (const [rec, u] of this.kept) {
      if (this.bytes <= budget) break;
      this.kept.delete(rec);
      this.bytes -= u.bytes;
    }
    this.evictions++;
  }

  /** How many files are unpacked now (tests). */
  get size(): number {
    return this.kept.size;
  }
}
