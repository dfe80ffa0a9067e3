import { setImmediate } from 'node:timers';
import type { TypeEntry } from '../entries';
import type { FileSymbols } from '../model';

export type { TypeEntry };
import { unpackDecl } from '../packedSymbols';
import { declBytes, type FileRecord } from './recordStore';

/**
 * The files whose declarations the code index has unpacked lately (packedSymbols.ts), so that
 * the lookups of one answer, and of the answers that follow, see one copy of each: the call graph
 * compares methods by identity, and an answer that met two copies of a method would expand it
 * twice or miss its callers.
 *
 * The files an answer unpacks are all kept while any answer is in flight (`pinned`). Once none
 * is, the least recently used are let go down to a budget, and all of them after a minute with no
 * lookup. Letting go calls `letGo`: whatever holds symbols (the call graph's resolutions) must let
 * go too, both for the memory and so that no later answer mixes old copies with new ones.
 */

export interface Unpacked {
  readonly file: FileSymbols;
  /** One entry per type, in the order of `file.types`. */
  readonly entries: readonly TypeEntry[];
}

/**
 * Unpacked files kept past the answers that used them (by `unpackDecl`'s estimate of their heap),
 * and how long they are kept with no lookup (tests lower both). A callers query of a common name
 * unpacks every file that calls it, on a large tree up to half the files: the bound leaves room
 * for that.
 */
export const UNPACKED_LIMITS = { bytes: 192 * 1024 * 1024, idleMs: 60_000 };

export class UnpackedFiles {
  private readonly kept = new Map<FileRecord, Unpacked & { readonly bytes: number }>();
  private bytes = 0;
  /** Which record each unpacked copy came from. */
  private readonly origin = new WeakMap<FileSymbols, FileRecord>();
  private pins = 0;
  private trimQueued = false;
  private lastUse = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly letGo: () => void) {}

  /** The record's declarations, unpacked once while kept. */
  get(rel: string, rec: FileRecord): Unpacked {
    this.used();
    const hit = this.kept.get(rec);
    if (hit) {
      this.kept.delete(rec);
      this.kept.set(rec, hit);
      return hit;
    }
    const { symbols: file, heap: bytes } = unpackDecl(declBytes(rec));
    const entries = file.types.map((type): TypeEntry => ({ path: rel, file, type }));
    this.kept.set(rec, { file, entries, bytes });
    this.origin.set(file, rec);
    this.bytes += bytes;
    this.queueTrim();
    return { file, entries };
  }

  /** The declarations for one pass over them, kept only if they already were (a listing of every file must not push out what answers use). */
  peek(rec: FileRecord): FileSymbols {
    return this.kept.get(rec)?.file ?? unpackDecl(declBytes(rec)).symbols;
  }

  /** The record an unpacked copy came from; undefined for symbols made elsewhere (a language server's, a file parsed for one answer). */
  recordOf(file: FileSymbols): FileRecord | undefined {
    return this.origin.get(file);
  }

  /**
   * Runs `fn` with everything unpacked meanwhile kept until it ends, or until `signal` aborts (the
   * tool call was stopped and its answer will not be sent): a handler that never ends must not
   * keep every file it reached unpacked for good.
   */
  async pinned<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return fn();
    let held = true;
    const unpin = (): void => {
      if (!held) return;
      held = false;
      this.pins--;
      this.used();
      this.queueTrim();
    };
    this.pins++;
    this.used();
    signal?.addEventListener('abort', unpin, { once: true });
    try {
      return await fn();
    } finally {
      signal?.removeEventListener('abort', unpin);
      unpin();
    }
  }

  /** Never in the middle of a synchronous lookup: on a later turn of the event loop, and only when no pinned answer runs. */
  private queueTrim(): void {
    if (this.trimQueued || this.pins > 0 || this.bytes <= UNPACKED_LIMITS.bytes) return;
    this.trimQueued = true;
    setImmediate(() => {
      this.trimQueued = false;
      if (this.pins === 0) this.trim(UNPACKED_LIMITS.bytes);
    });
  }

  private trim(budget: number): void {
    if (this.bytes <= budget || !this.kept.size) return;
    for (const [rec, u] of this.kept) {
      if (this.bytes <= budget) break;
      this.kept.delete(rec);
      this.bytes -= u.bytes;
    }
    this.letGo();
  }

  /** Arms the idle check: a minute after the last lookup, with no answer in flight, everything is let go. */
  private used(): void {
    this.lastUse = Date.now();
    if (!this.idleTimer) this.idleTimer = idleTimer(new WeakRef(this), UNPACKED_LIMITS.idleMs);
  }

  /** The idle timer fired: let everything go, or wait for what is left of the minute. */
  idleCheck(): void {
    const left = this.lastUse + UNPACKED_LIMITS.idleMs - Date.now();
    if (this.pins > 0 || left > 0) {
      this.idleTimer = idleTimer(new WeakRef(this), Math.max(left, 1000));
      return;
    }
    this.idleTimer = undefined;
    this.trim(0);
  }

  /** An answer is in flight. */
  get busy(): boolean {
    return this.pins > 0;
  }

  /** How many files are unpacked now (tests). */
  get size(): number {
    return this.kept.size;
  }
}

/**
 * The timer holds its files weakly: an index nobody uses any more (a cold answer's, neededFilesIndex.ts)
 * is collected at once, not kept for the minute.
 */
function idleTimer(files: WeakRef<UnpackedFiles>, ms: number): NodeJS.Timeout {
  return setTimeout(() => files.deref()?.idleCheck(), ms).unref();
}
