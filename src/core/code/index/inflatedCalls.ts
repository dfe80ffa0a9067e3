import type { CallSite } from '../model';
import { inflateCalls } from '../packedSymbols';
import { callBytes, type FileRecord } from './recordStore';

/** The inflated call lists kept, by `inflateCalls`' estimate of their heap. */
const INFLATED_BYTES_KEPT = 64 * 1024 * 1024;

/**
 * The call sites of recently used files, inflated (the index keeps them packed, packedSymbols.ts):
 * a callers tree asks for the same files again at every level. Least recently used let go first,
 * past a budget of bytes.
 */
export class InflatedCalls {
  private readonly kept = new Map<FileRecord, { calls: ReadonlyArray<readonly CallSite[]>; bytes: number }>();
  private bytes = 0;

  /** The record's call sites, one list per method in declaration order. */
  get(rec: FileRecord): ReadonlyArray<readonly CallSite[]> {
    const hit = this.kept.get(rec);
    if (hit) {
      this.kept.delete(rec);
      this.kept.set(rec, hit);
      return hit.calls;
    }
    const { calls, heap: bytes } = inflateCalls(callBytes(rec));
    this.kept.set(rec, { calls, bytes });
    this.bytes += bytes;
    for (const [old, v] of this.kept) {
      if (this.bytes <= INFLATED_BYTES_KEPT || old === rec) break;
      this.kept.delete(old);
      this.bytes -= v.bytes;
    }
    return calls;
  }

  clear(): void {
    this.kept.clear();
    this.bytes = 0;
  }
}
