import * as path from 'node:path';
import type { CodeIndex, MethodEntry, TypeEntry } from './codeIndex';
import type { FileSymbols, LanguageId, MethodSymbol, VarSymbol } from '../model';

/**
 * The project's modules as `NameResolver` (nameResolver.ts) follows them: which project file an
 * import names (relative specifiers, Python dotted names, Go import paths), what a file or a Go
 * package declares at top level, and what an imported name leads to. An import that leads outside
 * the project is reported as such, never looked for.
 */

export type Lang = LanguageId | 'lsp';

/** What a name or expression stands for. */
export type Meaning =
  | { readonly value: TypeEntry } // an instance of a class in the project
  | { readonly type: TypeEntry } // the class itself (static calls, construction)
  | { readonly module: TypeEntry | undefined; readonly file: string } // a module / package of the project (its `module` type, if any)
  | { readonly outside: string } // something that is not in the project (a library)
  | { readonly err: string };

export const SCRIPT: ReadonlySet<Lang> = new Set(['typescript', 'tsx', 'javascript']);
const SCRIPT_EXTS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

export class ProjectModules {
  /** Files per folder, for Go packages and relative imports. */
  private readonly dirs = new Map<string, string[]>();
  private readonly moduleOf = new Map<string, TypeEntry | undefined>();
  /** Import specifier (with the importing folder) → project file. */
  private readonly modules = new Map<string, string | undefined>();

  constructor(readonly index: CodeIndex) {
    for (const rel of index.paths()) {
      const dir = path.posix.dirname(rel);
      const list = this.dirs.get(dir);
      if (list) list.push(rel);
      else this.dirs.set(dir, [rel]);
    }
  }

  /**
   * A top-level function or class of a file by name (`near`: nested classes of it come first); a
   * function declared inside another only where it is visible: from a call at `line` inside that other.
   */
  inFile(rel: string, name: string, near?: TypeEntry, line?: number): { fn: MethodEntry[] } | { cls: TypeEntry } | undefined {
    const file = this.index.fileSymbols(rel);
    if (!file) return undefined;
    // Inside a namespace, its own functions and those of the namespaces around it come first.
    const scopes = near?.path === rel && (near.type.kind !== 'module' || near.type.namespace) ? enclosing(near.type.qname) : [];
    for (const ns of scopes) {
      const fns = file.types.filter((x) => x.namespace && x.qname === ns).flatMap((type) => type.methods.filter((m) => m.kind === 'method' && m.name === name).map((method) => ({ owner: { path: rel, file, type }, method })));
      if (fns.length) return { fn: fns };
    }
    const mod = this.moduleType(rel, file);
    const fns = mod ? mod.type.methods.filter((m) => m.kind === 'method' && m.name === name).map((method) => ({ owner: mod, method })) : [];
    if (fns.length) return { fn: visibleAt(fns, file, line) };
    // A class or interface before a namespace of the same name: the namespace's functions are found through the shared fqn.
    for (const q of [...scopes.map((ns) => `${ns}.${name}`), name]) {
      const t = file.types.find((x) => x.qname === q && x.kind !== 'module') ?? file.types.find((x) => x.qname === q && x.namespace);
      if (t) return { cls: { path: rel, file, type: t } };
    }
    return undefined;
  }

  /** A variable of known type declared in `here`'s namespaces or at the top of its file, innermost first. */
  variable(here: TypeEntry, name: string): { field: VarSymbol; at: TypeEntry } | undefined {
    const file = here.file;
    const scopes = [...(here.type.kind !== 'module' || here.type.namespace ? enclosing(here.type.qname) : []).flatMap((ns) => file.types.filter((x) => x.namespace && x.qname === ns)), this.moduleType(here.path, file)?.type];
    for (const type of scopes) {
      const field = type?.fields.find((f) => f.name === name && f.type);
      if (type && field) return { field, at: { path: here.path, file, type } };
    }
    return undefined;
  }

  private moduleType(rel: string, file: FileSymbols): TypeEntry | undefined {
    if (!this.moduleOf.has(rel)) {
      const t = file.types.find((x) => x.kind === 'module' && !x.namespace);
      this.moduleOf.set(rel, t ? { path: rel, file, type: t } : undefined);
    }
    return this.moduleOf.get(rel);
  }

  /** Go: a function or type of the same package, in another file of the folder. */
  inPackage(here: TypeEntry, name: string): { fn: MethodEntry[] } | { cls: TypeEntry } | undefined {
    for (const rel of this.dirs.get(path.posix.dirname(here.path)) ?? []) {
      const f = this.index.fileSymbols(rel);
      if (rel === here.path || f?.language !== 'go' || f.package !== here.file.package || rel.endsWith('_test.go') !== here.path.endsWith('_test.go')) continue;
      const hit = this.inFile(rel, name);
      if (hit) return hit;
    }
    return undefined;
  }

  /** What an imported name leads to. */
  imported(n: string, here: TypeEntry): Meaning | { fn: MethodEntry[] } | undefined {
    const file = here.file;
    const lang = file.language;
    // C# `using` and Kotlin `import` name namespaces and types: `NameResolver.typeNamed` follows them.
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
  entryIn(rel: string): TypeEntry {
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
    if (exported.length === 1) return (exported[0] as { name: string }).name;
    // `export default Foo` of a namespace Foo (a type of the same name merged with it, or none).
    const named = f?.types.filter((t) => (t.kind !== 'module' || t.namespace) && !t.outer) ?? [];
    return new Set(named.map((t) => t.name)).size === 1 && named[0] ? named[0].name : 'default';
  }

  /** `pkg` + `mod` → the file of `pkg.mod` (Python packages). */
  subModule(rel: string, name: string, lang: Lang): Meaning | undefined {
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
      const hits = [...this.index.paths()].filter((rel) => rel === `${rest}.py` || rel.endsWith(`/${rest}.py`) || rel === `${rest}/__init__.py` || rel.endsWith(`/${rest}/__init__.py`));
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
}

/**
 * Of several functions of one name in a file, those a call at `line` sees: the one declared in the
 * innermost function around the call, else the top-level ones (with no line: the top-level ones).
 */
function visibleAt(fns: MethodEntry[], file: FileSymbols, line: number | undefined): MethodEntry[] {
  if (fns.length < 2) return fns;
  const all = file.types.flatMap((t) => t.methods.filter((m) => m.kind !== 'initializer'));
  const parentOf = (m: MethodSymbol): MethodSymbol | undefined =>
    all.filter((p) => p !== m && p.line <= m.line && m.endLine <= p.endLine && (p.line < m.line || m.endLine < p.endLine)).sort((a, b) => b.line - a.line)[0];
  const seen = fns.map((f) => ({ f, parent: parentOf(f.method) })).filter((x) => !x.parent || (line !== undefined && x.parent.line <= line && line <= x.parent.endLine));
  const innermost = Math.max(...seen.map((x) => x.parent?.line ?? 0));
  const out = seen.filter((x) => (x.parent?.line ?? 0) === innermost).map((x) => x.f);
  return out.length ? out : fns;
}

/** `A.B.C` → `A.B.C`, `A.B`, `A`: a name and the names it is nested in, innermost first. */
function enclosing(qname: string): string[] {
  const parts = qname.split('.');
  return parts.map((_, i) => parts.slice(0, parts.length - i).join('.'));
}

function lastSegment(name: string, lang: Lang): string {
  const segs = name.split(lang === 'go' ? '/' : '.').filter(Boolean);
  // Go: `example.com/x/v2` is package x; `gopkg.in/yaml.v3` is yaml.
  if (lang === 'go' && segs.length > 1 && /^v\d+$/.test(segs[segs.length - 1] as string)) segs.pop();
  const seg = segs.pop() ?? name;
  return lang === 'go' ? seg.replace(/\.v\d+$/, '').replace(/^go-/, '') : seg;
}
