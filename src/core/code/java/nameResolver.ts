import * as path from 'node:path';
import type { CodeIndex, MethodEntry, TypeEntry } from '../index/codeIndex';
import type { CallSite, Expr, FileSymbols, LanguageId } from '../model';
import type { ResolvedCall } from './resolver';

/**
 * Call resolution for every language but Java, by following names, never by guessing: a call is
 * resolved only when its receiver is the member's own `this` / `self` / Go receiver (or `super`),
 * a name bound in the file (a class or function of the same module or package, an import that
 * leads to a file of the project), a local or parameter of a declared type or created by
 * `new` / a constructor call, or a field of such a declared type. Anything else (a value whose
 * type is not written down, a library, a global) is unresolved, with the reason.
 */

type Lang = LanguageId | 'lsp';

/** What a name or expression stands for. */
type Meaning =
  | { readonly value: TypeEntry } // an instance of a class in the project
  | { readonly type: TypeEntry } // the class itself (static calls, construction)
  | { readonly module: TypeEntry | undefined; readonly file: string } // a module / package of the project (its `module` type, if any)
  | { readonly outside: string } // something that is not in the project (a library)
  | { readonly err: string };

const SCRIPT: ReadonlySet<Lang> = new Set(['typescript', 'tsx', 'javascript']);
/** Languages where an unqualified `m()` in a class body may be the class's own method. */
const IMPLICIT_THIS: ReadonlySet<Lang> = new Set(['csharp', 'kotlin']);
/** Languages where calling a class constructs it (`Foo()`). */
const CALL_CONSTRUCTS: ReadonlySet<Lang> = new Set(['python', 'kotlin']);
const SCRIPT_EXTS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const PY_BUILTINS = new Set(
  ('abs all any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex delattr dict dir divmod ' +
    'enumerate eval exec filter float format frozenset getattr globals hasattr hash help hex id input int isinstance ' +
    'issubclass iter len list locals map max memoryview min next object oct open ord pow print property range repr ' +
    'reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip').split(' '),
);

const raw = (t: string): string => t.replace(/^[*&\s]+/, '').replace(/[<[(].*$/s, '').replace(/\?$/, '').trim();

export class NameResolver {
  /** Files per folder, for Go packages and relative imports. */
  private readonly dirs = new Map<string, string[]>();
  private readonly moduleOf = new Map<string, TypeEntry | undefined>();
  /** Import specifier (with the importing folder) → project file. */
  private readonly modules = new Map<string, string | undefined>();

  constructor(readonly index: CodeIndex) {
    for (const [rel] of index.allFiles()) {
      const dir = path.posix.dirname(rel);
      const list = this.dirs.get(dir);
      if (list) list.push(rel);
      else this.dirs.set(dir, [rel]);
    }
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
      const inModule = this.inFile(m.file, site.name) ?? (lang === 'go' ? this.inPackage(this.entryIn(m.file), site.name) : undefined);
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
    const local = this.inFile(here.path, site.name, here);
    if (local) {
      if ('cls' in local && !CALL_CONSTRUCTS.has(lang) && lang !== 'go') return { site, targets: [], reason: `${site.name} is a class` };
      return this.callNamed(site, local);
    }
    const imported = this.imported(site.name, here);
    if (imported) {
      if ('value' in imported || 'type' in imported) return this.construct(site, 'value' in imported ? imported.value : imported.type);
      if ('fn' in imported) return { site, owner: (imported.fn[0] as MethodEntry).owner.type.fqn, targets: imported.fn };
      return this.unresolved(site, imported, site.name);
    }
    if (lang === 'go') {
      const inPackage = this.inPackage(here, site.name);
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

  /** A top-level function or class of a file by name (`near`: nested classes of it come first). */
  private inFile(rel: string, name: string, near?: TypeEntry): { fn: MethodEntry[] } | { cls: TypeEntry } | undefined {
    const file = this.index.fileSymbols(rel);
    if (!file) return undefined;
    const mod = this.moduleType(rel, file);
    const fns = mod ? mod.type.methods.filter((m) => m.kind === 'method' && m.name === name).map((method) => ({ owner: mod, method })) : [];
    if (fns.length) return { fn: fns };
    const qn = near && near.type.kind !== 'module' ? [`${near.type.qname}.${name}`, name] : [name];
    for (const q of qn) {
      const t = file.types.find((x) => x.qname === q && x.kind !== 'module');
      if (t) return { cls: { path: rel, file, type: t } };
    }
    return undefined;
  }

  private moduleType(rel: string, file: FileSymbols): TypeEntry | undefined {
    if (!this.moduleOf.has(rel)) {
      const t = file.types.find((x) => x.kind === 'module');
      this.moduleOf.set(rel, t ? { path: rel, file, type: t } : undefined);
    }
    return this.moduleOf.get(rel);
  }

  /** Go: a function or type of the same package, in another file of the folder. */
  private inPackage(here: TypeEntry, name: string): { fn: MethodEntry[] } | { cls: TypeEntry } | undefined {
    for (const rel of this.dirs.get(path.posix.dirname(here.path)) ?? []) {
      const f = this.index.fileSymbols(rel);
      if (rel === here.path || f?.language !== 'go' || f.package !== here.file.package || rel.endsWith('_test.go') !== here.path.endsWith('_test.go')) continue;
      const hit = this.inFile(rel, name);
      if (hit) return hit;
    }
    return undefined;
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
          const hit = this.inFile(o.file, e.n);
          if (hit && 'cls' in hit) return { type: hit.cls };
          const sub = this.subModule(o.file, e.n, here.file.language);
          return sub ?? { err: `${e.n} not found in ${o.file}` };
        }
        return o;
      }
      case 'call': {
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
    if (IMPLICIT_THIS.has(lang) && here.type.kind !== 'module' && here.type.fields.some((f) => f.name === n)) return this.field(here, n);
    const local = this.inFile(here.path, n, here);
    if (local && 'cls' in local) return { type: local.cls };
    if (local) return { err: `${n} is a function` };
    const imp = this.imported(n, here);
    if (imp) return 'fn' in imp ? { err: `${n} is a function` } : imp;
    const t = this.typeNamed(n, here);
    if ('type' in t) return t;
    return { err: `${n}: not declared in the project (its type is unknown)` };
  }

  /** What an imported name leads to. */
  private imported(n: string, here: TypeEntry): Meaning | { fn: MethodEntry[] } | undefined {
    const file = here.file;
    const lang = file.language;
    // C# `using` and Kotlin `import` name namespaces and types: `typeNamed` follows them.
    if (!SCRIPT.has(lang) && lang !== 'python' && lang !== 'go') return undefined;
    const dotted = lang === 'python' ? file.imports.find((i) => i.onDemand && !i.alias && i.name === n) : undefined;
    if (dotted) {
      const f = this.moduleFile(n, here.path, lang);
      return f ? { module: this.moduleTypeOf(f), file: f } : { outside: `module ${n}` };
    }
    for (const imp of file.imports) {
      const local = imp.alias ?? (imp.member && imp.member !== '*' ? imp.member : lastSegment(imp.name, lang));
      if (local !== n && !(lang === 'python' && imp.onDemand && !imp.alias && imp.name.split('.')[0] === n)) continue;
      if (lang === 'python' && imp.onDemand && !imp.alias && imp.name.split('.')[0] === n && imp.name !== n) {
        // `import a.b` binds `a`: the package.
        const pkg = this.moduleFile(n, here.path, lang);
        return pkg ? { module: this.moduleTypeOf(pkg), file: pkg } : { outside: `module ${n}` };
      }
      const target = this.moduleFile(imp.name, here.path, lang);
      if (!target) return { outside: lang === 'go' ? `package ${imp.name}` : `module ${imp.name}` };
      if (imp.onDemand || !imp.member) return { module: this.moduleTypeOf(target), file: target };
      const hit = this.inFile(target, imp.member === 'default' ? this.defaultExport(target) : imp.member);
      if (!hit) {
        const sub = lang === 'python' ? this.subModule(target, imp.member, lang) : undefined;
        return sub ?? { err: `${imp.member} not found in ${target}` };
      }
      return 'cls' in hit ? { type: hit.cls } : hit;
    }
    // C#/Kotlin/Go name types through using / import; Python `from m import *`.
    return undefined;
  }

  /** A stand-in entry for a file (to search its package). */
  private entryIn(rel: string): TypeEntry {
    const file = this.index.fileSymbols(rel) as FileSymbols;
    return { path: rel, file, type: file.types[0] ?? { kind: 'module', name: '', qname: '', fqn: '', modifiers: [], annotations: [], typeParams: [], extends: [], implements: [], line: 1, endLine: 1, signature: '', fields: [], methods: [], enumConstants: [], components: [] } };
  }

  private moduleTypeOf(rel: string): TypeEntry | undefined {
    const f = this.index.fileSymbols(rel);
    return f ? this.moduleType(rel, f) : undefined;
  }

  /** The name a default export has: the file's only class, or its function named `default`. */
  private defaultExport(rel: string): string {
    const f = this.index.fileSymbols(rel);
    const exported = f?.types.filter((t) => t.kind !== 'module' && !t.outer) ?? [];
    return exported.length === 1 ? (exported[0] as { name: string }).name : 'default';
  }

  /** `pkg` + `mod` → the file of `pkg.mod` (Python packages). */
  private subModule(rel: string, name: string, lang: Lang): Meaning | undefined {
    const base = rel.replace(/\/__init__\.pyi?$/, '').replace(/\.pyi?$/, '');
    for (const c of [`${base}/${name}.py`, `${base}/${name}/__init__.py`]) {
      if (lang === 'python' && this.index.fileSymbols(c)) return { module: this.moduleTypeOf(c), file: c };
    }
    return undefined;
  }

  /**
   * The project file (or, for Go, a file of the package folder) an import names: relative
   * specifiers from the importing file; Python dotted names by their path's end; Go import paths
   * by the folder they end with. Undefined when it is not in the project (or is ambiguous).
   */
  private moduleFile(spec: string, from: string, lang: Lang): string | undefined {
    const key = `${lang}\0${path.posix.dirname(from)}\0${spec}`;
    if (!this.modules.has(key)) this.modules.set(key, this.findModuleFile(spec, from, lang));
    return this.modules.get(key);
  }

  private findModuleFile(spec: string, from: string, lang: Lang): string | undefined {
    const has = (rel: string) => !!this.index.fileSymbols(rel);
    if (SCRIPT.has(lang)) {
      if (!spec.startsWith('.')) return undefined;
      const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
      const stem = base.replace(/\.(m|c)?js$/, '');
      const candidates = [base, ...SCRIPT_EXTS.map((e) => `${stem}${e}`), ...SCRIPT_EXTS.map((e) => `${base}/index${e}`)];
      return candidates.find(has);
    }
    if (lang === 'python') {
      let dots = /^\.*/.exec(spec)?.[0].length ?? 0;
      const rest = spec.slice(dots).split('.').filter(Boolean).join('/');
      if (dots) {
        let dir = path.posix.dirname(from);
        while (--dots > 0) dir = path.posix.dirname(dir);
        const base = dir === '.' ? rest : rest ? `${dir}/${rest}` : dir;
        return [`${base}.py`, `${base}/__init__.py`, `${base}.pyi`].find(has);
      }
      const hits = [...this.index.allFiles()].map(([rel]) => rel).filter((rel) => rel === `${rest}.py` || rel.endsWith(`/${rest}.py`) || rel === `${rest}/__init__.py` || rel.endsWith(`/${rest}/__init__.py`));
      return hits.length === 1 ? hits[0] : undefined;
    }
    if (lang === 'go') {
      // The standard library: no dot in the first element (`fmt`, `net/http`).
      const segs = spec.split('/');
      if (!segs[0]?.includes('.')) return undefined;
      // The folder whose path ends with the most of the import path's last elements (the module
      // path before them is not in the sources), when exactly one does.
      let best: string[] = [];
      let bestLen = 0;
      for (const d of this.dirs.keys()) {
        const ds = d === '.' ? [] : d.split('/');
        let k = 0;
        while (k < ds.length && k < segs.length && ds[ds.length - 1 - k] === segs[segs.length - 1 - k]) k++;
        if (k && k > bestLen) [best, bestLen] = [[d], k];
        else if (k && k === bestLen) best.push(d);
      }
      const dir = best.length === 1 ? best[0] : undefined;
      return dir ? (this.dirs.get(dir) ?? []).find((rel) => rel.endsWith('.go') && !rel.endsWith('_test.go')) : undefined;
    }
    return undefined;
  }

  /**
   * A type named in source (`Foo`, `pkg.Foo`, `List<Foo>` → Foo) as seen from `here`: nested in
   * the class, in the same file, imported, in the same package / namespace (C#: and enclosing
   * ones, and `using` namespaces; Kotlin: imports and star imports; Go: the package folder).
   * Exactly one hit, or why not.
   */
  typeNamed(text: string, here: TypeEntry): Meaning {
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
        const hit = this.inFile(head2.file, last);
        if (hit && 'cls' in hit) return { type: hit.cls };
        const pkgHit = lang === 'go' ? this.inPackage(this.entryIn(head2.file), last) : undefined;
        if (pkgHit && 'cls' in pkgHit) return { type: pkgHit.cls };
      }
      const exact = this.index.typesByFqn(name);
      if (exact.length === 1) return { type: exact[0] as TypeEntry };
      return 'outside' in head2 ? head2 : { err: `type ${name} not found in the project` };
    }
    const local = this.inFile(here.path, name, here);
    if (local && 'cls' in local) return { type: local.cls };
    const imp = this.imported(name, here);
    if (imp && 'type' in imp) return imp;
    if (imp && 'outside' in imp) return imp;
    const candidates: TypeEntry[] = [];
    const add = (pkg: string) => {
      for (const e of this.index.packageTypes(pkg)?.get(name) ?? []) if (!candidates.some((c) => c.type.fqn === e.type.fqn)) candidates.push(e);
    };
    if (lang === 'go') {
      const hit = this.inPackage(here, name);
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

function lastSegment(name: string, lang: Lang): string {
  const segs = name.split(lang === 'go' ? '/' : '.').filter(Boolean);
  // Go: `example.com/x/v2` is package x; `gopkg.in/yaml.v3` is yaml.
  if (lang === 'go' && segs.length > 1 && /^v\d+$/.test(segs[segs.length - 1] as string)) segs.pop();
  const seg = segs.pop() ?? name;
  return lang === 'go' ? seg.replace(/\.v\d+$/, '').replace(/^go-/, '') : seg;
}

/** `a.b.c` when the expression is only names and dots. */
function dottedChain(e: Expr): string | undefined {
  if (e.k === 'id') return e.n;
  if (e.k !== 'get') return undefined;
  const o = dottedChain(e.o);
  return o ? `${o}.${e.n}` : undefined;
}
