import { deflateRawSync, inflateRawSync, constants } from 'node:zlib';
import type { CallSite, FileSymbols, MethodSymbol, TypeKind } from './model';

/**
 * How the code index keeps a file's symbols in memory and in its cache: packed, with only what a
 * lookup across the whole project needs as objects.
 *
 *  - The declarations are deflated JSON: as objects, even with what they repeat shared, they take
 *    several times the memory, and a very large tree would not fit in the host's. A lookup that
 *    reaches a file unpacks it, and the index keeps the unpacked files it used last (unpackedFiles.ts).
 *  - The file's head stays as objects: its language and package, and each type's kind and names,
 *    so a type is found by name without unpacking anything.
 *  - The names of its methods, so a method asked for without a class is found in the files that
 *    declare one of that name.
 *  - The call sites (about half of a Java file's symbols) are deflated apart, with the list of
 *    names they call: a callers query skips every file that cannot call the method without
 *    inflating it, and inflates the calls of the rest.
 */

/** What a lookup by name needs of a type, without unpacking its file. */
export interface TypeHead {
  readonly kind: TypeKind;
  readonly name: string;
  readonly fqn: string;
  /** The enclosing type's `qname`, for nested types. */
  readonly outer?: string;
}

export interface FileHead {
  readonly language: FileSymbols['language'];
  readonly package: string;
  /** The file's types, in the order of `FileSymbols.types`. */
  readonly types: readonly TypeHead[];
  readonly callsCut?: FileSymbols['callsCut'];
}

export interface PackedSymbols {
  readonly head: FileHead;
  /** The file's symbols (every method's `calls` empty), as deflated JSON. */
  readonly decl: Buffer;
  /** Each method's calls, types and methods in declaration order, as deflated JSON; undefined when there are none. */
  readonly calls: Buffer | undefined;
  /** The distinct `callKey`s of those calls. */
  readonly keys: readonly string[];
  /** The distinct names of the file's methods, constructors and initializers. */
  readonly methods: readonly string[];
  /** The declarations alone, from the file's outline: its call sites are still to be parsed. */
  readonly outline?: true;
}

/** The same, as a parse worker sends it: the head still as JSON text, the buffers as bytes. */
export interface PackedJson {
  readonly head: string;
  readonly decl: Uint8Array;
  readonly calls: Uint8Array | undefined;
  readonly keys: readonly string[];
  readonly methods: readonly string[];
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
 * (`callsCut`). Hand-written files stay far below this; a generated or hostile one can have many
 * times more, which a query would inflate into huge JSON each time it reached the file.
 */
export const MAX_CALL_SITES = 50_000;

// The default level packs call sites clearly smaller than level 1 for a little more time, paid
// once per file parsed, in a parse worker.
const deflate = (json: string): Buffer => deflateRawSync(json, { level: 6, strategy: constants.Z_DEFAULT_STRATEGY });

/** Packs a file's symbols (`extractFile`'s output): the head, the declarations and the call sites apart. */
export function packSymbols(file: FileSymbols): PackedJson {
  const calls: Array<readonly CallSite[]> = [];
  const keys = new Set<string>();
  const methods = new Set<string>();
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
      methods.add(m.name);
      return { ...m, calls: [] };
    }),
  }));
  const head: FileHead = {
    language: file.language,
    package: file.package,
    types: types.map(({ kind, name, fqn, outer }) => (outer === undefined ? { kind, name, fqn } : { kind, name, fqn, outer })),
    ...(cut ? { callsCut: cut } : {}),
  };
  return {
    head: JSON.stringify(head),
    decl: deflate(JSON.stringify({ ...file, types, ...(cut ? { callsCut: cut } : {}) })),
    calls: left < MAX_CALL_SITES ? deflate(JSON.stringify(calls)) : undefined,
    keys: [...keys],
    methods: [...methods],
  };
}

/** A Buffer over the bytes (no copy). */
const asBuffer = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** A packed file as the index holds it, from what a parse worker (or `extractPacked`) gave. */
export function unpackJson(p: PackedJson): PackedSymbols {
  const packed: PackedSymbols = {
    head: JSON.parse(p.head) as FileHead,
    decl: asBuffer(p.decl),
    calls: p.calls && asBuffer(p.calls),
    keys: p.keys,
    methods: p.methods,
  };
  return p.outline ? { ...packed, outline: true } : packed;
}

/**
 * About the heap a JSON text takes once parsed, per character: 1.8 for a JDK file's declarations,
 * 2.7 for a generated class of 20,000 overloads (which deflates 36 to 1, so the packed size is no
 * measure of it).
 */
const HEAP_PER_JSON_CHAR = 2;

/** Deflated JSON, parsed, with about the heap it takes. */
function inflateJson<T>(bytes: Buffer): { readonly value: T; readonly heap: number } {
  const json = inflateRawSync(bytes).toString('utf8');
  return { value: JSON.parse(json) as T, heap: json.length * HEAP_PER_JSON_CHAR };
}

/** A file's declarations, unpacked: a new copy at every call; every method's `calls` is one shared empty list. `heap`: about the bytes they take. */
export function unpackDecl(decl: Buffer): { readonly symbols: FileSymbols; readonly heap: number } {
  const { value: symbols, heap } = inflateJson<FileSymbols>(decl);
  for (const t of symbols.types) for (const m of t.methods) (m as { calls: readonly CallSite[] }).calls = NO_CALLS;
  return { symbols, heap };
}

/** Each method's call sites, in the order `packSymbols` wrote them. `heap`: about the bytes they take. */
export function inflateCalls(calls: Buffer | undefined): { readonly calls: ReadonlyArray<readonly CallSite[]>; readonly heap: number } {
  if (!calls) return { calls: [], heap: 0 };
  const { value, heap } = inflateJson<CallSite[][]>(calls);
  return { calls: value, heap };
}

/** The declarations a parse worker (or `extractPacked`) packed. */
export const packedDeclarations = (p: PackedJson): FileSymbols => unpackDecl(asBuffer(p.decl)).symbols;
