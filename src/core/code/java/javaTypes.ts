import type { PackageTypes, TypeEntry } from '../entries';
import { isJdkStub, jdkStub } from './jdkStubs';
import { jdkPackageTypes } from './jdkTypes';
import { FINAL_OBJECT_METHODS, JAVA_LANG_TYPES, OBJECT, OBJECT_METHODS } from './javaLang';
import type { MethodSymbol, ParamSymbol } from '../model';
import { erasedSimple, parseType, PRIMITIVES, type TypeRef } from './typeRef';

/**
 * Java names and types against the index, as javac would see them: type names in a file's scope
 * (nested and inherited member types, imports, the package, on-demand imports, java.lang), type
 * variables and their erasure, supertypes with type arguments substituted, fields and methods
 * along the hierarchy. Whatever cannot be decided from the sources in hand is `undefined`, never guessed.
 */

/** What Java typing asks of the code index (CodeIndex gives it): the types of a name, and of a package. */
export interface JavaTypeIndex {
  typesByFqn(fqn: string): readonly TypeEntry[];
  hasType(fqn: string): boolean;
  packageTypes(pkg: string): PackageTypes | undefined;
}

export interface RType {
  /** Fully qualified (`.` for nesting), a primitive, or `?` for a type argument that could not be resolved. */
  readonly fqn: string;
  readonly args: readonly RType[];
  readonly dims: number;
}

export interface Scope {
  readonly entry: TypeEntry;
  /** The member being resolved inside: its type parameters are in scope. */
  readonly method?: MethodSymbol;
  /** Type arguments of a parameterized receiver, by type parameter name. */
  readonly bindings?: ReadonlyMap<string, RType>;
}

export interface FoundMethod {
  readonly entry: TypeEntry;
  readonly method: MethodSymbol;
  readonly bindings?: ReadonlyMap<string, RType>;
}

export const UNKNOWN: RType = { fqn: '?', args: [], dims: 0 };
export const rtype = (fqn: string, dims = 0, args: readonly RType[] = []): RType => ({ fqn, args, dims });
const OBJECT_T = rtype(OBJECT);

export const rkey = (t: RType): string =>
  t.fqn + (t.args.length ? `<${t.args.map(rkey).join(',')}>` : '') + '[]'.repeat(t.dims);

/** Java naming: `Entry` is a type, `REGISTRY` or `out` is a field. */
export const looksLikeType = (name: string): boolean => /^[A-Z]/.test(name) && /[a-z]/.test(name);

/** Private members are not inherited: only the declaring type (index 0 of a hierarchy walk) sees them. */
const visible = (m: MethodSymbol, depth: number): boolean => depth === 0 || !m.modifiers.includes('private');

export function arityFits(m: MethodSymbol, argc: number): boolean {
  if (argc < 0) return true;
  return m.params.length === argc || (!!m.varargs && argc >= m.params.length - 1);
}

/** Erased parameter types as simple names: the overriding key. Type variables count as `Object`. */
function erasedParams(m: MethodSymbol, entry: TypeEntry): string {
  const vars = new Set([...(m.typeParams ?? []), ...entry.type.typeParams].map((p) => p.name));
  return m.params.map((p: ParamSymbol) => {
    const s = erasedSimple(p.type);
    const base = s.replace(/\[\]/g, '');
    return vars.has(base) ? s.replace(base, 'Object') : s;
  }).join(',');
}

export class JavaTypes {
  private readonly simpleCache = new Map<string, string | undefined>();
  private readonly memberCache = new Map<string, string | undefined>();
  private readonly superCache = new Map<string, { types: RType[]; complete: boolean }>();
  /** Supertypes being resolved: a name lookup that comes back to one of them (cyclic or self-referential code) sees none. */
  private readonly inProgress = new Set<string>();
  /** Types and declarations looked through so far: the resolver counts them against a call's budget (typingBudget.ts). */
  work = 0;

  constructor(readonly index: JavaTypeIndex) {}

  /** The type's declaration in the project, else its JDK stub (`jdkStubs.ts`) when it is a JDK class in the table. */
  entryOf(fqn: string, near?: TypeEntry): TypeEntry | undefined {
    const all = this.index.typesByFqn(fqn);
    return (near && all.find((e) => e.path === near.path)) ?? all[0] ?? jdkStub(fqn);
  }

  /** Whether part of the type's hierarchy comes from JDK stubs (public and protected members only). */
  usesStubs(t: RType): boolean {
    return this.hierarchy(t).types.some((h) => {
      const e = this.entryOf(h.fqn);
      return !!e && isJdkStub(e);
    });
  }

  /** The type and its lexically enclosing types, innermost first. */
  chain(entry: TypeEntry): TypeEntry[] {
    const out = [entry];
    let cur: TypeEntry | undefined = entry;
    while (cur?.type.outer) {
      const pkg = cur.file.package;
      cur = this.entryOf(pkg ? `${pkg}.${cur.type.outer}` : cur.type.outer, cur);
      if (cur) out.push(cur);
    }
    return out;
  }

  thisType(entry: TypeEntry): RType {
    return rtype(entry.type.fqn);
  }

  resolveText(text: string, scope: Scope, unknownVarsOf?: MethodSymbol): RType | undefined {
    return this.resolveRef(parseType(text), scope, unknownVarsOf);
  }

  private typeVar(name: string, scope: Scope, unknownVarsOf?: MethodSymbol): RType | undefined | null {
    const bound = scope.bindings?.get(name);
    if (bound) return bound;
    if (unknownVarsOf?.typeParams?.some((p) => p.name === name)) return null;
    const own = scope.method?.typeParams?.find((p) => p.name === name);
    const erase = (b: string | undefined, s: Scope): RType =>
      b ? (this.resolveRef({ ...parseType(b), args: [] }, { entry: s.entry }) ?? OBJECT_T) : OBJECT_T;
    if (own) return erase(own.bound, scope);
    for (const t of this.chain(scope.entry)) {
      const p = t.type.typeParams.find((tp) => tp.name === name);
      if (p) return erase(p.bound, { entry: t });
    }
    return undefined;
  }

  resolveRef(ref: TypeRef, scope: Scope, unknownVarsOf?: MethodSymbol): RType | undefined {
    this.work++;
    if (ref.wildcard) return ref.wildcard === 'extends' && ref.args[0] ? this.resolveRef(ref.args[0], scope, unknownVarsOf) : OBJECT_T;
    const name = ref.name;
    if (!name) return undefined;
    if (PRIMITIVES.has(name)) return rtype(name, ref.dims);
    const segs = name.split('.');
    const head = segs[0] as string;
    if (segs.length === 1) {
      const tv = this.typeVar(head, scope, unknownVarsOf);
      if (tv === null) return undefined;
      if (tv) return { ...tv, dims: tv.dims + ref.dims };
    }
    let fqn: string | undefined;
    const base = this.simpleName(head, scope.entry);
    if (base) {
      fqn = base;
      for (const seg of segs.slice(1)) fqn = this.memberType(fqn, seg) ?? `${fqn}.${seg}`;
    } else {
      fqn = this.qualified(segs);
    }
    if (!fqn) return undefined;
    const args = ref.args.map((a) => this.resolveRef(a, scope, unknownVarsOf) ?? UNKNOWN);
    return rtype(fqn, ref.dims, args);
  }

  /** `java.util.Map.Entry` written out: the longest indexed package prefix, else Java's naming convention. */
  private qualified(segs: readonly string[]): string | undefined {
    for (let k = segs.length - 1; k >= 1; k--) {
      const pkg = segs.slice(0, k).join('.');
      if (this.index.packageTypes(pkg)?.has(segs[k] as string)) return segs.join('.');
    }
    const firstType = segs.findIndex((s) => /^[A-Z]/.test(s));
    return firstType > 0 ? segs.join('.') : undefined;
  }

  /** A simple type name as seen from inside `entry` (JLS 6.5.5), fully qualified. */
  simpleName(name: string, entry: TypeEntry): string | undefined {
    const key = `${entry.path}|${entry.type.qname}|${name}`;
    if (this.simpleCache.has(key)) return this.simpleCache.get(key);
    const found = this.lookupSimple(name, entry);
    this.simpleCache.set(key, found);
    return found;
  }

  private lookupSimple(name: string, entry: TypeEntry): string | undefined {
    for (const t of this.chain(entry)) {
      if (t.type.name === name) return t.type.fqn;
      const member = this.memberType(t.type.fqn, name);
      if (member) return member;
    }
    const file = entry.file;
    const single = file.imports.find((i) => !i.isStatic && !i.onDemand && i.name.endsWith(`.${name}`));
    if (single) return single.name;
    const pkg = file.package;
    if (this.index.packageTypes(pkg)?.has(name)) return pkg ? `${pkg}.${name}` : name;
    const found = new Set<string>();
    const unindexed: string[] = [];
    for (const imp of file.imports) {
      if (!imp.onDemand) continue;
      const types = imp.isStatic ? undefined : this.index.packageTypes(imp.name);
      if (types) {
        if (types.has(name)) found.add(`${imp.name}.${name}`);
      } else if (this.index.hasType(imp.name)) {
        const member = this.memberType(imp.name, name);
        if (member) found.add(member);
      } else if (!imp.isStatic) {
        const jdk = jdkPackageTypes(imp.name);
        if (!jdk) unindexed.push(imp.name);
        else if (jdk.has(name)) found.add(`${imp.name}.${name}`);
      }
    }
    if (found.size) return found.size === 1 ? [...found][0] : undefined;
    if (this.index.packageTypes('java.lang')?.has(name) || JAVA_LANG_TYPES.has(name)) return `java.lang.${name}`;
    if (unindexed.length === 1 && looksLikeType(name)) return `${unindexed[0]}.${name}`;
    return undefined;
  }

  /** A member type declared in `owner` or inherited from its supertypes. */
  memberType(owner: string, name: string, depth = 0): string | undefined {
    const key = `${owner}|${name}`;
    if (this.memberCache.has(key)) return this.memberCache.get(key);
    this.memberCache.set(key, undefined);
    let found: string | undefined;
    if (this.index.hasType(`${owner}.${name}`) || jdkStub(`${owner}.${name}`)) found = `${owner}.${name}`;
    else if (depth < 20) {
      for (const s of this.supertypes(rtype(owner)).types) {
        found = this.memberType(s.fqn, name, depth + 1);
        if (found) break;
      }
    }
    this.memberCache.set(key, found);
    return found;
  }

  /** Direct supertypes with type arguments substituted; `complete` is false when the type is not in the index. */
  supertypes(t: RType): { types: RType[]; complete: boolean } {
    const key = rkey({ ...t, dims: 0 });
    const hit = this.superCache.get(key);
    if (hit) return hit;
    if (this.inProgress.has(key)) return { types: [], complete: false };
    this.inProgress.add(key);
    try {
      const result = this.computeSupertypes(t);
      this.superCache.set(key, result);
      return result;
    } finally {
      this.inProgress.delete(key);
    }
  }

  private computeSupertypes(t: RType): { types: RType[]; complete: boolean } {
    let result: { types: RType[]; complete: boolean };
    const entry = t.fqn === OBJECT ? undefined : this.entryOf(t.fqn);
    if (t.fqn === OBJECT) result = { types: [], complete: true };
    else if (!entry) result = { types: [], complete: false };
    else {
      const params = entry.type.typeParams;
      const bindings = params.length && params.length === t.args.length ? new Map(params.map((p, i) => [p.name, t.args[i] as RType])) : undefined;
      const scope: Scope = bindings ? { entry, bindings } : { entry };
      let complete = true;
      const types: RType[] = [];
      for (const text of [...entry.type.extends, ...entry.type.implements]) {
        const r = this.resolveText(text, scope);
        if (r) types.push(r);
        else complete = false;
      }
      const kind = entry.type.kind;
      if (kind === 'enum') types.unshift(rtype('java.lang.Enum', 0, [rtype(entry.type.fqn)]));
      else if (kind === 'record') types.unshift(rtype('java.lang.Record'));
      else if (kind === 'annotation') types.push(rtype('java.lang.annotation.Annotation'));
      else if (kind === 'class' && entry.type.extends.length === 0) types.unshift(OBJECT_T);
      result = { types, complete };
    }
    return result;
  }

  /** The type and all its supertypes, breadth first, each once; `complete` is false when part of it is outside the index. */
  hierarchy(t: RType): { types: RType[]; complete: boolean } {
    const seen = new Set<string>();
    const out: RType[] = [];
    let complete = true;
    const queue = [{ ...t, dims: 0 }];
    while (queue.length && out.length < 200) {
      const cur = queue.shift() as RType;
      if (seen.has(cur.fqn)) continue;
      seen.add(cur.fqn);
      this.work++;
      out.push(cur);
      const s = this.supertypes(cur);
      if (!s.complete) complete = false;
      queue.push(...s.types);
    }
    return { types: out, complete };
  }

  scopeOf(t: RType): Scope | undefined {
    const entry = this.entryOf(t.fqn);
    if (!entry) return undefined;
    const params = entry.type.typeParams;
    if (!params.length || params.length !== t.args.length) return { entry };
    return { entry, bindings: new Map(params.map((p, i) => [p.name, t.args[i] as RType])) };
  }

  /** A field's type along the hierarchy: a type, 'missing' (surely none), or 'unknown' (may be inherited from outside). */
  fieldType(t: RType, name: string): RType | 'missing' | 'unknown' {
    if (t.dims > 0) return name === 'length' ? rtype('int') : 'missing';
    const h = this.hierarchy(t);
    for (const ht of h.types) {
      const scope = this.scopeOf(ht);
      if (!scope) continue;
      const ty = scope.entry.type;
      this.work += ty.fields.length;
      const field = ty.fields.find((f) => f.name === name) ?? ty.components.find((c) => c.name === name);
      if (field) return this.resolveText(field.type, scope) ?? 'unknown';
      if (ty.enumConstants.some((c) => c.name === name)) return rtype(ty.fqn);
    }
    return h.complete ? 'missing' : 'unknown';
  }

  /**
   * Methods named `name` that fit `argc` arguments (-1: any), across the hierarchy, overridden
   * ones left out. `viaObject` when only java.lang.Object declares it.
   */
  methods(t: RType, name: string, argc: number): { found: FoundMethod[]; complete: boolean; viaObject: boolean } {
    const h = this.hierarchy(t);
    const found: FoundMethod[] = [];
    const keys = new Set<string>();
    for (const [depth, ht] of h.types.entries()) {
      const scope = this.scopeOf(ht);
      if (!scope) continue;
      this.work += scope.entry.type.methods.length;
      for (const m of scope.entry.type.methods) {
        if (m.kind !== 'method' || m.name !== name || !arityFits(m, argc) || !visible(m, depth)) continue;
        const key = erasedParams(m, scope.entry);
        if (keys.has(key)) continue;
        keys.add(key);
        found.push({ entry: scope.entry, method: m, ...(scope.bindings ? { bindings: scope.bindings } : {}) });
      }
    }
    if (!found.length && (OBJECT_METHODS.get(name) ?? []).some(([n]) => argc < 0 || n === argc)) {
      const object = this.entryOf(OBJECT);
      const decls = object?.type.methods.filter((m) => m.kind === 'method' && m.name === name && arityFits(m, argc)) ?? [];
      for (const m of decls) if (object) found.push({ entry: object, method: m });
      // Outside the index a supertype may override it (then javac names the receiver's type).
      return { found, complete: h.complete, viaObject: h.complete || FINAL_OBJECT_METHODS.has(name) };
    }
    return { found, complete: h.complete, viaObject: found.length > 0 && found.every((f) => f.entry.type.fqn === OBJECT) };
  }

  /** Whether a method of that name (any arity) is a member of the type: JLS 15.12.1's "class to search". */
  hasMethodNamed(t: RType, name: string): 'yes' | 'no' | 'maybe' {
    if (OBJECT_METHODS.has(name)) return 'yes';
    const h = this.hierarchy(t);
    for (const [depth, ht] of h.types.entries()) {
      const entry = this.entryOf(ht.fqn);
      if (!entry) continue;
      this.work += entry.type.methods.length;
      if (entry.type.methods.some((m) => m.kind === 'method' && m.name === name && visible(m, depth))) return 'yes';
      if (entry.type.kind === 'enum' && (name === 'values' || name === 'valueOf')) return 'yes';
      if (entry.type.components.some((c) => c.name === name)) return 'yes';
    }
    return h.complete ? 'no' : 'maybe';
  }

  constructors(fqn: string, argc: number): { entry?: TypeEntry; found: MethodSymbol[] } {
    const entry = this.entryOf(fqn);
    if (!entry) return { found: [] };
    return { entry, found: entry.type.methods.filter((m) => m.kind === 'constructor' && arityFits(m, argc)) };
  }

  /** The superclass (not interfaces) of a type in the index. */
  superclass(entry: TypeEntry): RType | undefined {
    const ty = entry.type;
    if (ty.kind === 'interface' || ty.kind === 'annotation') return OBJECT_T;
    if (ty.kind === 'class' && ty.extends[0]) return this.resolveText(ty.extends[0], { entry });
    return this.supertypes(this.thisType(entry)).types[0];
  }
}
