import type { FileSymbols, ImportSymbol, MethodSymbol, ParamSymbol, TypeSymbol, VarSymbol } from './model';

/**
 * Shares what the declarations of many files repeat, so the code index holds each once. A
 * file's symbols come from JSON.parse (packedSymbols.ts), which makes a new array for every `[]`
 * and a new string for every value longer than a few characters. On the JDK's 15,000 files that
 * was 630,000 empty arrays, `["public", "static"]` hundreds of thousands of times, and 2.1 million
 * strings of which 290,000 differ (a third of the index's heap).
 *
 *  - every empty list becomes one frozen empty array;
 *  - short string lists (modifiers, annotations, supertypes, throws) are shared by content;
 *  - names and type texts are shared through a table of the strings seen;
 *  - equal parameter lists (`(Object o)`, `(int index)`) and equal imports are one object each:
 *    on the JDK, 228,000 parameters in 121,000 lists are 31,000 distinct parameters in 40,000
 *    lists, and 81,000 imports are 8,000 distinct ones.
 *
 * Docs and signatures are left alone: nearly every one is unique. The records are read-only once
 * stored (nothing pushes into a stored list; a frozen one would throw if something did). The
 * tables keep names of records since replaced, so they are bounded (a million entries, 32
 * million characters, strings of at most 256) and start afresh past that, which costs sharing
 * for what came before, never correctness. `forget()` starts them afresh once a build is done:
 * afterwards they would only serve the few files an edit reparses.
 */

const EMPTY: readonly never[] = Object.freeze([]);
/** The list itself, or the one shared empty list. */
const orEmpty = <T>(a: readonly T[]): readonly T[] => (a.length ? a : EMPTY);
/** Past this many distinct strings (or lists), or characters, a table starts afresh. */
const MAX_ENTRIES = 1_000_000;
const MAX_CHARS = 32_000_000;
/** Longer strings are not shared: rarely repeated, and a table of them would keep the text of records long replaced. */
const MAX_SHARED_CHARS = 256;
/** Lists longer than this are not shared by content (rare, and their key would cost more). */
const MAX_SHARED_LIST = 6;

export class SymbolInterner {
  private strings = new Map<string, string>();
  private lists = new Map<string, readonly string[]>();
  /** Shared parameter lists and imports, by content (the keys are counted in `chars` too). */
  private objects = new Map<string, unknown>();
  /** Characters held by the tables' keys (what stays alive after the records holding them are gone). */
  private chars = 0;

  /** Characters the tables hold now. */
  get heldChars(): number {
    return this.chars;
  }

  /** The stored copy of `s` (the first seen). */
  str(s: string): string {
    if (s.length > MAX_SHARED_CHARS) return s;
    const hit = this.strings.get(s);
    if (hit !== undefined) return hit;
    this.room(s.length);
    this.strings.set(s, s);
    return s;
  }

  /** Starts both tables afresh when they would pass their bounds (sharing is lost for what came before, nothing else). */
  private room(chars: number): void {
    if (this.strings.size < MAX_ENTRIES && this.lists.size < MAX_ENTRIES && this.objects.size < MAX_ENTRIES && this.chars + chars <= MAX_CHARS) {
      this.chars += chars;
      return;
    }
    this.forget();
    this.chars = chars;
  }

  /** Drops the tables (what is stored keeps its sharing; what comes later shares afresh). */
  forget(): void {
    this.strings = new Map();
    this.lists = new Map();
    this.objects = new Map();
    this.chars = 0;
  }

  /** The one stored object for a content `key`, made by `make` the first time. */
  private shared<T>(key: string, make: () => T): T {
    if (key.length > MAX_SHARED_CHARS) return make();
    const hit = this.objects.get(key);
    if (hit !== undefined) return hit as T;
    this.room(key.length);
    const made = make();
    this.objects.set(key, made);
    return made;
  }

  /** One shared array per content for short lists of strings; the empty list for every empty one. */
  list(a: readonly string[] | undefined): readonly string[] {
    if (!a || !a.length) return EMPTY;
    if (a.length > MAX_SHARED_LIST) return a.map((s) => this.str(s));
    // JSON, not a join: a name may hold any character a separator would (a parser recovering from errors makes such names).
    const key = JSON.stringify(a);
    if (key.length > MAX_SHARED_CHARS) return a.map((s) => this.str(s));
    const hit = this.lists.get(key);
    if (hit) return hit;
    this.room(key.length);
    const shared = Object.freeze(a.map((s) => this.str(s)));
    this.lists.set(key, shared);
    return shared;
  }

  /** A method's parameters: one frozen list per content, each parameter without the line an extractor gave it. */
  private params(ps: readonly ParamSymbol[]): readonly ParamSymbol[] {
    if (!ps.length) return EMPTY;
    const param = (p: ParamSymbol): unknown[] => [p.name, p.type, p.modifiers ?? []];
    return this.shared(JSON.stringify(['p', ps.map(param)]), () =>
      Object.freeze(
        ps.map((p): ParamSymbol =>
          // …and each parameter is shared too: `Object o` is in `(Object o)` and `(Object o, int i)`.
          this.shared(JSON.stringify(['q', ...param(p)]), () => {
            const mods = p.modifiers?.length ? this.list(p.modifiers) : undefined;
            return Object.freeze(mods ? { name: this.str(p.name), type: this.str(p.type), modifiers: mods } : { name: this.str(p.name), type: this.str(p.type) });
          }),
        ),
      ),
    );
  }

  private import(i: ImportSymbol): ImportSymbol {
    const key = JSON.stringify(['i', i.name, i.isStatic, i.onDemand, i.alias ?? null, i.member ?? null]);
    return this.shared(key, () => Object.freeze({ ...i, name: this.str(i.name) }));
  }

  private vars(vs: readonly VarSymbol[]): readonly VarSymbol[] {
    for (const v of vs) {
      const w = v as { name: string; type: string; modifiers?: readonly string[] };
      w.name = this.str(v.name);
      w.type = this.str(v.type);
      if (v.modifiers) w.modifiers = this.list(v.modifiers);
    }
    return orEmpty(vs);
  }

  private method(m: MethodSymbol): void {
    const w = m as { -readonly [K in keyof MethodSymbol]: MethodSymbol[K] };
    w.kind = this.str(m.kind) as MethodSymbol['kind'];
    w.name = this.str(m.name);
    w.params = this.params(m.params);
    w.modifiers = this.list(m.modifiers);
    w.annotations = this.list(m.annotations);
    if (m.returnType !== undefined) w.returnType = this.str(m.returnType);
    if (m.throws) w.throws = this.list(m.throws);
    if (m.typeParams) w.typeParams = orEmpty(m.typeParams);
  }

  private type(t: TypeSymbol): void {
    const w = t as { -readonly [K in keyof TypeSymbol]: TypeSymbol[K] };
    w.kind = this.str(t.kind) as TypeSymbol['kind'];
    w.name = this.str(t.name);
    w.qname = this.str(t.qname);
    if (t.outer !== undefined) w.outer = this.str(t.outer);
    w.modifiers = this.list(t.modifiers);
    w.annotations = this.list(t.annotations);
    w.extends = this.list(t.extends);
    w.implements = this.list(t.implements);
    w.typeParams = orEmpty(t.typeParams);
    w.fields = this.vars(t.fields);
    w.enumConstants = orEmpty(t.enumConstants);
    w.components = this.vars(t.components);
    for (const m of t.methods) this.method(m);
    w.methods = orEmpty(t.methods);
  }

  /** Shares the repeated parts of a file's symbols in place, and returns them. */
  file(f: FileSymbols): FileSymbols {
    const w = f as { -readonly [K in keyof FileSymbols]: FileSymbols[K] };
    w.package = this.str(f.package);
    w.imports = f.imports.length ? f.imports.map((i) => this.import(i)) : EMPTY;
    for (const t of f.types) this.type(t);
    w.types = orEmpty(f.types);
    return f;
  }
}
