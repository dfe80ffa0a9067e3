import type { CodeIndex, MethodEntry, TypeEntry } from './codeIndex';
import type { CallSite, Expr } from '../model';
import { ProjectModules, SCRIPT, type Lang, type Meaning } from './projectModules';
import type { ResolvedCall } from '../java/resolver';
import { elementType, withoutNullish } from './typeText';

/**
 * Call resolution for every language but Java, by following names, never by guessing: a call is
 * resolved only when its receiver is the member's own `this` / `self` / Go receiver (or `super`),
 * a name bound in the file (a class or function of the same module or package, an import that
 * leads to a file of the project), a local or parameter of a declared type or created by
 * `new` / a constructor call, or a field of such a declared type. Anything else (a value whose
 * type is not written down, a library, a global) is unresolved, with the reason.
 */

/** Languages where an unqualified `m()` in a class body may be the class's own method. */
const IMPLICIT_THIS: ReadonlySet<Lang> = new Set(['csharp', 'kotlin']);
/** Languages where calling a class constructs it (`Foo()`). */
const CALL_CONSTRUCTS: ReadonlySet<Lang> = new Set(['python', 'kotlin']);
const PY_BUILTINS = new Set(
  ('abs all any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex delattr dict dir divmod ' +
    'enumerate eval exec filter float format frozenset getattr globals hasattr hash help hex id input int isinstance ' +
    'issubclass iter len list locals map max memoryview min next object oct open ord pow print property range repr ' +
    'reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip').split(' '),
);

/** Built-in and standard-library containers, by the name a declaration writes (`List<Foo>`, `dict[str, Foo]`). */
const CONTAINERS = /^(?:readonly\s+)?(?:Array|ReadonlyArray|Set|ReadonlySet|Map|ReadonlyMap|WeakMap|WeakSet|Record|Iterable|AsyncIterable|Promise<(?:Array|ReadonlyArray)|List|MutableList|ArrayList|LinkedList|Collection|MutableCollection|Sequence|Dictionary|IList|IEnumerable|IReadOnlyList|ICollection|HashSet|HashMap|MutableMap|MutableSet|list|dict|set|frozenset|tuple|Sequence|Mapping|Iterator|map|chan)\s*[<[]/;

/** `what (an array, built in)` when a declared type is an array, slice or standard container; undefined otherwise. */
function collectionType(text: string): string | undefined {
  const t = text.trim();
  if (/\[\s*\]\s*\??$/.test(t) || /^\[\s*\]/.test(t) || /^\[\d+\]/.test(t)) return `${t}: an array, built in`;
  if (CONTAINERS.test(t) || /^(?:<-\s*)?chan\b/.test(t)) return `${t}: a collection, built in`;
  return undefined;
}

const raw = (t: string): string => t.replace(/^[*&\s]+/, '').replace(/[<[(].*$/s, '').replace(/\?$/, '').trim();

export class NameResolver {
  /** The files, imports and packages of the project, for names bound by a module or an import. */
  private readonly modules: ProjectModules;

  constructor(readonly index: CodeIndex) {
    this.modules = new ProjectModules(index);
  }

  resolve(site: CallSite, caller: MethodEntry): ResolvedCall {
    const lang = caller.owner.file.language;
    const here = caller.owner;
    if (site.kind === 'new') {
      const t = this.typeNamed(site.name, here);
      return 'type' in t ? this.construct(site, t.type) : this.unresolved(site, t, `class ${raw(site.name)}`);
    }
    if (site.kind === 'this' || site.kind === 'super') {
      const cls = site.kind === 'this' ? here : this.superclass(here);
      return cls ? this.construct(site, cls) : { site, targets: [], reason: 'superclass not in the project' };
    }
    if (!site.recv) return this.unqualified(site, caller, lang);
    const m = this.meaning(site.recv, caller);
    if ('value' in m || 'type' in m) return this.member('value' in m ? m.value : m.type, site);
    if ('module' in m) {
      const inModule = this.modules.inFile(m.file, site.name) ?? (lang === 'go' ? this.modules.inPackage(this.modules.entryIn(m.file), site.name) : undefined);
      if (inModule) return this.callNamed(site, inModule);
      return { site, targets: [], reason: `no ${site.name} in ${m.file}` };
    }
    return this.unresolved(site, m, `receiver ${site.text ?? ''}`.trim());
  }

  private unresolved(site: CallSite, m: Meaning, what: string): ResolvedCall {
    if ('outside' in m) return { site, targets: [], reason: `${what} is outside the project (${m.outside})` };
    if ('err' in m) return { site, targets: [], reason: m.err };
    return { site, targets: [], reason: `${what}: not a class` };
  }

  /** `Foo(…)` / `new Foo(…)`: the class's constructors, or the implicit one. */
  private construct(site: CallSite, cls: TypeEntry): ResolvedCall {
    const entries = this.index.typesByFqn(cls.type.fqn);
    const ctors = entries.flatMap((e) => e.type.methods.filter((m) => m.kind === 'constructor').map((method) => ({ owner: e, method })));
    return { site, owner: cls.type.fqn, targets: this.byArity(ctors, site.argc) };
  }

  /** A named function or class reached through a module or an import. */
  private callNamed(site: CallSite, found: { fn: MethodEntry[] } | { cls: TypeEntry }): ResolvedCall {
    if ('cls' in found) return this.construct(site, found.cls);
    const first = found.fn[0] as MethodEntry;
    return { site, owner: first.owner.type.fqn, targets: found.fn };
  }

  private unqualified(site: CallSite, caller: MethodEntry, lang: Lang): ResolvedCall {
    const here = caller.owner;
    if (IMPLICIT_THIS.has(lang) && here.type.kind !== 'module') {
      // The class, then the classes it is nested in (a companion's or outer class's methods).
      for (let t: TypeEntry | undefined = here; t; t = this.outer(t)) {
        const r = this.methodsIn(t, site.name, site.argc);
        if (r.length) return { site, owner: t.type.fqn, targets: r };
      }
    }
    const local = this.modules.inFile(here.path, site.name, here, site.line);
    if (local) {
      if ('cls' in local && !CALL_CONSTRUCTS.has(lang) && lang !== 'go') return { site, targets: [], reason: `${site.name} is a class` };
      return this.callNamed(site, local);
    }
    const imported = this.modules.imported(site.name, here);
    if (imported) {
      if ('value' in imported || 'type' in imported) return this.construct(site, 'value' in imported ? imported.value : imported.type);
      if ('fn' in imported) return { site, owner: (imported.fn[0] as MethodEntry).owner.type.fqn, targets: imported.fn };
      return this.unresolved(site, imported, site.name);
    }
    if (lang === 'go') {
      const inPackage = this.modules.inPackage(here, site.name);
      if (inPackage) return this.callNamed(site, inPackage);
    }
    if (lang === 'kotlin') {
      const t = this.typeNamed(site.name, here);
      if ('type' in t) return this.construct(site, t.type);
      const fns = this.kotlinFunctions(site.name, here);
      if (fns.length) return { site, owner: (fns[0] as MethodEntry).owner.type.fqn, targets: this.byArity(fns, site.argc) };
    }
    if (lang === 'python' && PY_BUILTINS.has(site.name)) return { site, owner: 'builtins', targets: [] };
    return { site, targets: [], reason: `no function ${site.name} in scope in the project` };
  }

  /** Kotlin top-level functions of the package, or imported by name (`import a.b.fn`). */
  private kotlinFunctions(name: string, here: TypeEntry): MethodEntry[] {
    const pkgs = [here.file.package, ...here.file.imports.filter((i) => !i.onDemand && i.name.endsWith(`.${name}`)).map((i) => i.name.slice(0, -name.length - 1))];
    const out: MethodEntry[] = [];
    for (const pkg of pkgs) {
      for (const entries of this.index.packageTypes(pkg)?.values() ?? []) {
        for (const e of entries) if (e.type.kind === 'module') out.push(...e.type.methods.filter((m) => m.name === name).map((method) => ({ owner: e, method })));
      }
      if (out.length) break;
    }
    return out;
  }

  /** Methods named like the call in a class and its supertypes in the project, first found. */
  private member(cls: TypeEntry, site: CallSite): ResolvedCall {
    const seen = new Set<string>();
    let incomplete = false;
    const queue: TypeEntry[] = [cls];
    while (queue.length) {
      const t = queue.shift() as TypeEntry;
      if (seen.has(t.type.fqn)) continue;
      seen.add(t.type.fqn);
      const found = this.methodsIn(t, site.name, site.argc);
      if (found.length) return { site, owner: t.type.fqn, targets: found };
      for (const s of [...t.type.extends, ...t.type.implements]) {
        const m = this.typeNamed(s, t);
        if ('type' in m) queue.push(m.type);
        else incomplete = true;
      }
    }
    if (incomplete) return { site, targets: [], reason: `${site.name} may be inherited from a supertype of ${cls.type.name} outside the project` };
    return { site, targets: [], reason: `no method ${site.name} in ${cls.type.fqn}` };
  }

  /** The class's supertypes in the project, nearest first, as its declaration names them. */
  supertypes(cls: TypeEntry): TypeEntry[] {
    const out: TypeEntry[] = [];
    const seen = new Set([cls.type.fqn]);
    for (let i = -1; i < out.length && out.length < 64; i++) {
      const t = i < 0 ? cls : (out[i] as TypeEntry);
      for (const s of [...t.type.extends, ...t.type.implements]) {
        const m = this.typeNamed(s, t);
        if (!('type' in m) || seen.has(m.type.type.fqn)) continue;
        seen.add(m.type.type.fqn);
        out.push(m.type);
      }
    }
    return out;
  }

  /** Methods of a type by name (every entry of its fqn: Go and C# spread a type over files), overloads narrowed by arity when one fits. */
  private methodsIn(t: TypeEntry, name: string, argc: number): MethodEntry[] {
    const entries = this.index.typesByFqn(t.type.fqn).filter((e) => e.file.language === t.file.language);
    let all = (entries.length ? entries : [t]).flatMap((e) => e.type.methods.filter((m) => m.kind === 'method' && m.name === name).map((method) => ({ owner: e, method })));
    // TypeScript overload signatures: the call runs the implementation.
    if (SCRIPT.has(t.file.language) && all.some((m) => m.method.hasBody) && all.some((m) => !m.method.hasBody)) all = all.filter((m) => m.method.hasBody);
    return this.byArity(all, argc);
  }

  private byArity(all: MethodEntry[], argc: number): MethodEntry[] {
    if (all.length < 2 || argc < 0) return all;
    const fit = all.filter((m) => m.method.params.length === argc || (m.method.varargs && argc >= m.method.params.length - 1));
    return fit.length ? fit : all;
  }

  private outer(t: TypeEntry): TypeEntry | undefined {
    if (!t.type.outer) return undefined;
    return t.file.types.filter((x) => x.qname === t.type.outer).map((type) => ({ ...t, type }))[0];
  }

  private superclass(t: TypeEntry): TypeEntry | undefined {
    const s = t.type.extends[0];
    if (!s) return undefined;
    const m = this.typeNamed(s, t);
    return 'type' in m ? m.type : undefined;
  }

  /** What an expression is. */
  private meaning(e: Expr, caller: MethodEntry): Meaning {
    const here = caller.owner;
    switch (e.k) {
      case 'this':
        return here.type.kind === 'module' ? { err: '`this` outside a class' } : { value: here };
      case 'super': {
        const s = this.superclass(here);
        return s ? { value: s } : { err: 'superclass not in the project' };
      }
      case 't':
      case 'new': {
        const t = this.typeNamed(e.t, here);
        return 'type' in t ? { value: t.type } : t;
      }
      case 'id':
        return this.name(e.n, here);
      case 'get': {
        const chain = dottedChain(e);
        if (chain && here.file.language === 'python' && here.file.imports.some((i) => i.onDemand && !i.alias && i.name === chain)) return this.name(chain, here);
        const o = this.meaning(e.o, caller);
        if ('value' in o) return this.field(o.value, e.n);
        if ('type' in o) {
          const nested = this.index.typesByFqn(`${o.type.type.fqn}.${e.n}`)[0];
          return nested ? { type: nested } : this.field(o.type, e.n);
        }
        if ('module' in o) {
          const hit = this.modules.inFile(o.file, e.n);
          if (hit && 'cls' in hit) return { type: hit.cls };
          const sub = this.modules.subModule(o.file, e.n, here.file.language);
          return sub ?? { err: `${e.n} not found in ${o.file}` };
        }
        return o;
      }
      case 'idx':
      case 'call': {
        // An element of a declared array or map: `steps[0]`, `providers.get(key)`.
        const element = this.elementOf(e, caller);
        if (element) return element;
        if (e.k === 'idx') return { err: 'receiver type unknown (subscript expression)' };
        const site: CallSite = { line: 0, kind: 'call', name: e.n, argc: e.a, ...(e.o ? { recv: e.o } : {}) };
        const r = this.resolve(site, caller);
        if (r.owner && !r.targets.length && r.owner !== 'builtins') {
          const t = this.index.typesByFqn(r.owner)[0];
          return t ? { value: t } : { err: 'call result' };
        }
        const ctor = r.targets.every((t) => t.method.kind === 'constructor') && r.owner ? this.index.typesByFqn(r.owner)[0] : undefined;
        if (ctor && r.targets.length) return { value: ctor };
        const rets = new Set(r.targets.map((t) => t.method.returnType ?? ''));
        const only = r.targets[0];
        if (rets.size !== 1 || !only || !only.method.returnType) return { err: r.reason ?? 'type of the call result unknown' };
        const t = this.typeNamed(only.method.returnType.replace(/^Promise<(.*)>$/, '$1'), only.owner);
        return 'type' in t ? { value: t.type } : { err: 'type of the call result unknown' };
      }
      default:
        return { err: e.k === '?' ? `receiver type unknown (${e.why ?? 'expression'})` : 'receiver type unknown' };
    }
  }

  /** The element an index or a lookup call gives on a value of a declared container type; undefined when it is not one. */
  private elementOf(e: Expr & { k: 'idx' | 'call' }, caller: MethodEntry): Meaning | undefined {
    if (!e.o || !SCRIPT.has(caller.owner.file.language)) return undefined;
    const declared = this.declaredType(e.o, caller);
    const element = declared && elementType(declared.text, e.k === 'idx' ? '[]' : e.n);
    if (!declared || !element) return undefined;
    const t = this.typeNamed(element, declared.at);
    return 'type' in t ? { value: t.type } : t;
  }

  /** The type text written for a value: a local's or parameter's, a field's, a module variable's. */
  private declaredType(e: Expr, caller: MethodEntry): { text: string; at: TypeEntry } | undefined {
    if (e.k === 't') return { text: e.t, at: caller.owner };
    if (e.k === 'id') {
      const v = this.modules.variable(caller.owner, e.n);
      return v && { text: v.field.type, at: v.at };
    }
    if (e.k !== 'get') return undefined;
    const o = this.meaning(e.o, caller);
    const cls = 'value' in o ? o.value : 'type' in o && o.type.type.namespace ? o.type : undefined;
    for (const entry of cls ? this.index.typesByFqn(cls.type.fqn) : []) {
      const f = entry.type.fields.find((x) => x.name === e.n);
      if (f?.type) return { text: f.type, at: entry };
    }
    return undefined;
  }

  /** A field's declared type, as an instance of a class in the project. */
  private field(cls: TypeEntry, n: string): Meaning {
    for (const e of this.index.typesByFqn(cls.type.fqn)) {
      const f = e.type.fields.find((x) => x.name === n) ?? e.type.components.find((x) => x.name === n);
      if (!f) continue;
      if (!f.type) return { err: `field ${n} has no declared type` };
      const t = this.typeNamed(f.type, e);
      return 'type' in t ? { value: t.type } : t;
    }
    return { err: `field ${n} of ${cls.type.name} not found` };
  }

  /** An unbound name: a field (implicit `this`), a class or function of the file, an import, a package's type. */
  private name(n: string, here: TypeEntry): Meaning {
    const lang = here.file.language;
    // A variable of the file or of the namespace around, declared with its type or created by `new`.
    const v = SCRIPT.has(lang) ? this.modules.variable(here, n) : undefined;
    if (v) {
      const t = this.typeNamed(v.field.type, v.at);
      return 'type' in t ? { value: t.type } : t;
    }
    if (IMPLICIT_THIS.has(lang) && here.type.kind !== 'module' && here.type.fields.some((f) => f.name === n)) return this.field(here, n);
    const local = this.modules.inFile(here.path, n, here);
    if (local && 'cls' in local) return { type: local.cls };
    if (local) return { err: `${n} is a function` };
    const imp = this.modules.imported(n, here);
    if (imp) return 'fn' in imp ? { err: `${n} is a function` } : imp;
    const t = this.typeNamed(n, here);
    if ('type' in t) return t;
    return { err: `${n}: not declared in the project (its type is unknown)` };
  }

  /**
   * A type named in source (`Foo`, `pkg.Foo`, `List<Foo>` → Foo) as seen from `here`: nested in
   * the class, in the same file, imported, in the same package / namespace (C#: and enclosing
   * ones, and `using` namespaces; Kotlin: imports and star imports; Go: the package folder).
   * Exactly one hit, or why not.
   */
  typeNamed(written: string, here: TypeEntry): Meaning {
    // `T | undefined` (an optional value) calls T's methods.
    const text = withoutNullish(written);
    // An array or a library collection of project types is not one of them: `lines.reduce(…)` on
    // `CartLine[]` calls Array's reduce, not a method of CartLine.
    const collection = collectionType(text);
    if (collection) return { outside: collection };
    const name = raw(text);
    if (!name) return { err: 'no type' };
    const lang = here.file.language;
    const dot = name.lastIndexOf('.');
    if (dot > 0) {
      const head = this.typeNamed(name.slice(0, dot), here);
      const head2 = 'type' in head ? head : this.name(name.slice(0, dot), here);
      const last = name.slice(dot + 1);
      if ('type' in head2) {
        const nested = this.index.typesByFqn(`${head2.type.type.fqn}.${last}`)[0];
        if (nested) return { type: nested };
      }
      if ('module' in head2) {
        const hit = this.modules.inFile(head2.file, last);
        if (hit && 'cls' in hit) return { type: hit.cls };
        const pkgHit = lang === 'go' ? this.modules.inPackage(this.modules.entryIn(head2.file), last) : undefined;
        if (pkgHit && 'cls' in pkgHit) return { type: pkgHit.cls };
      }
      const exact = this.index.typesByFqn(name);
      if (exact.length === 1) return { type: exact[0] as TypeEntry };
      return 'outside' in head2 ? head2 : { err: `type ${name} not found in the project` };
    }
    const local = this.modules.inFile(here.path, name, here);
    if (local && 'cls' in local) return { type: local.cls };
    const imp = this.modules.imported(name, here);
    if (imp && 'type' in imp) return imp;
    if (imp && 'outside' in imp) return imp;
    const candidates: TypeEntry[] = [];
    const add = (pkg: string) => {
      for (const e of this.index.packageTypes(pkg)?.get(name) ?? []) if (!candidates.some((c) => c.type.fqn === e.type.fqn)) candidates.push(e);
    };
    if (lang === 'go') {
      const hit = this.modules.inPackage(here, name);
      return hit && 'cls' in hit ? { type: hit.cls } : { err: `type ${name} not found in package ${here.file.package}` };
    }
    if (lang === 'csharp' || lang === 'kotlin' || lang === 'java') {
      // Enclosing namespaces, innermost first; then using / imports.
      const parts = here.file.package.split('.');
      for (let i = parts.length; i >= 0 && !candidates.length; i--) add(parts.slice(0, i).join('.'));
      if (!candidates.length) {
        for (const i of here.file.imports) {
          if (i.alias === name) {
            const t = this.index.typesByFqn(i.name);
            if (t.length === 1) return { type: t[0] as TypeEntry };
            return { outside: i.name };
          }
          if (!i.onDemand && i.name.endsWith(`.${name}`)) {
            const t = this.index.typesByFqn(i.name);
            return t.length === 1 ? { type: t[0] as TypeEntry } : { outside: i.name };
          }
          if (i.onDemand) add(i.name);
        }
      }
    }
    if (candidates.length === 1) return { type: candidates[0] as TypeEntry };
    if (candidates.length > 1) return { err: `type ${name} is ambiguous (${candidates.map((c) => c.type.fqn).join(', ')})` };
    return { err: `type ${name} not found in the project` };
  }
}

/** `a.b.c` when the expression is only names and dots. */
function dottedChain(e: Expr): string | undefined {
  if (e.k === 'id') return e.n;
  if (e.k !== 'get') return undefined;
  const o = dottedChain(e.o);
  return o ? `${o}.${e.n}` : undefined;
}
