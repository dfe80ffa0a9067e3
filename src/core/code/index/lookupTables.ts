import type { TypeHead } from '../packedSymbols';
import type { FileRecord } from './recordStore';
import { scanPause, type Sliced } from './slices';
import type { CallRef, MethodEntry, PackageTypes } from '../entries';

export type { CallRef, MethodEntry, PackageTypes };

/**
 * The code index's lookup tables (codeIndex.ts): types by fully qualified name, by simple name and
 * by package, made from the records' heads with nothing unpacked, once per change of the index;
 * and what lookups give.
 */

/** A type found by name, its file not unpacked. */
export interface TypeRef {
  readonly path: string;
  readonly head: TypeHead;
  readonly rec: FileRecord;
  /** Its position in the file's types. */
  readonly at: number;
}

export interface Derived {
  readonly byFqn: Map<string, TypeRef[]>;
  readonly bySimple: Map<string, TypeRef[]>;
  /** Top-level types of each package, by simple name. */
  readonly byPackage: Map<string, Map<string, TypeRef[]>>;
  /** Call sites by `callKey`, for the names asked lately (each a scan of the files that call the name). */
  readonly callsByName: Map<string, CallRef[]>;
  /** Files whose call sites are missing or cut (`callSitesMissing`, `callSitesCut`), once asked. */
  partial?: IncompleteFiles;
}

export interface IncompleteFiles {
  readonly missing: string[];
  readonly cut: string[];
}

/** Adds `v` to the list under `k`. */
const push = <K, V>(m: Map<K, V[]>, k: K, v: V): void => {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
};

/** The tables of the records given (those no secret glob hides), pausing every so many records (slices.ts). */
export function* lookupTables(records: Iterable<[string, FileRecord]>): Sliced<Derived> {
  const d: Derived = { byFqn: new Map(), bySimple: new Map(), byPackage: new Map(), callsByName: new Map() };
  let n = 0;
  for (const [rel, rec] of records) {
    if (scanPause(++n)) yield;
    rec.head.types.forEach((head, at) => {
      const ref: TypeRef = { path: rel, head, rec, at };
      push(d.byFqn, head.fqn, ref);
      push(d.bySimple, head.name, ref);
      if (head.outer === undefined) {
        let pkg = d.byPackage.get(rec.head.package);
        if (!pkg) d.byPackage.set(rec.head.package, (pkg = new Map()));
        push(pkg, head.name, ref);
      }
    });
  }
  return d;
}
