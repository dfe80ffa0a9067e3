import type { CodeIndex, MethodEntry, TypeEntry } from '../index/codeIndex';
import { FINAL_OBJECT_METHODS, OBJECT, OBJECT_METHODS } from './javaLang';
import { isJdkStub } from './jdkStubs';
import { JavaTypes, looksLikeType, rkey, rtype, UNKNOWN, type FoundMethod, type RType, type Scope } from './javaTypes';
import { ANONYMOUS, IN_NESTED_CLASS, type CallSite, type Expr, type MethodSymbol } from '../model';
import { parseType, PRIMITIVES, rawName, type TypeRef } from './typeRef';

/**
 * Resolves call sites to what javac would compile them to: the qualifying type (javap's owner of
 * the invoke instruction) and the declarations in the project the call reaches. A receiver is typed
 * from locals and parameters (bound at extraction), fields, `this`/`super`, static types, imports
 * and static imports, and the return types of calls already resolved. What cannot be told from the
 * sources in hand is reported with a reason, never guessed.
 */

export interface ResolvedCall {
  readonly site: CallSite;
  /** Qualifying type, fully qualified with `.` for nesting (`java.util.Map.Entry`); undefined when unresolved. */
  readonly owner?: string;
  /** Declarations in the project the call reaches statically: fitting overloads, or constructors. */
  readonly targets: readonly MethodEntry[];
  /** Why the call is unresolved. */
  readonly reason?: string;
}

type Meaning = { readonly v: RType } | { readonly type: string } | { readonly pkg: string } | { readonly err: string };

interface Site {
  readonly t?: RType;
  readonly isStatic?: boolean;
  /** An unqualified call found in an enclosing class, not the class the call is in. */
  readonly outer?: boolean;
  readonly err?: string;
}

const err = (why: string): { err: string } => ({ err: why });

export class JavaResolver {
  readonly types: JavaTypes;

  constructor(readonly index: CodeIndex) {
    this.types = new JavaTypes(index);
  }

  resolve(site: CallSite, caller: MethodEntry): ResolvedCall {
    const scope: Scope = { entry: caller.owner, method: caller.method };
    const nested = ((site.flags ?? 0) & IN_NESTED_CLASS) !== 0;
    const T = this.types;
    const ctorTargets = (fqn: string, argc: number): ResolvedCall => {
      const { entry, found } = T.constructors(fqn, argc);
      if (!entry || isJdkStub(entry)) return { site, owner: fqn, targets: [] };
      let ctors = found.map((method) => ({ entry, method }));
      if (ctors.length > 1 && site.g) ctors = this.byArgumentTypes(ctors, site.g, scope, nested);
      return { site, owner: fqn, targets: ctors.map((c) => ({ owner: entry, method: c.method })) };
    };
    switch (site.kind) {
      case 'new': {
        let fqn: string | undefined;
        if (site.recv) {
          const m = this.typeOf(site.recv, scope, nested);
          if (!('v' in m)) return { site, targets: [], reason: 'err' in m ? m.err : 'qualifier is not a value' };
          fqn = T.memberType(m.v.fqn, rawName(site.name));
        } else fqn = T.resolveText(site.name, scope)?.fqn;
        if (!fqn) return { site, targets: [], reason: `type ${rawName(site.name)} not found` };
        return ctorTargets(fqn, site.argc);
      }
      case 'this':
        if (nested) return { site, targets: [], reason: 'inside an anonymous or local class' };
        return ctorTargets(scope.entry.type.fqn, site.argc);
      case 'super': {
        if (nested) return { site, targets: [], reason: 'inside an anonymous or local class' };
        const sup = T.superclass(scope.entry);
        return sup ? ctorTargets(sup.fqn, site.argc) : { site, targets: [], reason: 'superclass not found' };
      }
      default:
        return this.resolveMethodCall(site, scope, nested);
    }
  }

  private resolveMethodCall(site: CallSite, scope: Scope, nested: boolean): ResolvedCall {
    if (site.kind === 'ref' && site.name === 'new') {
      const m = site.recv ? this.typeOf(site.recv, scope, nested) : err('no type');
      if ('type' in m) {
        const { entry, found } = this.types.constructors(m.type, -1);
        return { site, owner: m.type, targets: entry && !isJdkStub(entry) ? found.map((method) => ({ owner: entry, method })) : [] };
      }
      return { site, targets: [], reason: 'err' in m ? m.err : 'not a class' };
    }
    const s = this.siteOf(site.recv, site.name, scope, nested);
    if (!s.t) return { site, targets: [], reason: s.err ?? 'receiver type unknown' };
    const { owner, found, reason } = this.lookup(s.t, site.name, site.argc);
    if (!owner) return { site, targets: [], reason: reason ?? 'not found' };
    const chosen = found.length > 1 && site.g ? this.byArgumentTypes(found, site.g, scope, nested) : found;
    // A JDK stub is no declaration in the project: the call leaves it (owner only).
    const targets = chosen.filter((f) => !isJdkStub(f.entry)).map((f) => ({ owner: f.entry, method: f.method }));
    // javac qualifies a static method reached through an enclosing class by its declaring class.
    const declaring = new Set(found.map((f) => f.entry.type.fqn));
    if (s.outer && found.length && found.every((f) => f.method.modifiers.includes('static')) && declaring.size === 1) {
      return { site, owner: [...declaring][0] as string, targets };
    }
    return { site, owner, targets };
  }

  /** javac's qualifying type for `t.name(argc args)`, and the declarations found. */
  private lookup(t: RType, name: string, argc: number): { owner?: string; found: FoundMethod[]; reason?: string } {
    if (t.fqn === '?') return { found: [], reason: 'receiver type unknown' };
    if (t.dims > 0) return { owner: name === 'clone' ? `${t.fqn}${'[]'.repeat(t.dims)}` : OBJECT, found: [] };
    if (PRIMITIVES.has(t.fqn)) return { found: [], reason: `${t.fqn} is a primitive type` };
    const r = this.types.methods(t, name, argc);
    if (r.viaObject) return { owner: OBJECT, found: r.found };
    if (r.found.length) return { owner: t.fqn, found: r.found };
    // Stubs list public and protected members of JDK 17: a member they lack may be newer or package-private.
    if (!r.complete || this.types.usesStubs(t)) return { owner: FINAL_OBJECT_METHODS.has(name) ? OBJECT : t.fqn, found: [] };
    const entry = this.types.entryOf(t.fqn);
    if (entry?.type.kind === 'enum' && ((name === 'values' && argc === 0) || (name === 'valueOf' && argc === 1))) {
      return { owner: t.fqn, found: [] };
    }
    if (entry?.type.components.some((c) => c.name === name) && argc === 0) return { owner: t.fqn, found: [] };
    return { found: [], reason: `no method ${name} taking ${argc} argument(s) in ${t.fqn}` };
  }

  /** The static type a call is made on. */
  private siteOf(recv: Expr | undefined, name: string, scope: Scope, nested: boolean): Site {
    const T = this.types;
    if (!recv) return this.unqualified(name, scope, nested);
    if (recv.k === 'qsuper') {
      const q = T.resolveText(recv.q, scope);
      const qe = q && T.entryOf(q.fqn);
      if (!q || !qe) return { err: `type ${recv.q} not found` };
      return qe.type.kind === 'interface' ? { t: q } : { t: T.superclass(qe), err: 'superclass not found' };
    }
    const m = this.typeOf(recv, scope, nested);
    if ('v' in m) return { t: m.v };
    if ('type' in m) return { t: rtype(m.type), isStatic: true };
    if ('pkg' in m) return { err: `${m.pkg} is neither a variable nor a type in the project` };
    return { err: m.err };
  }

  private unqualified(name: string, scope: Scope, nested: boolean): Site {
    if (nested) return { err: 'unqualified call inside an anonymous or local class' };
    const T = this.types;
    const chain = T.chain(scope.entry);
    for (let i = 0; i < chain.length; i++) {
      const t = T.thisType(chain[i] as TypeEntry);
      const has = T.hasMethodNamed(t, name);
      if (has === 'yes') return i > 0 ? { t, outer: true } : { t };
      if (has === 'maybe') {
        // Compilable code has the method somewhere: here, unless an enclosing class or a static import may have it.
        const elsewhere = chain.slice(i + 1).some((o) => T.hasMethodNamed(T.thisType(o), name) !== 'no') || this.staticImport(name, scope.entry);
        if (!elsewhere) return i > 0 ? { t, outer: true } : { t };
        return { err: `${name} may be inherited from a supertype outside the project` };
      }
    }
    const imp = this.staticImport(name, scope.entry);
    return imp ? { t: rtype(imp), isStatic: true } : { err: `no method ${name} in scope` };
  }

  /** The type a static import brings `name` from. */
  private staticImport(name: string, entry: TypeEntry): string | undefined {
    const imports = entry.file.imports.filter((i) => i.isStatic);
    const single = imports.filter((i) => !i.onDemand && i.name.endsWith(`.${name}`)).map((i) => i.name.slice(0, -name.length - 1));
    if (single.length === 1) return single[0];
    if (single.length > 1) {
      const having = single.filter((o) => this.types.hasMethodNamed(rtype(o), name) !== 'no');
      return having.length === 1 ? having[0] : undefined;
    }
    const found: string[] = [];
    const unknown: string[] = [];
    for (const i of imports.filter((x) => x.onDemand)) {
      const has = this.types.entryOf(i.name) ? this.types.hasMethodNamed(rtype(i.name), name) : 'maybe';
      if (has === 'yes') found.push(i.name);
      else if (has === 'maybe') unknown.push(i.name);
    }
    if (found.length === 1) return found[0];
    return !found.length && unknown.length === 1 ? unknown[0] : undefined;
  }

  /** What an expression denotes: a value of a type, a type, a package, or why it cannot be told. */
  typeOf(e: Expr, scope: Scope, nested: boolean): Meaning {
    const T = this.types;
    switch (e.k) {
      case 't': {
        const r = T.resolveText(e.t, scope);
        return r ? { v: r } : err(`type ${rawName(e.t)} not found`);
      }
      case 'fq':
        return { v: rtype(e.t) };
      case 'this':
        return nested ? err('`this` inside an anonymous or local class') : { v: T.thisType(scope.entry) };
      case 'super': {
        const s = nested ? undefined : T.superclass(scope.entry);
        return s ? { v: s } : err('superclass not found');
      }
      case 'qthis':
      case 'qsuper': {
        const r = T.resolveText(e.q, scope);
        return r ? { v: r } : err(`type ${e.q} not found`);
      }
      case 'id':
        return this.name(e.n, scope, nested);
      case 'get':
        return this.member(this.typeOf(e.o, scope, nested), e.n);
      case 'call':
        return this.callResult(e, scope, nested);
      case 'new': {
        const r = T.resolveText(e.t, scope);
        return r ? { v: r } : err(`type ${rawName(e.t)} not found`);
      }
      case 'idx': {
        const m = this.typeOf(e.o, scope, nested);
        if (!('v' in m)) return 'err' in m ? m : err('not an array');
        return m.v.dims > 0 ? { v: { ...m.v, dims: m.v.dims - 1 } } : err('not an array');
      }
      case 'elem':
        return this.element(this.typeOf(e.o, scope, nested));
      case 'cond': {
        const a = this.typeOf(e.a, scope, nested);
        const b = this.typeOf(e.b, scope, nested);
        if (e.a.k === 'null') return b;
        if (e.b.k === 'null') return a;
        if ('v' in a && 'v' in b && a.v.fqn === b.v.fqn && a.v.dims === b.v.dims) return a;
        return err('conditional expression of mixed types');
      }
      case 'la':
        return this.lambdaArgParam(e, scope, nested);
      case 'lt': {
        const fn = this.functionalType(parseType(e.t), scope);
        const p = fn && this.samParam(fn, e.n, e.i);
        return p && p !== 'no' ? { v: p } : err('lambda parameter type unknown');
      }
      case 'lub':
        return this.commonSuperclass(e.ts, scope);
      case 'null':
        return err('null');
      case 'num':
        return this.promoted(e, scope, nested);
      default:
        return err(e.why ?? 'expression type unknown');
    }
  }

  private name(n: string, scope: Scope, nested: boolean): Meaning {
    const T = this.types;
    const typeName = (): Meaning | undefined => {
      const fqn = T.simpleName(n, scope.entry);
      return fqn ? { type: fqn } : undefined;
    };
    if (nested) return typeName() ?? err(`${n} inside an anonymous or local class`);
    for (const t of T.chain(scope.entry)) {
      const f = T.fieldType(T.thisType(t), n);
      if (f === 'missing') continue;
      if (f !== 'unknown') return { v: f };
      // A field inherited from outside the project could obscure a type of that name (JLS 6.4.2);
      // a type that is named like one, or imported by name, is what the code means.
      const type = looksLikeType(n) || this.importedByName(n, scope.entry) ? typeName() : undefined;
      return type ?? err(`${n} may be a field inherited from a supertype outside the project`);
    }
    for (const imp of scope.entry.file.imports) {
      if (!imp.isStatic) continue;
      const owner = imp.onDemand ? imp.name : imp.name.endsWith(`.${n}`) ? imp.name.slice(0, -n.length - 1) : undefined;
      if (!owner) continue;
      const f = T.fieldType(rtype(owner), n);
      if (f !== 'missing' && f !== 'unknown') return { v: f };
      if (!imp.onDemand && f === 'unknown') return err(`type of static field ${imp.name} unknown (not in the project)`);
    }
    return typeName() ?? (/^[a-z]/.test(n) ? { pkg: n } : err(`${n} not found`));
  }

  /** Binary numeric promotion (JLS 5.6): `a - 1` is int, long if either side is long, and so on. */
  private promoted(e: Extract<Expr, { k: 'num' }>, scope: Scope, nested: boolean): Meaning {
    const UNBOX: Record<string, string> = {
      'java.lang.Integer': 'int', 'java.lang.Long': 'long', 'java.lang.Short': 'short', 'java.lang.Byte': 'byte',
      'java.lang.Character': 'char', 'java.lang.Float': 'float', 'java.lang.Double': 'double',
    };
    const kinds: string[] = [];
    for (const x of e.b ? [e.a, e.b] : [e.a]) {
      const m = this.typeOf(x, scope, nested);
      if (!('v' in m) || m.v.dims) return err('operand type unknown');
      const t = UNBOX[m.v.fqn] ?? m.v.fqn;
      if (!['int', 'long', 'short', 'byte', 'char', 'float', 'double'].includes(t)) return err('operand type unknown');
      kinds.push(t);
    }
    const t = ['double', 'float', 'long'].find((k) => kinds.includes(k)) ?? 'int';
    return { v: rtype(t) };
  }

  private importedByName(n: string, entry: TypeEntry): boolean {
    return entry.file.imports.some((i) => !i.isStatic && !i.onDemand && i.name.endsWith(`.${n}`));
  }

  private member(m: Meaning, n: string): Meaning {
    const T = this.types;
    if ('err' in m) return m;
    if ('v' in m) {
      const f = T.fieldType(m.v, n);
      return typeof f === 'string' ? err(`field ${n} of ${m.v.fqn} ${f === 'missing' ? 'not found' : 'unknown (outside the project)'}`) : { v: f };
    }
    if ('type' in m) {
      const f = T.fieldType(rtype(m.type), n);
      if (typeof f !== 'string') return { v: f };
      const member = T.memberType(m.type, n);
      if (member) return { type: member };
      if (f === 'unknown' && looksLikeType(n) && !T.entryOf(m.type)) return { type: `${m.type}.${n}` };
      return err(`${m.type}.${n} ${f === 'unknown' ? 'is outside the project' : 'not found'}`);
    }
    const full = `${m.pkg}.${n}`;
    if (T.index.typesByFqn(full).length || T.entryOf(full)) return { type: full };
    if (T.index.packageTypes(full)) return { pkg: full };
    return looksLikeType(n) ? { type: full } : { pkg: full };
  }

  private callResult(e: Extract<Expr, { k: 'call' }>, scope: Scope, nested: boolean): Meaning {
    const s = this.siteOf(e.o, e.n, scope, nested);
    if (!s.t) return err(s.err ?? 'receiver type unknown');
    const { owner, found, reason } = this.lookup(s.t, e.n, e.a);
    if (!owner) return err(reason ?? 'not found');
    if (!found.length) {
      const obj = OBJECT_METHODS.get(e.n)?.find(([n]) => n === e.a);
      if (owner === OBJECT && obj) return e.n === 'getClass' ? { v: rtype('java.lang.Class') } : { v: rtype(obj[1]) };
      const entry = this.types.entryOf(owner);
      if (entry?.type.kind === 'enum' && e.n === 'values') return { v: rtype(owner, 1) };
      if (entry?.type.kind === 'enum' && e.n === 'valueOf') return { v: rtype(owner) };
      const comp = entry?.type.components.find((c) => c.name === e.n);
      const ct = comp && this.types.resolveText(comp.type, { entry: entry as TypeEntry });
      if (ct) return { v: ct };
      return err(`return type of ${owner}.${e.n} unknown (outside the project)`);
    }
    const chosen = found.length > 1 && e.g ? this.byArgumentTypes(found, e.g, scope, nested) : found;
    const results = chosen.map((f) => this.inferred(f, e.g, scope, nested) ?? this.returnType(f));
    const first = results[0];
    if (!first || results.some((r) => !r || r.fqn !== first.fqn || r.dims !== first.dims)) {
      return err(results.some((r) => !r) ? `return type of ${owner}.${e.n} depends on inference` : `overloads of ${e.n} return different types`);
    }
    return { v: first };
  }

  /**
   * A multi-catch parameter's type as javac erases it (JLS 14.20): the nearest superclass all the
   * alternatives share. Unknown when a superclass chain leaves the project and the JDK table.
   */
  private commonSuperclass(texts: readonly string[], scope: Scope): Meaning {
    const T = this.types;
    const chains = texts.map((text) => {
      const chain: string[] = [];
      let t = T.resolveText(text, scope);
      while (t && chain.length < 50) {
        chain.push(t.fqn);
        if (t.fqn === OBJECT) return chain;
        const entry = T.entryOf(t.fqn);
        t = entry && T.superclass(entry);
      }
      return undefined;
    });
    if (chains.some((c) => !c)) return err('multi-catch parameter: a superclass is unknown');
    const [first, ...rest] = chains as string[][];
    const common = first?.find((fqn) => rest.every((c) => c.includes(fqn)));
    return common ? { v: rtype(common) } : err('multi-catch parameter');
  }

  /**
   * Parameter `e.i` of a lambda passed as argument `e.j` of a call: from the functional interface
   * the callee declares there, with the receiver's type arguments (and method type variables bound
   * by other arguments) substituted. All overloads that can take an `e.n`-parameter lambda there
   * must agree.
   */
  private lambdaArgParam(e: Extract<Expr, { k: 'la' }>, scope: Scope, nested: boolean): Meaning {
    const c = e.c;
    if (c.k !== 'call') return err('lambda parameter type unknown');
    const s = this.siteOf(c.o, c.n, scope, nested);
    if (!s.t) return err(s.err ?? 'receiver type unknown');
    const { found } = this.lookup(s.t, c.n, c.a);
    const chosen = found.length > 1 && c.g ? this.byArgumentTypes(found, c.g, scope, nested) : found;
    let result: RType | undefined;
    for (const f of chosen) {
      const m = f.method;
      const param = m.params[e.j];
      if (!param || (m.varargs && e.j >= m.params.length - 1)) return err('lambda passed as a variable argument');
      const bindings = new Map([...(f.bindings ?? []), ...this.methodBindings(f, c.g, scope, nested)]);
      const fn = this.functionalType(parseType(param.type), { entry: f.entry, method: m, bindings }, m);
      const p = fn ? this.samParam(fn, e.n, e.i) : undefined;
      if (p === 'no') continue;
      if (!p || (result && rkey(result) !== rkey(p))) return err('lambda parameter type unknown');
      result = p;
    }
    return result ? { v: result } : err('lambda parameter type unknown');
  }

  /**
   * A functional interface type as a lambda sees it (JLS 9.9): `Function<? super T, ? extends R>`
   * gives `Function<T, R>`; an unbounded wildcard or an unknown type variable stays unknown.
   */
  private functionalType(ref: TypeRef, scope: Scope, unknownVarsOf?: MethodSymbol): RType | undefined {
    if (ref.wildcard || ref.dims) return undefined;
    const head = this.types.resolveRef({ ...ref, args: [] }, scope, unknownVarsOf);
    if (!head || head.dims || PRIMITIVES.has(head.fqn)) return undefined;
    const args = ref.args.map((a) => {
      const t = a.wildcard === 'any' ? undefined : this.types.resolveRef(a.wildcard ? (a.args[0] as TypeRef) : a, scope, unknownVarsOf);
      return t ?? UNKNOWN;
    });
    return { ...head, args };
  }

  /**
   * Type of parameter `i` of the single abstract method of `fn`; 'no' when `fn` is surely not a
   * functional interface taking `n` parameters; undefined when that cannot be told.
   */
  private samParam(fn: RType, n: number, i: number): RType | 'no' | undefined {
    const T = this.types;
    const entry = T.entryOf(fn.fqn);
    if (!entry) return undefined;
    if (entry.type.kind !== 'interface') return 'no';
    const h = T.hierarchy(fn);
    if (!h.complete) return undefined;
    const abstract = new Map<string, { method: MethodSymbol; scope: Scope }>();
    for (const ht of h.types) {
      const scope = T.scopeOf(ht);
      if (!scope) return undefined;
      // A raw or unresolved parameterization would erase the types: not what the lambda gets.
      if (scope.entry.type.typeParams.length && !scope.bindings) return undefined;
      for (const m of scope.entry.type.methods) {
        if (m.kind !== 'method' || m.hasBody || m.modifiers.includes('static') || m.modifiers.includes('default')) continue;
        const key = `${m.name}/${m.params.length}`;
        if (OBJECT_METHODS.get(m.name)?.some(([argc]) => argc === m.params.length)) continue;
        if (!abstract.has(key)) abstract.set(key, { method: m, scope });
      }
    }
    if (abstract.size !== 1) return abstract.size ? 'no' : undefined;
    const sam = [...abstract.values()][0] as { method: MethodSymbol; scope: Scope };
    if (sam.method.params.length !== n || sam.method.typeParams?.length) return 'no';
    const p = sam.method.params[i];
    const t = p && T.resolveText(p.type, { ...sam.scope, method: sam.method });
    return t && t.fqn !== '?' ? t : undefined;
  }

  /**
   * Type variables of a generic method bound by its arguments where that is plain: a parameter
   * declared `T`, `T[]` or `T...` given an argument of known type, or `X<T>` given an argument
   * whose type has `X<A>` among its supertypes. A variable bound two ways is left out.
   */
  private methodBindings(f: FoundMethod, args: readonly Expr[] | undefined, scope: Scope, nested: boolean): Map<string, RType> {
    const out = new Map<string, RType>();
    const m = f.method;
    const vars = new Set((m.typeParams ?? []).map((p) => p.name));
    if (!vars.size || !args) return out;
    const bad = new Set<string>();
    const bind = (name: string, t: RType): void => {
      const had = out.get(name);
      if (had && rkey(had) !== rkey(t)) bad.add(name);
      else out.set(name, t);
    };
    args.forEach((a, k) => {
      const last = m.params.length - 1;
      const param = m.params[Math.min(k, last)];
      if (!param || a.k === '?' || a.k === 'null' || a.k === 'la' || a.k === 'lt') return;
      let ref = parseType(param.type);
      // A variable argument given element by element: the element type.
      if (m.varargs && k >= last && !(args.length === m.params.length && k === last && this.isArray(a, scope, nested))) ref = { ...ref, dims: ref.dims - 1 };
      const at = this.typeOf(a, scope, nested);
      if (!('v' in at) || at.v.fqn === '?' || PRIMITIVES.has(at.v.fqn)) return;
      if (vars.has(ref.name) && !ref.args.length) {
        if (at.v.dims >= ref.dims) bind(ref.name, { ...at.v, dims: at.v.dims - ref.dims });
        return;
      }
      if (ref.dims || at.v.dims || !ref.args.some((x) => vars.has(x.name) && !x.args.length && !x.dims)) return;
      const head = this.types.resolveRef({ ...ref, args: [] }, { entry: f.entry, method: m }, m);
      const sup = head && this.types.hierarchy(at.v).types.find((t) => t.fqn === head.fqn);
      if (!sup || sup.args.length !== ref.args.length) return;
      ref.args.forEach((x, idx) => {
        const t = sup.args[idx] as RType;
        if (vars.has(x.name) && !x.args.length && !x.dims && !x.wildcard && t.fqn !== '?') bind(x.name, t);
      });
    });
    for (const b of bad) out.delete(b);
    return out;
  }

  private isArray(a: Expr, scope: Scope, nested: boolean): boolean {
    const t = this.typeOf(a, scope, nested);
    return 'v' in t && t.v.dims > 0;
  }

  private returnType(f: FoundMethod): RType | undefined {
    const m: MethodSymbol = f.method;
    if (!m.returnType) return undefined;
    const scope: Scope = f.bindings ? { entry: f.entry, method: m, bindings: f.bindings } : { entry: f.entry, method: m };
    const r = this.types.resolveText(m.returnType, scope, m);
    return r && r.fqn !== '?' ? r : undefined;
  }

  /**
   * Overloads whose parameter types equal the argument types where those are known (literals,
   * typed locals, …): Java's most specific method in the common cases, e.g. `sb.append(']')`.
   * All candidates when that does not single out a set.
   */
  private byArgumentTypes(found: FoundMethod[], args: readonly Expr[], scope: Scope, nested: boolean): FoundMethod[] {
    const argTypes = args.map((a) => {
      const m = a.k === '?' || a.k === 'null' ? undefined : this.typeOf(a, scope, nested);
      return m && 'v' in m && m.v.fqn !== '?' ? `${m.v.fqn}${'[]'.repeat(m.v.dims)}` : undefined;
    });
    if (argTypes.every((t) => t === undefined)) return found;
    const exact = found.filter((f) =>
      argTypes.every((t, i) => {
        const p = f.method.params[i];
        if (t === undefined || !p || (f.method.varargs && i >= f.method.params.length - 1)) return true;
        const head = parseType(p.type).name;
        if (f.method.typeParams?.some((tp) => tp.name === head) || f.entry.type.typeParams.some((tp) => tp.name === head)) return true;
        const r = this.types.resolveText(p.type, { entry: f.entry, method: f.method });
        return !!r && `${r.fqn}${'[]'.repeat(r.dims)}` === t;
      }),
    );
    return exact.length ? exact : found;
  }

  /**
   * The return type of a generic method whose type variables its arguments bind
   * (`methodBindings`): `<T> T requireNonNull(T obj)`, `<T> Stream<T> stream(T[] array)`.
   */
  private inferred(f: FoundMethod, args: readonly Expr[] | undefined, scope: Scope, nested: boolean): RType | undefined {
    const m = f.method;
    if (!m.returnType || !args || !m.typeParams?.length) return undefined;
    const bound = this.methodBindings(f, args, scope, nested);
    if (!bound.size) return undefined;
    const bindings = new Map([...(f.bindings ?? []), ...bound]);
    const r = this.types.resolveText(m.returnType, { entry: f.entry, method: m, bindings }, m);
    return r && r.fqn !== '?' ? r : undefined;
  }

  /** Element type for a for-each over an array or an Iterable. */
  private element(m: Meaning): Meaning {
    if (!('v' in m)) return 'err' in m ? m : err('not iterable');
    if (m.v.dims > 0) return { v: { ...m.v, dims: m.v.dims - 1 } };
    const it = this.types.hierarchy(m.v).types.find((t) => t.fqn === 'java.lang.Iterable');
    const arg = it?.args[0];
    return arg && arg.fqn !== '?' ? { v: arg } : err('element type unknown');
  }
}

/** Is this a call the comparison with bytecode (and the agent) should see as creating an anonymous class? */
export const isAnonymous = (site: CallSite): boolean => ((site.flags ?? 0) & ANONYMOUS) !== 0;
