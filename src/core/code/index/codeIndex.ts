import type { SecretGuard } from '../../workspace/globSet';
import { accessPolicy } from '../../policy/accessPolicy';
import type { CallSite, FileSymbols } from '../model';
import { callKey } from '../packedSymbols';
import { IndexStore } from './indexStore';
import { InflatedCalls } from './inflatedCalls';
import type { FileRecord } from './recordStore';
import { UnpackedFiles, type TypeEntry } from './unpackedFiles';
import { runWhole, scanPause, type Sliced } from './slices';
import { lookupTables, type CallRef, type Derived, type IncompleteFiles, type MethodEntry, type PackageTypes, type TypeRef } from './lookupTables';

export type { CallRef, MethodEntry, PackageTypes, TypeEntry, TypeRef };

/** The index as an answer saw it (`version()`): which symbols it handed out, under which secret globs. */
export interface IndexVersion {
  /** How many times the unpacked symbols were let go. */
  readonly epoch: number;
  readonly guard: SecretGuard;
}

/**
 * Names whose call sites `callSitesNamedSliced` keeps, and how many call sites in all (each keeps its
 * inflated list alive).
 */
const CALL_NAMES_KEPT = 64;
const CALL_REFS_KEPT = 500_000;

/** Names an agent may write for any class's constructors (callGraph.ts `isConstructorName`): in every language, and in all but Java. */
const CONSTRUCTOR_NAMES: ReadonlySet<string> = new Set(['<init>', 'new']);
const CONSTRUCTOR_NAMES_NOT_JAVA: ReadonlySet<string> = new Set(['constructor', '__init__', 'init']);

/**
 * The workspace code index: lookups by simple, qualified or fully qualified name over the
 * declarations and call sites of every source file. The records themselves (their build, their
 * updates, their cache on disk) are kept by `IndexStore` (indexStore.ts), packed
 * (packedSymbols.ts): a lookup finds types by the heads of the files and unpacks only the files
 * it returns (unpackedFiles.ts).
 */
export class CodeIndex extends IndexStore {
  private derivedCache: Derived | undefined;
  /** Inflated calls of recently used files, least recently used first. */
  private readonly inflated = new InflatedCalls();
  /** The secret globs `derivedCache` was made under: files that became secret leave every answer. */
  private derivedGuard: SecretGuard | undefined;
  /** The files unpacked lately; see `pinned`. */
  private readonly unpacked = new UnpackedFiles(() => this.symbolsLetGo());
  /** Caches that hold symbols, by owner (`symbolScoped`). */
  private scoped = new WeakMap<object, unknown>();
  /** How many times the symbols were let go (`version`). */
  private letGoCount = 0;
  /** Paths the secret globs of `guard` were found not to hide (`visible`). */
  private shown: { readonly guard?: SecretGuard; readonly paths: Set<string> } = { paths: new Set() };

  protected override changed(): void {
    this.derivedCache = undefined;
    this.symbolsLetGo();
    super.changed();
  }

  /** Unpacked files were let go: so is everything holding their symbols, so no answer meets an old copy beside a new one. */
  private symbolsLetGo(): void {
    this.letGoCount++;
    this.derivedCache?.callsByName.clear();
    this.scoped = new WeakMap();
    this.inflated.clear();
  }

  /**
   * What an answer worked out across pauses (slices.ts) depends on: the symbols lookups hand out
   * (they may change whenever a file changes or unpacked files are let go, and an answer that met
   * two copies of a method is wrong) and the secret globs (a file they come to cover must leave the
   * answer, whatever was read before). The answer stands only while `unchanged(version)`.
   */
  version(): IndexVersion {
    return { epoch: this.letGoCount, guard: accessPolicy(this.ws).secrets };
  }

  unchanged(version: IndexVersion): boolean {
    return version.epoch === this.letGoCount && version.guard === accessPolicy(this.ws).secrets;
  }

  /**
   * `owner`'s cache of anything that holds symbols (the call graph's resolutions): made by `make`
   * on first use, and dropped whenever those symbols may no longer be the ones a lookup returns (a
   * file changed, or unpacked files were let go).
   */
  symbolScoped<T extends object>(owner: object, make: () => T): T {
    let cache = this.scoped.get(owner) as T | undefined;
    if (!cache) this.scoped.set(owner, (cache = make()));
    return cache;
  }

  /**
   * Runs one answer: every file it unpacks stays unpacked until it ends (or `signal`, its tool
   * call's, aborts), so its lookups meet one copy of each symbol even across its awaits (the call
   * graph compares methods by identity).
   */
  pinned<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.unpacked.pinned(fn, signal);
  }

  // ---- lookups ------------------------------------------------------------------------------

  get fileCount(): number {
    return this.files.size;
  }

  fileSymbols(rel: string): FileSymbols | undefined {
    const r = this.relOf(rel);
    const rec = accessPolicy(this.ws).hides(r) ? undefined : this.files.get(r);
    return rec && this.unpacked.get(r, rec).file;
  }

  /** Every file's symbols, unpacked one at a time (a pass over the whole project: the `@` list, tests). */
  *allFiles(): Iterable<[string, FileSymbols]> {
    for (const [rel, rec] of this.visible()) yield [rel, this.unpacked.peek(rec)];
  }

  /**
   * `make`'s answer for every file, made once per record and kept in `cache` while the record is:
   * a pass over the whole project that must not unpack every file again after each change (the
   * `@` symbol list, made again whenever the index changes).
   */
  *eachFile<T>(cache: WeakMap<object, T>, make: (rel: string, file: FileSymbols) => T): Iterable<[string, T]> {
    for (const [rel, rec] of this.visible()) {
      let value = cache.get(rec);
      if (value === undefined) cache.set(rec, (value = make(rel, this.unpacked.peek(rec))));
      yield [rel, value];
    }
  }

  /** Every file's path. */
  *paths(): Iterable<string> {
    for (const [rel] of this.visible()) yield rel;
  }

  /**
   * The records of files no secret glob hides now (the setting may have changed since they were
   * read). Whether a path is hidden depends on the path and the globs alone, so each path is
   * matched once per guard (a settings change makes a new one), not at every scan: a scan runs
   * for every name a callers tree asks, and matching every path of a large tree each time is slow.
   */
  private *visible(): Iterable<[string, FileRecord]> {
    const policy = accessPolicy(this.ws);
    const guard = policy.secrets;
    if (this.shown.guard !== guard) this.shown = { guard, paths: new Set() };
    const shown = this.shown.paths;
    for (const entry of this.files) {
      if (!shown.has(entry[0])) {
        // the guard the set is for, not whatever is current when a paused scan goes on
        if (guard.isSecret(entry[0])) continue;
        shown.add(entry[0]);
      }
      yield entry;
    }
  }

  private derived(): Derived {
    const guard = accessPolicy(this.ws).secrets;
    if (this.derivedGuard !== guard) {
      if (this.derivedGuard !== undefined) this.changed();
      this.derivedGuard = guard;
    }
    if (this.derivedCache) return this.derivedCache;
    this.derivedCache = runWhole(lookupTables(this.visible()));
    return this.derivedCache;
  }

  /**
   * Makes the lookup tables in slices when a change dropped them (after a save, or the build's
   * end; on a large tree that takes long enough to be felt), so a question run in slices does
   * not make them in its first step. Tables made across a change or a settings change are thrown
   * away: the next lookup makes them at once.
   */
  *lookupTablesSliced(): Sliced<void> {
    const guard = accessPolicy(this.ws).secrets;
    if (this.derivedGuard !== undefined && this.derivedGuard !== guard) return;
    if (this.derivedCache) return;
    const epoch = this.letGoCount;
    const tables = yield* lookupTables(this.visible());
    if (this.letGoCount !== epoch || this.derivedCache || accessPolicy(this.ws).secrets !== guard || (this.derivedGuard ?? guard) !== guard) return;
    this.derivedGuard = guard;
    this.derivedCache = tables;
  }

  /** The types, their files unpacked. */
  private entries(refs: readonly TypeRef[]): TypeEntry[] {
    return refs.map((r) => this.unpacked.get(r.path, r.rec).entries[r.at] as TypeEntry);
  }

  /** Is a type of this name declared (nothing unpacked)? */
  hasType(fqn: string): boolean {
    return this.derived().byFqn.has(fqn);
  }

  typesByFqn(fqn: string): readonly TypeEntry[] {
    const refs = this.derived().byFqn.get(fqn);
    return refs ? this.entries(refs) : [];
  }

  packageTypes(pkg: string): PackageTypes | undefined {
    const types = this.derived().byPackage.get(pkg);
    if (!types) return undefined;
    const entries = (refs: readonly TypeRef[] | undefined) => refs && this.entries(refs);
    return {
      has: (name) => types.has(name),
      get: (name) => entries(types.get(name)),
      *values() {
        for (const refs of types.values()) yield entries(refs) as TypeEntry[];
      },
    };
  }

  /**
   * Types matching a name as an agent writes it: simple (`Entry`), qualified (`Map.Entry`), fully
   * qualified (`java.util.Map.Entry`), with `$` for nesting accepted. Several hits when the name is ambiguous.
   */
  findTypes(name: string): TypeEntry[] {
    const written = name
      .trim()
      .replace(/<.*$/s, '')
      .replace(/\.(java|class)$/, '')
      .replace(/[/\\]/g, '.');
    // `$` is a letter in TypeScript names (`src.$lib.util`) and Java's nesting mark (`Map$Entry`).
    if (written.includes('$')) {
      const kept = this.findTypesNamed(written, false);
      if (kept.length) return kept;
    }
    return this.findTypesNamed(written.replace(/\$/g, '.'), true);
  }

  private findTypesNamed(n: string, anyCase: boolean): TypeEntry[] {
    const d = this.derived();
    const exact = d.byFqn.get(n);
    if (exact) return this.entries(exact);
    const simple = n.slice(n.lastIndexOf('.') + 1);
    const candidates = d.bySimple.get(simple) ?? [];
    const found = n.includes('.') ? candidates.filter((r) => r.head.fqn.endsWith(`.${n}`)) : candidates;
    // `Greeter` names the class Greeter before the module of a file greeter.ts/Greeter.py.
    const types = found.filter((r) => r.head.kind !== 'module');
    if (types.length && types.length < found.length) return this.entries(types);
    if (found.length || !anyCase) return this.entries(found);
    // `arraylist`, `java.util.arraylist`: letter case is the only difference.
    const lower = n.toLowerCase();
    return this.entries([...d.byFqn.values()].flat().filter((r) => r.head.fqn.toLowerCase() === lower || r.head.fqn.toLowerCase().endsWith(`.${lower}`)));
  }

  /** Every type's head, nothing unpacked (names for a suggestion). */
  typeHeads(): Iterable<TypeRef> {
    return [...this.derived().byFqn.values()].flat();
  }

  /** Every type, every file unpacked: a pass over the whole project (tests, benchmarks). */
  typeEntries(): Iterable<TypeEntry> {
    return this.entries([...this.typeHeads()]);
  }

  /**
   * The types of the files that declare a method (or a type) of this name: what a method asked for
   * without its class can be in. A name that means any constructor (`<init>`, `new`; outside
   * Java also `constructor`, `__init__`, `init`: see `isConstructorName`) reaches every file with
   * a constructor it can mean.
   */
  typesDeclaring(name: string, maxFiles = Infinity): { readonly types: TypeEntry[] } | { readonly files: number } {
    const files = this.filesDeclaring(name);
    // More files than the caller would look through: how many, with nothing unpacked.
    if (files.length > maxFiles) return { files: files.length };
    return { types: files.flatMap(([rel, rec]) => this.unpacked.get(rel, rec).entries) };
  }

  private filesDeclaring(name: string): Array<[string, FileRecord]> {
    const id = this.keyId(name);
    const named = new Set((this.derived().bySimple.get(name) ?? []).map((r) => r.rec));
    const anyConstructor = CONSTRUCTOR_NAMES.has(name);
    const notJava = CONSTRUCTOR_NAMES_NOT_JAVA.has(name);
    // A constructor is a method named after its class.
    const hasConstructor = (rec: FileRecord): boolean =>
      (anyConstructor || (notJava && rec.head.language !== 'java')) &&
      rec.head.types.some((t) => {
        const tid = this.keyId(t.name);
        return tid !== undefined && rec.methods.includes(tid);
      });
    const out: Array<[string, FileRecord]> = [];
    for (const entry of this.visible()) {
      const rec = entry[1];
      if ((id !== undefined && rec.methods.includes(id)) || named.has(rec) || hasConstructor(rec)) out.push(entry);
    }
    return out;
  }

  methodsOf(owner: TypeEntry): MethodEntry[] {
    return owner.type.methods.map((method) => ({ owner, method }));
  }

  /**
   * A method's call sites. The index keeps them packed (packedSymbols.ts): they are inflated for
   * the method's file and kept for the next few queries. Symbols from elsewhere (a file parsed for
   * one answer, a language server's) carry their calls themselves.
   */
  callsOf(m: MethodEntry): readonly CallSite[] {
    if (m.method.calls.length) return m.method.calls;
    const rec = this.unpacked.recordOf(m.owner.file);
    // A copy of a record since replaced: its calls are not the ones stored now.
    if (!rec || rec.declLength === rec.packed.length || this.files.get(m.owner.path) !== rec) return m.method.calls;
    let at = 0;
    for (const t of m.owner.file.types) {
      if (t !== m.owner.type) {
        at += t.methods.length;
        continue;
      }
      const i = t.methods.indexOf(m.method);
      return i < 0 ? m.method.calls : (this.inflated.get(rec)[at + i] ?? m.method.calls);
    }
    return m.method.calls;
  }

  /**
   * Files whose call sites a finished build holds none of: their full parse failed (logged), so
   * only their declarations, from the outline, are in. Calls made in them are missing from every
   * call_chain answer, which says so. Empty while the build runs (call_chain answers cold then).
   */
  callSitesMissing(): string[] {
    return this.isReady ? this.partial().missing : [];
  }

  /**
   * Files whose call sites the index holds only in part (`FileSymbols.callsCut`): over
   * `MAX_CALL_SITES`, or past the call-site query's time budget. Calls made past the cut are in no
   * call_chain answer, which says so.
   */
  callSitesCut(): string[] {
    return this.partial().cut;
  }

  /** Both lists, from one scan of the records per change (every call_chain answer asks, and a scan of 60,000 records through the secret globs is not free). */
  private partial(): IncompleteFiles {
    const d = this.derived();
    if (d.partial) return d.partial;
    const missing: string[] = [];
    const cut: string[] = [];
    for (const [rel, rec] of this.visible()) {
      if (rec.outline) missing.push(rel);
      else if (rec.head.callsCut) cut.push(rel);
    }
    d.partial = { missing, cut };
    return d.partial;
  }

  /**
   * Every call site under a `callKey`, across the project: only files that call the name are
   * inflated. Pauses after each file it unpacks and every so many records (slices.ts).
   */
  *callSitesNamedSliced(key: string): Sliced<readonly CallRef[]> {
    const d = this.derived();
    const cached = d.callsByName.get(key);
    if (cached) return cached;
    const out: CallRef[] = [];
    const epoch = this.letGoCount;
    const id = this.keyId(key);
    if (id !== undefined) {
      let scanned = 0;
      for (const [rel, rec] of this.visible()) {
        // a pause every so many records too: 60,000 of them are not looked through in one step
        if (scanPause(++scanned)) yield;
        if (!rec.keys.includes(id)) continue;
        const calls = this.inflated.get(rec);
        let at = 0;
        for (const owner of this.unpacked.get(rel, rec).entries) {
          for (const method of owner.type.methods) {
            const caller = { owner, method };
            for (const site of calls[at++] ?? []) if (callKey(site) === key) out.push({ caller, site });
          }
        }
        yield;
      }
    }
    // symbols were let go at a pause: the list may hold copies no later lookup returns, so it is not kept
    if (this.letGoCount !== epoch) return out;
    let refs = out.length;
    for (const list of d.callsByName.values()) refs += list.length;
    for (const [name, list] of d.callsByName) {
      // Within an answer a callers tree asks for the same names again: only their count is bounded then.
      if (d.callsByName.size < CALL_NAMES_KEPT && (refs <= CALL_REFS_KEPT || this.unpacked.busy)) break;
      d.callsByName.delete(name);
      refs -= list.length;
    }
    d.callsByName.set(key, out);
    return out;
  }
}
