/**
 * What the code index knows about one source file. Everything here is plain JSON (no Maps, no
 * cycles) so a file's symbols can be cached on disk and loaded back without reparsing. Types are
 * kept as source text (`Map.Entry<K, V>[]`) and resolved later, against the whole index.
 */
import * as path from 'node:path';

import type { LanguageId } from './languageTable';

/** The parser's languages, from the language table (languageTable.ts). */
export type { LanguageId };

/**
 * `struct`: Go and C# structs; `type`: a TypeScript type alias; `object`: a Kotlin `object`;
 * `module`: a file's top-level functions (a pseudo type named after the file, from a language
 * server or the parser alike).
 */
export type TypeKind = 'class' | 'interface' | 'enum' | 'record' | 'annotation' | 'struct' | 'type' | 'object' | 'module';

export interface TypeParam {
  readonly name: string;
  /** Source text of the first bound (`Comparable<T>`), when there is one. */
  readonly bound?: string;
}

/** A method's parameter. No line: nothing reads it, and every file's index record would carry it (packedSymbols.ts). */
export interface ParamSymbol {
  readonly name: string;
  /** Declared type as source text, annotations removed, whitespace collapsed. */
  readonly type: string;
  readonly modifiers?: readonly string[];
}

/** A field, a record component, a parameter as an extractor first makes it. */
export interface VarSymbol extends ParamSymbol {
  readonly line: number;
  /** A field's doc comment, summarized. */
  readonly doc?: string;
}

/** An empty table of field docs by field name, with no prototype: a field may be named `__proto__`. */
export const fieldDocTable = (): Record<string, string> => Object.create(null) as Record<string, string>;

/**
 * Each field with its doc from `docs` (by field name, a `fieldDocTable`). Docs are kept on the fields, not in a
 * record keyed by field name: parsed from the index's JSON, such a record would be an object of
 * its own shape per type: a hidden class each in V8, which adds up on a large tree.
 */
export function withFieldDocs(fields: VarSymbol[], docs: Readonly<Record<string, string>> | undefined): VarSymbol[] {
  if (!docs) return fields;
  return fields.map((f) => {
    const doc = Object.hasOwn(docs, f.name) ? docs[f.name] : undefined;
    return doc ? { ...f, doc } : f;
  });
}

/**
 * The receiver of a call, kept as a small expression tree so it can be typed once the index is
 * complete. Locals and parameters are already bound to their declared types at extraction.
 *
 * The keys are one letter on purpose: every call site of every file carries one of these trees in
 * the on-disk index cache, so each key is written once per node, and in a large project the keys
 * would otherwise be a good part of the cache's bytes. The letters: k kind; n name; t type (source text); o the object a member is read
 * from; a, b operands (for `call`, a is the argument count); g the arguments; q the qualifier of
 * `Outer.this`; c, j, i, n of a lambda parameter: the call, the argument position, the parameter
 * position and the parameter count. Changing a key changes CACHE_VERSION (index/indexCache.ts).
 */
export type Expr =
  | { readonly k: 'id'; readonly n: string } // a name that is no local: field, type or package
  | { readonly k: 't'; readonly t: string } // a value of this declared type (local, parameter, cast)
  | { readonly k: 'fq'; readonly t: string } // a value of this fully qualified type (literals)
  | { readonly k: 'this' }
  | { readonly k: 'super' }
  | { readonly k: 'qthis'; readonly q: string } // Outer.this
  | { readonly k: 'qsuper'; readonly q: string } // Iface.super
  | { readonly k: 'get'; readonly o: Expr; readonly n: string } // a.b
  | { readonly k: 'call'; readonly o?: Expr; readonly n: string; readonly a: number; readonly g?: readonly Expr[] } // a.m(…), g: the arguments
  | { readonly k: 'cond'; readonly a: Expr; readonly b: Expr } // c ? a : b
  | { readonly k: 'null' }
  | { readonly k: 'num'; readonly a: Expr; readonly b?: Expr } // arithmetic: binary numeric promotion
  | { readonly k: 'new'; readonly t: string }
  | { readonly k: 'idx'; readonly o: Expr } // a[i]
  | { readonly k: 'elem'; readonly o: Expr } // `var x : a` in a for-each
  // Parameter i of an n-parameter lambda without declared types, passed as argument j of call c…
  | { readonly k: 'la'; readonly c: Expr; readonly j: number; readonly i: number; readonly n: number }
  // …or written where its functional interface type is this text (cast, declaration, return).
  | { readonly k: 'lt'; readonly t: string; readonly i: number; readonly n: number }
  | { readonly k: 'lub'; readonly ts: readonly string[] } // a multi-catch parameter: the alternatives' common superclass
  | { readonly k: '?'; readonly why?: string };

type CallKind = 'call' | 'new' | 'this' | 'super' | 'ref';

/** Flags of a call site. */
export const IN_LAMBDA = 1;
/** The call is inside an anonymous or local class body within the member. */
export const IN_NESTED_CLASS = 2;
/** `new T() { … }`: creates an anonymous subclass. */
export const ANONYMOUS = 4;

export interface CallSite {
  readonly line: number;
  readonly kind: CallKind;
  /** Method name; for `new`, the created type's source text; for `this(…)`/`super(…)`, empty. */
  readonly name: string;
  /** Argument count; -1 for method references. */
  readonly argc: number;
  /** Receiver (`a.b` in `a.b.m()`); absent for unqualified calls. */
  readonly recv?: Expr;
  /** Receiver as written, cut to 80 characters, for display. */
  readonly text?: string;
  readonly flags?: number;
  /** The arguments, for choosing between overloads of the same arity. */
  readonly g?: readonly Expr[];
}

type MemberKind = 'method' | 'constructor' | 'initializer';

export interface MethodSymbol {
  readonly kind: MemberKind;
  /** The method name; for constructors the class name; `<clinit>` / `<init>` for initializer blocks and field initializers; `<module>` for a module's top-level code. */
  readonly name: string;
  readonly params: readonly ParamSymbol[];
  readonly varargs?: boolean;
  /** Absent for constructors and initializers. */
  readonly returnType?: string;
  readonly typeParams?: readonly TypeParam[];
  readonly modifiers: readonly string[];
  readonly annotations: readonly string[];
  readonly throws?: readonly string[];
  readonly line: number;
  readonly endLine: number;
  readonly doc?: string;
  /** The declaration as written (language-server symbols only; the parser's is built by `methodSignature`). */
  readonly signature?: string;
  /** False for abstract and interface methods without a body. */
  readonly hasBody: boolean;
  readonly calls: readonly CallSite[];
}

export interface EnumConstantSymbol {
  readonly name: string;
  readonly line: number;
  readonly doc?: string;
}

export interface TypeSymbol {
  readonly kind: TypeKind;
  readonly name: string;
  /** Name inside the file: `Outer.Inner`. */
  readonly qname: string;
  /** Fully qualified: `pkg.Outer.Inner`. */
  readonly fqn: string;
  /** `qname` of the enclosing type, for nested types. */
  readonly outer?: string;
  readonly modifiers: readonly string[];
  readonly annotations: readonly string[];
  readonly typeParams: readonly TypeParam[];
  readonly extends: readonly string[];
  readonly implements: readonly string[];
  readonly line: number;
  readonly endLine: number;
  /** The declaration's first line, from modifiers to the opening brace, whitespace collapsed. */
  readonly signature: string;
  readonly doc?: string;
  readonly fields: readonly VarSymbol[];
  readonly methods: readonly MethodSymbol[];
  readonly enumConstants: readonly EnumConstantSymbol[];
  readonly components: readonly VarSymbol[];
  /**
   * A TypeScript namespace: a `module` type holding the namespace's functions under the
   * namespace's fqn, which a class or interface of the same name shares (TypeScript merges them).
   */
  readonly namespace?: true;
}

export interface ImportSymbol {
  /** Dotted name without `.*`; for TypeScript/JavaScript the module specifier (`./util`), for Go the import path. */
  readonly name: string;
  readonly isStatic: boolean;
  /** Everything the module or package exports (`.*`, `import * as m`, `import pkg`, a Go import). */
  readonly onDemand: boolean;
  /** The name the file uses for it when that is not the last segment of `name` (`as x`, a Go package name). */
  readonly alias?: string;
  /** The one name taken from the module (`from m import f`, `import { f } from 'm'`; `default`). */
  readonly member?: string;
}

export interface FileSymbols {
  /** The parser's language; `lsp` for symbols a language server gave (built per call, never cached). */
  readonly language: LanguageId | 'lsp';
  readonly package: string;
  readonly imports: readonly ImportSymbol[];
  /** Every type in the file, nested ones included, outer before inner. */
  readonly types: readonly TypeSymbol[];
  readonly lineCount: number;
  /** True when the parser had to recover from syntax errors. */
  readonly hasErrors?: boolean;
  /**
   * Some of the file's call sites were left out: more than the index keeps for one file
   * (`sites`, packedSymbols.ts), past the call-site query's time budget (`time`,
   * parse/exprBounds.ts; such a record is not taken from the cache: the machine may have been
   * busy, and the next parse may finish), or nested deeper than that query looks (`depth`).
   */
  readonly callsCut?: 'sites' | 'time' | 'depth';
}

/** The module pseudo type's name: the file's name without its extension. */
export const moduleName = (relPath: string): string => path.basename(relPath).replace(/\.[^.]*$/, '');
