import type { SecretGuard } from '../../policy/secrets';
import { accessPolicy } from '../../policy/accessPolicy';
import type { CallSite, FileSymbols, MethodSymbol, TypeSymbol } from '../model';
import { IndexStore, type FileRecord } from './indexStore';

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
  callsByName?: Map<string, CallRef[]>;
}

const push = <K, V>(m: Map<K, V[]>, k: K, v: V): void => {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
};

/** Key under which a call site is found by `callSitesNamed`: the method name, the created type's simple name, `<this>` / `<super>`. */
export function callKey(site: CallSite): string {
  if (site.kind === 'this' || site.kind === 'super') return `<${site.kind}>`;
  if (site.kind === 'new' || (site.kind === 'ref' && site.name === 'new')) {
    const raw = site.kind === 'new' ? site.name.replace(/<.*$/s, '') : (site.text ?? '').replace(/<.*$/s, '');
    return raw.slice(raw.lastIndexOf('.') + 1);
  }
  return site.name;
}

export class CodeIndex extends IndexStore {
  private derivedCache: Derived | undefined;
  /** The secret globs `derivedCache` was made under: files that became secret leave every answer. */
  private derivedGuard: SecretGuard | undefined;

  protected override changed(): void {
    this.derivedCache = undefined;
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
    const d: Derived = { byFqn: new Map(), bySimple: new Map(), byPackage: new Map() };
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

  /** Every call site under a `callKey`, across the project. */
  callSitesNamed(key: string): readonly CallRef[] {
    const d = this.derived();
    if (!d.callsByName) {
      const m = new Map<string, CallRef[]>();
      for (const [rel, rec] of this.visible()) {
        for (const type of rec.symbols.types) {
          const owner: TypeEntry = { path: rel, file: rec.symbols, type };
          for (const method of type.methods) {
            const caller = { owner, method };
            for (const site of method.calls) push(m, callKey(site), { caller, site });
          }
        }
      }
      d.callsByName = m;
    }
    return d.callsByName.get(key) ?? [];
  }
}
