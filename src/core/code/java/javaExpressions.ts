import type { TypeEntry } from '../entries';
import { FINAL_OBJECT_METHODS, OBJECT, OBJECT_METHODS } from './javaLang';
import { byArgumentTypes, functionalType, inferred, methodBindings, returnType, samParam, type ArgType } from './javaInference';
import { looksLikeType, rkey, rtype, type FoundMethod, type JavaTypes, type RType, type Scope } from './javaTypes';
import type { Expr } from '../model';
import { parseType, PRIMITIVES, rawName } from './typeRef';
import type { TypingRun } from './typingBudget';

/**
 * The static types of Java expressions, as the call resolver (resolver.ts) needs them: a receiver
 * is typed from locals and parameters (bound at extraction), fields, `this`/`super`, static types,
 * imports and static imports, and the return types of calls, which are looked up here too (the
 * type a call is made on and javac's qualifying type for it). What cannot be told from the
 * sources in hand is an `err` with the reason, never a guess.
 */

/** What an expression denotes: a value of a type, a type, a package, or why it cannot be told. */
export type Meaning = { readonly v: RType } | { readonly type: string } | { readonly pkg: string } | { readonly err: string };

/** The static type a call is made on. */
export interface Site {
  readonly t?: RType;
  readonly isStatic?: boolean;
  /** An unqualified call found in an enclosing class, not the class the call is in. */
  readonly outer?: boolean;
  readonly err?: string;
}

const err = (why: string): { err: string } => ({ err: why });

export class JavaExpressions {
  /** The call being typed: its memo and its steps (typingBudget.ts). */
  private run: TypingRun<Meaning> | undefined;

  constructor(readonly types: JavaTypes) {}

  /** Runs `fn`, one call site's typing, under `run`: each expression typed once, every step counted. */
  during<T>(run: TypingRun<Meaning>, fn: () => T): T {
    const outer = this.run;
    this.run = run;
    try {
      return fn();
    } finally {
      this.run = outer;
    }
  }

  /** Counts the overloads weighed against `args` (each against every argument) as steps of the run. */
  weigh(candidates: number, args: readonly Expr[] | undefined): void {
    this.run?.charge(candidates * Math.max(1, args?.length ?? 0));
  }

  /** javac's qualifying type for `t.name(argc args)`, and the declarations found. */
  lookup(t: RType, name: string, argc: number): { owner?: string; found: FoundMethod[]; reason?: string } {
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
  siteOf(recv: Expr | undefined, name: string, scope: Scope, nested: boolean): Site {
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
    const run = this.run;
    if (!run) return this.meaning(e, scope, nested);
    // Overload choice and inference type the same arguments again: once per run, whatever the nesting.
    const known = run.memo.get(e);
    if (known) return known;
    run.charge();
    const m = this.meaning(e, scope, nested);
    run.memo.set(e, m);
    return m;
  }

  private meaning(e: Expr, scope: Scope, nested: boolean): Meaning {
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
        const fn = functionalType(T, parseType(e.t), scope);
        const p = fn && samParam(T, fn, e.n, e.i);
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
    if (T.index.hasType(full) || T.entryOf(full)) return { type: full };
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
    const argType = this.argType(scope, nested);
    this.weigh(found.length, e.g);
    const chosen = found.length > 1 && e.g ? byArgumentTypes(this.types, found, e.g, argType) : found;
    this.weigh(chosen.length, e.g);
    const results = chosen.map((f) => inferred(this.types, f, e.g, argType) ?? returnType(this.types, f));
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
    const argType = this.argType(scope, nested);
    this.weigh(found.length, c.g);
    const chosen = found.length > 1 && c.g ? byArgumentTypes(this.types, found, c.g, argType) : found;
    this.weigh(chosen.length, c.g);
    let result: RType | undefined;
    for (const f of chosen) {
      const m = f.method;
      const param = m.params[e.j];
      if (!param || (m.varargs && e.j >= m.params.length - 1)) return err('lambda passed as a variable argument');
      const bindings = new Map([...(f.bindings ?? []), ...methodBindings(this.types, f, c.g, argType)]);
      const fn = functionalType(this.types, parseType(param.type), { entry: f.entry, method: m, bindings }, m);
      const p = fn ? samParam(this.types, fn, e.n, e.i) : undefined;
      if (p === 'no') continue;
      if (!p || (result && rkey(result) !== rkey(p))) return err('lambda parameter type unknown');
      result = p;
    }
    return result ? { v: result } : err('lambda parameter type unknown');
  }

  /** Element type for a for-each over an array or an Iterable. */
  private element(m: Meaning): Meaning {
    if (!('v' in m)) return 'err' in m ? m : err('not iterable');
    if (m.v.dims > 0) return { v: { ...m.v, dims: m.v.dims - 1 } };
    const it = this.types.hierarchy(m.v).types.find((t) => t.fqn === 'java.lang.Iterable');
    const arg = it?.args[0];
    return arg && arg.fqn !== '?' ? { v: arg } : err('element type unknown');
  }

  /** The value type of an argument, for the inference in javaInference.ts. */
  argType(scope: Scope, nested: boolean): ArgType {
    return (e) => {
      const m = this.typeOf(e, scope, nested);
      return 'v' in m ? m.v : undefined;
    };
  }
}
