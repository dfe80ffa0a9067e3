import type { CodeIndex, MethodEntry, TypeEntry } from './codeIndex';
import { isJdkStub } from '../java/jdkStubs';
import { arityFits } from '../java/javaTypes';
import { IN_LAMBDA, IN_NESTED_CLASS, type CallSite, type MethodSymbol } from '../model';
import { NameResolver } from './nameResolver';
import { SCRIPT } from './projectModules';
import { JavaResolver, isAnonymous, type ResolvedCall } from '../java/resolver';
import { erasedSimple, splitTopLevel } from '../java/typeRef';
import { runWhole, type Sliced } from './slices';

/**
 * Who calls what, from the index: callees of a method (resolved targets and the calls that could
 * not be resolved), callers (a reverse lookup over call sites with the same name), and trees of
 * either to a depth, with cycles cut and marked. Resolutions are cached while the index's symbols stay the same (`symbolScoped`).
 */

export interface CallerRef {
  readonly caller: MethodEntry;
  readonly site: CallSite;
  /** The call names a method this one overrides: it reaches this one through dynamic dispatch. */
  readonly virtual: boolean;
}

export interface CallTreeNode {
  /** The method (declared in the project), or undefined for a call leaving the project. */
  readonly method?: MethodEntry;
  /** For a call without a declaration in the project: `owner.name`. */
  readonly external?: string;
  /** The owner is in the project but the member is implicit (default constructor, enum values(), record accessor). */
  readonly implicit?: boolean;
  /** `new T() { … }`: an anonymous subclass of T is created. */
  readonly anonymous?: boolean;
  /** Where the call is: for callees in the parent's file, for callers in this node's file. */
  readonly line?: number;
  /** The call as written (`list.add(…)`). */
  readonly call?: string;
  readonly virtual?: boolean;
  readonly cycle?: boolean;
  /** Already expanded elsewhere in the tree. */
  readonly repeated?: boolean;
  readonly children: CallTreeNode[];
  /** Calls of this method that could not be resolved (callee trees only). */
  readonly unresolved?: readonly ResolvedCall[];
}

export interface CallTree {
  readonly nodes: CallTreeNode[];
  /** Cut at MAX_TREE_NODES. */
  readonly truncated: boolean;
}

/** A call with the method's name and a fitting arity that could not be resolved. */
export interface PossibleCaller {
  readonly caller: MethodEntry;
  readonly site: CallSite;
  readonly reason: string;
}

export interface MethodQuery {
  /** Every match; empty when none. */
  readonly matches: MethodEntry[];
  /** Classes the class name matched (several when ambiguous). */
  readonly classes: TypeEntry[];
  /** Matches found in a supertype because the class itself does not declare the method. */
  readonly inherited: boolean;
  /** Asked without a class, the name is declared in this many files: too many to look at (`WITHOUT_CLASS_LIMITS`). */
  readonly declaredIn?: number;
}

/** Files a method asked for without its class may be looked for in (tests lower it). */
export const WITHOUT_CLASS_LIMITS = { files: 2000 };

export const MAX_TREE_NODES = 400;

/** `java.util.ArrayList.add(int, E)` → class, method, optional parameter types. */
export function parseMethodSpec(spec: string): { className: string; methodName: string; params?: string[] } {
  let s = spec.trim().replace(/::/g, '.').replace(/#/g, '.');
  let params: string[] | undefined;
  const paren = s.indexOf('(');
  if (paren >= 0) {
    const inner = s.slice(paren + 1, s.lastIndexOf(')') > paren ? s.lastIndexOf(')') : undefined).trim();
    params = inner ? splitParams(inner) : [];
    s = s.slice(0, paren).trim();
  }
  const dot = s.lastIndexOf('.');
  return { className: dot < 0 ? '' : s.slice(0, dot), methodName: dot < 0 ? s : s.slice(dot + 1), ...(params ? { params } : {}) };
}

function splitParams(text: string): string[] {
  const out = splitTopLevel(text);
  // `final int index` → `int`: drop modifiers and parameter names.
  return out.map((p) => p.replace(/^(final\s+)+/, '').replace(/^(.*[\w>\].])\s+[A-Za-z_$][\w$]*$/, '$1').trim());
}

/** Does a declaration's parameter list match what the agent wrote (simple or qualified names, generics ignored)? */
export function paramsMatch(m: MethodSymbol, wanted: readonly string[]): boolean {
  if (m.params.length !== wanted.length) return false;
  return m.params.every((p, i) => erasedSimple(p.type).replace('...', '[]') === erasedSimple(wanted[i] as string).replace('...', '[]'));
}

/** What the call graph caches: symbols, so made afresh whenever the index's may have changed (`CodeIndex.symbolScoped`). */
interface Caches {
  readonly resolver: JavaResolver;
  names?: NameResolver;
  readonly resolved: WeakMap<CallSite, ResolvedCall>;
  /** Callers per method: each is a scan of every call site with the method's name, repeated at every tree level otherwise. */
  readonly callers: WeakMap<MethodSymbol, CallerRef[]>;
}

/** What a graph read of the index's call sites: the names whose call sites it gathered, the files whose methods' calls it listed. */
export interface CallReads {
  readonly names: Set<string>;
  readonly files: Set<string>;
}

export class CallGraph {
  constructor(
    readonly index: CodeIndex,
    /** Noted as the graph reads call sites (intel/neededCallSites.ts: which files an answer needs parsed). */
    private readonly reads?: CallReads,
  ) {}

  private get caches(): Caches {
    return this.index.symbolScoped(this, () => ({ resolver: new JavaResolver(this.index), resolved: new WeakMap(), callers: new WeakMap() }));
  }

  get resolver(): JavaResolver {
    return this.caches.resolver;
  }

  /** Java's call sites go to the Java resolver, every other language's to the name resolver. */
  resolve(site: CallSite, caller: MethodEntry): ResolvedCall {
    const c = this.caches;
    let hit = c.resolved.get(site);
    if (!hit) {
      const byName = !isJava(caller.owner) ? (c.names ??= new NameResolver(this.index)) : undefined;
      c.resolved.set(site, (hit = byName ? byName.resolve(site, caller) : c.resolver.resolve(site, caller)));
    }
    return hit;
  }

  /** Methods (or constructors) a `Class.method(params)` spec names; inherited ones when the class does not declare it. */
  findMethods(spec: string): MethodQuery {
    const { className, methodName, params } = parseMethodSpec(spec);
    // Every part of each type found: a TypeScript namespace shares its fqn with a class or interface of the same name.
    const classes = className ? [...new Map(this.index.findTypes(className).flatMap((c) => this.index.typesByFqn(c.type.fqn)).map((e) => [e.type, e])).values()] : [];
    const pick = (owner: TypeEntry, name: string): MethodEntry[] => {
      const ctor = isConstructorName(name, owner);
      return owner.type.methods
        .filter((m) => (ctor ? m.kind === 'constructor' : m.kind === 'method' && m.name === name))
        .filter((m) => !params || paramsMatch(m, params))
        .map((method) => ({ owner, method }));
    };
    if (!className) {
      // A name declared all over a large project (`toString`) would unpack most of it for an
      // answer that can only be "several classes match": the caller is asked for the class.
      const found = this.index.typesDeclaring(methodName, WITHOUT_CLASS_LIMITS.files);
      if ('files' in found) return { matches: [], classes: [], inherited: false, declaredIn: found.files };
      return { matches: found.types.flatMap((t) => pick(t, methodName)), classes: [], inherited: false };
    }
    const direct = classes.flatMap((c) => pick(c, methodName));
    if (direct.length || !classes.length || !classes.every(isJava)) return { matches: direct, classes, inherited: false };
    const T = this.resolver.types;
    const inherited = classes.flatMap((c) =>
      T.methods(T.thisType(c), methodName, params ? params.length : -1).found
        .filter((f) => !isJdkStub(f.entry) && (!params || paramsMatch(f.method, params)))
        .map((f) => ({ owner: f.entry, method: f.method })),
    );
    return { matches: inherited, classes, inherited: inherited.length > 0 };
  }

  /** Every call in the method, resolved or not, in source order. */
  callees(m: MethodEntry): ResolvedCall[] {
    return runWhole(this.calleesSliced(m));
  }

  /** `callees`, pausing after each call it resolves: a method may hold thousands of costly calls. */
  *calleesSliced(m: MethodEntry): Sliced<ResolvedCall[]> {
    this.reads?.files.add(m.owner.path);
    const out: ResolvedCall[] = [];
    for (const site of this.index.callsOf(m)) {
      out.push(this.resolve(site, m));
      yield;
    }
    return out;
  }

  /** Call sites across the project that reach the method, directly or through a method it overrides. */
  callers(m: MethodEntry): CallerRef[] {
    return runWhole(this.callersSliced(m));
  }

  /** `callers`, pausing after each file and call site it reads (slices.ts). */
  *callersSliced(m: MethodEntry): Sliced<CallerRef[]> {
    const callers = this.caches.callers;
    const cached = callers.get(m.method);
    if (cached) return cached;
    const found = yield* this.scanCallers(m);
    callers.set(m.method, found);
    return found;
  }

  private *scanCallers(m: MethodEntry): Sliced<CallerRef[]> {
    const target = m.method;
    const keys = target.kind === 'constructor' ? [m.owner.type.name, '<this>', '<super>'] : [target.name];
    const overridden = target.kind === 'method' ? this.overriddenBy(m) : new Set<MethodSymbol>();
    const out: CallerRef[] = [];
    for (const key of keys) {
      this.reads?.names.add(key);
      for (const ref of yield* this.index.callSitesNamedSliced(key)) {
        if (ref.site.kind === 'ref' && target.kind === 'constructor' && ref.site.name !== 'new') continue;
        if (ref.site.argc >= 0 && isJava(m.owner) && !arityFits(target, ref.site.argc)) continue;
        const r = this.resolve(ref.site, ref.caller);
        if (r.targets.some((t) => t.method === target)) out.push({ ...ref, virtual: false });
        else if (r.targets.some((t) => overridden.has(t.method))) out.push({ ...ref, virtual: true });
        yield;
      }
    }
    return out;
  }

  /**
   * Call sites with the method's name and a fitting arity that could not be resolved: possible
   * callers. Pauses after each file and call site it reads (slices.ts).
   */
  *possibleCallersSliced(m: MethodEntry): Sliced<PossibleCaller[]> {
    if (m.method.kind !== 'method') return [];
    this.reads?.names.add(m.method.name);
    const out: PossibleCaller[] = [];
    for (const { caller, site } of yield* this.index.callSitesNamedSliced(m.method.name)) {
      if (site.kind !== 'call' || (isJava(m.owner) && !arityFits(m.method, site.argc))) continue;
      const r = this.resolve(site, caller);
      if (!r.owner) out.push({ caller, site, reason: r.reason ?? 'unresolved' });
      yield;
    }
    return out;
  }

  /** Declarations in supertypes that `m` overrides: same name, same erased parameter types (type variables match any). */
  private overriddenBy(m: MethodEntry): Set<MethodSymbol> {
    const T = this.resolver.types;
    const out = new Set<MethodSymbol>();
    if (SCRIPT.has(m.owner.file.language)) {
      // No overloads at run time: a method of the same name in a supertype is the one it overrides.
      for (const s of (this.caches.names ??= new NameResolver(this.index)).supertypes(m.owner)) {
        for (const x of s.type.methods) if (x.kind === 'method' && x.name === m.method.name && !x.modifiers.includes('private')) out.add(x);
      }
    }
    if (!isJava(m.owner)) return out;
    const mine = m.method.params.map((p) => erasedSimple(p.type));
    for (const t of T.hierarchy(T.thisType(m.owner)).types.slice(1)) {
      const e = T.entryOf(t.fqn);
      if (!e) continue;
      const vars = new Set(e.type.typeParams.map((p) => p.name));
      for (const x of e.type.methods) {
        if (x.kind !== 'method' || x.name !== m.method.name || x.params.length !== mine.length || x.modifiers.includes('private')) continue;
        const own = new Set([...vars, ...(x.typeParams ?? []).map((p) => p.name)]);
        const same = x.params.every((p, i) => {
          const s = erasedSimple(p.type);
          return s === mine[i] || own.has(s.replace(/\[\]/g, ''));
        });
        if (same) out.add(x);
      }
    }
    return out;
  }

  /** The callee or caller tree of `roots` to `depth` levels. */
  tree(roots: readonly MethodEntry[], direction: 'callers' | 'callees', depth: number): CallTree {
    return runWhole(this.treeSliced(roots, direction, depth));
  }

  /** `tree`, pausing after each method it expands and each file and call site it reads (slices.ts). */
  *treeSliced(roots: readonly MethodEntry[], direction: 'callers' | 'callees', depth: number): Sliced<CallTree> {
    let count = 0;
    let truncated = false;
    const expanded = new Set<MethodSymbol>();
    // generator functions cannot be arrows: the graph's lookups they use, bound here
    const callees = (m: MethodEntry): Sliced<ResolvedCall[]> => this.calleesSliced(m);
    const callers = (m: MethodEntry): Sliced<CallerRef[]> => this.callersSliced(m);
    const hasType = (fqn: string): boolean => this.index.hasType(fqn);
    function* expand(m: MethodEntry, level: number, path: Set<MethodSymbol>): Sliced<CallTreeNode[]> {
      if (level >= depth) return [];
      yield;
      const out: CallTreeNode[] = [];
      const nextPath = new Set(path).add(m.method);
      function* child(target: MethodEntry, extra: Omit<CallTreeNode, 'children' | 'method'>): Sliced<void> {
        if (count >= MAX_TREE_NODES) {
          truncated = true;
          return;
        }
        count++;
        if (nextPath.has(target.method)) out.push({ method: target, ...extra, cycle: true, children: [] });
        else if (expanded.has(target.method) && level + 1 < depth) out.push({ method: target, ...extra, repeated: true, children: [] });
        else {
          if (level + 1 < depth) expanded.add(target.method);
          const children = yield* expand(target, level + 1, nextPath);
          const unresolved = direction === 'callees' && level + 1 < depth ? (yield* callees(target)).filter((r) => !r.owner) : [];
          out.push({ method: target, ...extra, children, ...(unresolved.length ? { unresolved } : {}) });
        }
      }
      if (direction === 'callees') {
        for (const r of yield* callees(m)) {
          if (!r.owner) continue;
          const call = callText(r.site);
          if (!r.targets.length) {
            if (count++ >= MAX_TREE_NODES) truncated = true;
            else {
              const implicit = hasType(r.owner);
              const flags = isAnonymous(r.site) ? { anonymous: true } : implicit ? { implicit } : {};
              out.push({ external: `${r.owner}.${memberName(r.site)}`, ...flags, line: r.site.line, call, children: [] });
            }
          }
          for (const t of r.targets) yield* child(t, { line: r.site.line, call });
        }
      } else {
        for (const c of yield* callers(m)) yield* child(c.caller, { line: c.site.line, call: callText(c.site), ...(c.virtual ? { virtual: true } : {}) });
      }
      return out;
    }
    const nodes: CallTreeNode[] = [];
    for (const m of roots) {
      expanded.add(m.method);
      const unresolved = direction === 'callees' ? (yield* this.calleesSliced(m)).filter((r) => !r.owner) : [];
      nodes.push({ method: m, children: yield* expand(m, 0, new Set()), ...(unresolved.length ? { unresolved } : {}) });
    }
    return { nodes, truncated };
  }
}

/** Java's rules (javac's overloads, supertypes, arity) apply: the file is Java. */
const isJava = (e: TypeEntry): boolean => e.file.language === 'java';

/** Does a method name an agent wrote mean the class's constructors? (`new`, `<init>`, the class name, `constructor`, `__init__`, `init`) */
export function isConstructorName(name: string, owner: TypeEntry): boolean {
  return name === owner.type.name || name === '<init>' || name === 'new' || (owner.file.language !== 'java' && ['constructor', '__init__', 'init'].includes(name));
}

export function memberName(site: CallSite): string {
  return site.kind === 'call' || site.kind === 'ref' ? (site.name === 'new' ? '<init>' : site.name) : '<init>';
}

/** The call as written, arguments elided: `list.add(…)`, `new Foo(…)`, `super(…)`, `Foo::bar`. */
export function callText(site: CallSite): string {
  const args = site.argc > 0 ? '(…)' : '()';
  const marks = `${(site.flags ?? 0) & IN_LAMBDA ? ' [in lambda]' : ''}${(site.flags ?? 0) & IN_NESTED_CLASS ? ' [in anonymous/local class]' : ''}`;
  switch (site.kind) {
    case 'new':
      return `${site.text ? `${site.text}.` : ''}new ${site.name}${args}${isAnonymous(site) ? ' {…}' : ''}${marks}`;
    case 'this':
    case 'super':
      return `${site.kind}${args}${marks}`;
    case 'ref':
      return `${site.text ?? ''}::${site.name}${marks}`;
    default:
      return `${site.text ? `${site.text}.` : ''}${site.name}${args}${marks}`;
  }
}

