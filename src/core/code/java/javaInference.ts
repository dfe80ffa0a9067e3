import { OBJECT_METHODS } from './javaLang';
import { rkey, UNKNOWN, type FoundMethod, type JavaTypes, type RType, type Scope } from './javaTypes';
import type { Expr, MethodSymbol } from '../model';
import { parseType, PRIMITIVES, type TypeRef } from './typeRef';

/**
 * What javac infers from a call's arguments, in the plain cases the resolver relies on: the
 * overload whose parameter types the arguments have, the type variables of a generic method its
 * arguments bind (and so its return type), and the parameter types of a lambda from the
 * functional interface it is passed as. Unknown stays unknown.
 */

/** The static type of an argument expression, when the resolver can tell it. */
export type ArgType = (e: Expr) => RType | undefined;

/**
 * A functional interface type as a lambda sees it (JLS 9.9): `Function<? super T, ? extends R>`
 * gives `Function<T, R>`; an unbounded wildcard or an unknown type variable stays unknown.
 */
export function functionalType(T: JavaTypes, ref: TypeRef, scope: Scope, unknownVarsOf?: MethodSymbol): RType | undefined {
  if (ref.wildcard || ref.dims) return undefined;
  const head = T.resolveRef({ ...ref, args: [] }, scope, unknownVarsOf);
  if (!head || head.dims || PRIMITIVES.has(head.fqn)) return undefined;
  const args = ref.args.map((a) => {
    const t = a.wildcard === 'any' ? undefined : T.resolveRef(a.wildcard ? (a.args[0] as TypeRef) : a, scope, unknownVarsOf);
    return t ?? UNKNOWN;
  });
  return { ...head, args };
}

/**
 * Type of parameter `i` of the single abstract method of `fn`; 'no' when `fn` is surely not a
 * functional interface taking `n` parameters; undefined when that cannot be told.
 */
export function samParam(T: JavaTypes, fn: RType, n: number, i: number): RType | 'no' | undefined {
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
export function methodBindings(T: JavaTypes, f: FoundMethod, args: readonly Expr[] | undefined, argType: ArgType): Map<string, RType> {
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
    if (m.varargs && k >= last && !(args.length === m.params.length && k === last && isArray(a, argType))) ref = { ...ref, dims: ref.dims - 1 };
    const at = argType(a);
    if (!at || at.fqn === '?' || PRIMITIVES.has(at.fqn)) return;
    if (vars.has(ref.name) && !ref.args.length) {
      if (at.dims >= ref.dims) bind(ref.name, { ...at, dims: at.dims - ref.dims });
      return;
    }
    if (ref.dims || at.dims || !ref.args.some((x) => vars.has(x.name) && !x.args.length && !x.dims)) return;
    const head = T.resolveRef({ ...ref, args: [] }, { entry: f.entry, method: m }, m);
    const sup = head && T.hierarchy(at).types.find((t) => t.fqn === head.fqn);
    if (!sup || sup.args.length !== ref.args.length) return;
    ref.args.forEach((x, idx) => {
      const t = sup.args[idx] as RType;
      if (vars.has(x.name) && !x.args.length && !x.dims && !x.wildcard && t.fqn !== '?') bind(x.name, t);
    });
  });
  for (const b of bad) out.delete(b);
  return out;
}

function isArray(a: Expr, argType: ArgType): boolean {
  const t = argType(a);
  return !!t && t.dims > 0;
}

export function returnType(T: JavaTypes, f: FoundMethod): RType | undefined {
  const m: MethodSymbol = f.method;
  if (!m.returnType) return undefined;
  const scope: Scope = f.bindings ? { entry: f.entry, method: m, bindings: f.bindings } : { entry: f.entry, method: m };
  const r = T.resolveText(m.returnType, scope, m);
  return r && r.fqn !== '?' ? r : undefined;
}

/**
 * Overloads whose parameter types equal the argument types where those are known (literals,
 * typed locals, …): Java's most specific method in the common cases, e.g. `sb.append(']')`.
 * All candidates when that does not single out a set.
 */
export function byArgumentTypes(T: JavaTypes, found: FoundMethod[], args: readonly Expr[], argType: ArgType): FoundMethod[] {
  const argTypes = args.map((a) => {
    const t = a.k === '?' || a.k === 'null' ? undefined : argType(a);
    return t && t.fqn !== '?' ? `${t.fqn}${'[]'.repeat(t.dims)}` : undefined;
  });
  if (argTypes.every((t) => t === undefined)) return found;
  const exact = found.filter((f) =>
    argTypes.every((t, i) => {
      const p = f.method.params[i];
      if (t === undefined || !p || (f.method.varargs && i >= f.method.params.length - 1)) return true;
      const head = parseType(p.type).name;
      if (f.method.typeParams?.some((tp) => tp.name === head) || f.entry.type.typeParams.some((tp) => tp.name === head)) return true;
      const r = T.resolveText(p.type, { entry: f.entry, method: f.method });
      return !!r && `${r.fqn}${'[]'.repeat(r.dims)}` === t;
    }),
  );
  return exact.length ? exact : found;
}

/**
 * The return type of a generic method whose type variables its arguments bind
 * (`methodBindings`): `<T> T requireNonNull(T obj)`, `<T> Stream<T> stream(T[] array)`.
 */
export function inferred(T: JavaTypes, f: FoundMethod, args: readonly Expr[] | undefined, argType: ArgType): RType | undefined {
  const m = f.method;
  if (!m.returnType || !args || !m.typeParams?.length) return undefined;
  const bound = methodBindings(T, f, args, argType);
  if (!bound.size) return undefined;
  const bindings = new Map([...(f.bindings ?? []), ...bound]);
  const r = T.resolveText(m.returnType, { entry: f.entry, method: m, bindings }, m);
  return r && r.fqn !== '?' ? r : undefined;
}
