import { deflateRawSync, inflateRawSync, constants } from 'node:zlib';
import type { SymbolInterner } from './compactSymbols';
import type { CallSite, FileSymbols, MethodSymbol } from './model';

/**
 * How the code index keeps a file's symbols in memory and in its cache: the declarations as plain
 * objects, and the call sites (about half of a Java file's symbols, and the most objects) apart,
 * deflated, with the list of names they call. A 60,000-file tree kept every call site as objects
 * and ran out of heap (4 GB); packed, the calls of one file are inflated only when a query needs
 * them (its callees, or callers of a name it calls), and the names let a callers query skip every
 * file that cannot call the method without inflating it.
 */

export interface PackedSymbols {
  /** The file's symbols, every method's `calls` empty. */
  readonly symbols: FileSymbols;
  /** Each method's calls, types and methods in declaration order, as deflated JSON; undefined when there are none. */
  readonly calls: Buffer | undefined;
  /** The distinct `callKey`s of those calls. */
  readonly keys: readonly string[];
  /** The declarations alone, from the file's outline: its call sites are still to be parsed. */
  readonly outline?: true;
}

/** The same, with the symbols still as JSON text: what a parse worker sends and the cache stores. */
export interface PackedJson {
  readonly json: string;
  readonly calls: Uint8Array | undefined;
  readonly keys: readonly string[];
  readonly outline?: true;
}

const NO_CALLS: readonly CallSite[] = Object.freeze([]);

/** Key under which a call site is found by a callers query: the method name, the created type's simple name, `<this>` / `<super>`. */
export function callKey(site: CallSite): string {
  if (site.kind === 'this' || site.kind === 'super') return `<${site.kind}>`;
  if (site.kind === 'new' || (site.kind === 'ref' && site.name === 'new')) {
    const raw = site.kind === 'new' ? site.name.replace(/<.*$/s, '') : (site.text ?? '').replace(/<.*$/s, '');
    return raw.slice(raw.lastIndexOf('.') + 1);
  }
  return site.name;
}

/**
 * The call sites one file keeps, in declaration order; the rest are left out and the file says so
 * (`callsCut`). The JDK's largest file has 3,363; a generated or hostile file of 2 MB can have
 * 500,000, which a query would inflate into about 100 MB of JSON each time it reached the file.
 */
export const MAX_CALL_SITES = 50_000;

/** Splits the call sites off a file's symbols (`extractFile`'s output). */
export function packSymbols(file: FileSymbols): PackedJson {
  const calls: Array<readonly CallSite[]> = [];
  const keys = new Set<string>();
  let left = MAX_CALL_SITES;
  let cut = file.callsCut;
  const types = file.types.map((t) => ({
    ...t,
    methods: t.methods.map((m): MethodSymbol => {
      let sites = m.calls;
      if (sites.length > left) {
        sites = sites.slice(0, left);
        cut ??= 'sites';
      }
      left -= sites.length;
      calls.push(sites);
      for (const site of sites) keys.add(callKey(site));
      return { ...m, calls: [] };
    }),
  }));
  // The default level: on the JDK, 10.6 MB held for 100 MB of JSON, against 13.4 MB at level 1,
  // for 30 µs more per file (in a parse worker, once per file parsed).
  const packed = left < MAX_CALL_SITES ? deflateRawSync(JSON.stringify(calls), { level: 6, strategy: constants.Z_DEFAULT_STRATEGY }) : undefined;
  return { json: JSON.stringify({ ...file, types, ...(cut ? { callsCut: cut } : {}) }), calls: packed, keys: [...keys] };
}

/** A packed file as the index holds it; the symbols' JSON is parsed here (a copy: no string of it keeps the file's text alive). */
export function unpackJson(p: PackedJson, interner?: SymbolInterner): PackedSymbols {
  const calls = p.calls && (Buffer.isBuffer(p.calls) ? p.calls : Buffer.from(p.calls.buffer, p.calls.byteOffset, p.calls.byteLength));
  const packed = asPacked(JSON.parse(p.json) as FileSymbols, calls, p.keys, interner);
  return p.outline ? { ...packed, outline: true } : packed;
}

/**
 * Symbols already parsed (from the cache) with their packed calls; every method's `calls` becomes
 * one shared empty list, and with an `interner` what they repeat is shared (compactSymbols.ts).
 */
export function asPacked(symbols: FileSymbols, calls: Buffer | undefined, keys: readonly string[], interner?: SymbolInterner): PackedSymbols {
  for (const t of symbols.types) for (const m of t.methods) (m as { calls: readonly CallSite[] }).calls = NO_CALLS;
  return { symbols: interner ? interner.file(symbols) : symbols, calls, keys };
}

/** Each method's call sites, in the order `packSymbols` wrote them. */
export function inflateCalls(calls: Buffer | undefined): ReadonlyArray<readonly CallSite[]> {
  return calls ? (JSON.parse(inflateRawSync(calls).toString('utf8')) as CallSite[][]) : [];
}
