import type { SecretGuard } from '../../policy/secrets';
import { accessPolicy } from '../../policy/accessPolicy';
import type { CallSite, FileSymbols, MethodSymbol, TypeSymbol } from '../model';
import { callKey, inflateCalls } from '../packedSymbols';
import { IndexStore } from './indexStore';
import type { FileRecord } from './recordStore';

/**
 * The workspace code index: lookups by simple, qualified or fully qualified name over the
 * declarations and call sites of every source file. The records themselves (their build, their
 * updates, their cache on disk) are kept by `IndexStore` (indexStore.ts).
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

interface Derived {
  readonly byFqn: Map<string, TypeEntry[]>;
  readonly bySimple: Map<string, TypeEntry[]>;
  /** Top-level types of each package, by simple name. */
  readonly byPackage: Map<string, Map<string, TypeEntry[]>>;
  /** Call sites by `callKey`, for the names asked lately (each a scan of the files that call the name). */
  readonly callsByName: Map<string, CallRef[]>;
  /** Files whose call sites are missing or cut (`callSitesMissing`, `callSitesCut`), once asked. */
  partial?: IncompleteFiles;
}

interface IncompleteFiles {
  readonly missing: string[];
  readonly cut: string[];
}

/** Names whose call sites `callSitesNamed` keeps, and the inflated call lists `callsOf` keeps (by JSON size). */
const CALL_NAMES_KEPT = 64;
const INFLATED_BYTES_KEPT = 16 * 1024 * 1024;

const push = <K, V>(m: Map<K, V[]>, k: K, v: V): void => {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
};

export class CodeIndex extends IndexStore {
  private derivedCache: Derived | undefined;
  /** Inflated calls of recently used files, least recently used first. */
  private inflated = new Map<FileRecord, { calls: ReadonlyArray<readonly CallSite[]>; bytes: number }>();
  private inflatedBytes = 0;
  /** The secret globs `derivedCache` was made under: files that became secret leave every answer. */
  private derivedGuard: SecretGuard | undefined;

  protected override changed(): void {
    this.derivedCache = undefined;
    this.inflated.clear();
    this.inflatedBytes = 0;
    super.changed();
  }

  // ---- lookups ------------------------------------------------------------------------------

  get fileCount(): number {
    return this.files.size;
  }

  fileSymbols(rel: string): FileSymbols | undefined {
    const r = this.relOf(rel);
    return accessPolicy(this.ws).hides(r) ? undefined : this.files.get(r)?.symbols;
  }

  *allFiles(): Iterable<[string, FileSymbols]> {
    for (const [rel, rec] of this.visible()) yield [rel, rec.symbols];
  }

  /** The records of files no secret glob hides now (the setting may have changed since they were read). */
  private *visible(): Iterable<[string, FileRecord]> {
    const policy = accessPolicy(this.ws);
    for (const entry of this.files) if (!policy.hides(entry[0])) yield entry;
  }

  private derived(): Derived {
    const guard = accessPolicy(this.ws).secrets;
    if (this.derivedGuard !== guard) {
      if (this.derivedGuard !== undefined) this.changed();
      this.derivedGuard = guard;
    }
    if (this.derivedCache) return this.derivedCache;
    const d: Derived = { byFqn: new Map(), bySimple: new Map(), byPackage: new Map(), callsByName: new Map() };
    for (const [rel, rec] of this.visible()) {
      for (const type of rec.symbols.types) {
        const e: TypeEntry = { path: rel, file: rec.symbols, type };
        push(d.byFqn, type.fqn, e);
        push(d.bySimple, type.name, e);
        if (!type.outer) {
          let pkg = d.byPackage.get(rec.symbols.package);
          if (!pkg) d.byPackage.set(rec.symbols.package, (pkg = new Map()));
          push(pkg, type.name, e);
        }
      }
    }
    this.derivedCache = d;
    return d;
  }

  typesByFqn(fqn: string): readonly TypeEntry[] {
    return this.derived().byFqn.get(fqn) ?? [];
  }

  packageTypes(pkg: string): ReadonlyMap<string, readonly TypeEntry[]> | undefined {
    return this.derived().byPackage.get(pkg);
  }

  /**
   * Types matching a name as an agent writes it: simple (`Entry`), qualified (`Map.Entry`), fully
   * qualified (`java.util.Map.Entry`), with `$` for nesting accepted. Several hits when the name is ambiguous.
   */
  findTypes(name: string): TypeEntry[] {
    const n = name
      .trim()
      .replace(/<.*$/s, '')
      .replace(/\.(java|class)$/, '')
      .replace(/[/\\$]/g, '.');
    const d = this.derived();
    const exact = d.byFqn.get(n);
    if (exact) return [...exact];
    const simple = n.slice(n.lastIndexOf('.') + 1);
    const candidates = d.bySimple.get(simple) ?? [];
    const found = n.includes('.') ? candidates.filter((e) => e.type.fqn.endsWith(`.${n}`)) : [...candidates];
    // `Greeter` names the class Greeter before the module of a file greeter.ts/Greeter.py.
    const types = found.filter((e) => e.type.kind !== 'module');
    if (types.length && types.length < found.length) return types;
    if (found.length) return found;
    // `arraylist`, `java.util.arraylist`: letter case is the only difference.
    const lower = n.toLowerCase();
    return [...d.byFqn.values()].flat().filter((e) => e.type.fqn.toLowerCase() === lower || e.type.fqn.toLowerCase().endsWith(`.${lower}`));
  }

  typeEntries(): Iterable<TypeEntry> {
    const d = this.derived();
    return [...d.byFqn.values()].flat();
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
    const rec = this.files.get(m.owner.path);
    if (!rec?.calls || rec.symbols !== m.owner.file) return m.method.calls;
    let at = 0;
    for (const t of rec.symbols.types) {
      if (t !== m.owner.type) {
        at += t.methods.length;
        continue;
      }
      const i = t.methods.indexOf(m.method);
      return i < 0 ? m.method.calls : (this.inflate(rec)[at + i] ?? m.method.calls);
    }
    return m.method.calls;
  }

  private inflate(rec: FileRecord): ReadonlyArray<readonly CallSite[]> {
    const hit = this.inflated.get(rec);
    if (hit) {
      this.inflated.delete(rec);
      this.inflated.set(rec, hit);
      return hit.calls;
    }
    const calls = inflateCalls(rec.calls);
    const bytes = (rec.calls?.length ?? 0) * 5; // about the inflated JSON's size
    this.inflated.set(rec, { calls, bytes });
    this.inflatedBytes += bytes;
    for (const [old, v] of this.inflated) {
      if (this.inflatedBytes <= INFLATED_BYTES_KEPT || old === rec) break;
      this.inflated.delete(old);
      this.inflatedBytes -= v.bytes;
    }
    return calls;
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
      else if (rec.symbols.callsCut) cut.push(rel);
    }
    d.partial = { missing, cut };
    return d.partial;
  }

  /** Every call site under a `callKey`, across the project: only files that call the name are inflated. */
  callSitesNamed(key: string): readonly CallRef[] {
    const d = this.derived();
    const cached = d.callsByName.get(key);
    if (cached) return cached;
    const out: CallRef[] = [];
    const id = this.keyId(key);
    if (id !== undefined) {
      for (const [rel, rec] of this.visible()) {
        if (!rec.keys.includes(id)) continue;
        const calls = this.inflate(rec);
        let at = 0;
        for (const type of rec.symbols.types) {
          const owner: TypeEntry = { path: rel, file: rec.symbols, type };
          for (const method of type.methods) {
            const caller = { owner, method };
            for (const site of calls[at++] ?? []) if (callKey(site) === key) out.push({ caller, site });
          }
        }
      }
    }
    if (d.callsByName.size >= CALL_NAMES_KEPT) d.callsByName.delete(d.callsByName.keys().next().value as string);
    d.callsByName.set(key, out);
    return out;
  }
}
