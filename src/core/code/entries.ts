import type { CallSite, FileSymbols, MethodSymbol, TypeSymbol } from './model';

/**
 * What a lookup in a code index gives: a type with its file, a method with its type, a call site
 * with its caller. Kept here, below the index, so the Java resolver and the language-server
 * answers can speak of them without importing the index.
 */

export interface TypeEntry {
  /** Project-relative path of the file declaring the type. */
  readonly path: string;
  readonly file: FileSymbols;
  readonly type: TypeSymbol;
}

export interface MethodEntry {
  readonly owner: TypeEntry;
  readonly method: MethodSymbol;
}

export interface CallRef {
  readonly caller: MethodEntry;
  readonly site: CallSite;
}

/** A package's top-level types by simple name (what the resolvers ask of a package). */
export interface PackageTypes {
  has(name: string): boolean;
  get(name: string): readonly TypeEntry[] | undefined;
  values(): Iterable<readonly TypeEntry[]>;
}
