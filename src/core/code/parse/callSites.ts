import type { Node } from 'web-tree-sitter';
import { bindable, cutText, ExprBounds, siteName } from './exprBounds';
import { IN_LAMBDA, type CallSite, type Expr, type MethodSymbol } from '../model';

/**
 * Call sites of a member body, for every language but Java (whose `javaBody.ts` types far more).
 * One walk over the body in document order: declarations of locals and parameters bind their
 * names (to a declared type, a `new`, a call, or "unknown" so a local never passes for a class or
 * module of the same name); calls become CallSites whose receiver is a small expression tree the
 * resolver types later. Nested classes are their own declarations and are not walked; calls in
 * lambdas and nested functions count for the member, flagged IN_LAMBDA.
 */

export interface Dialect {
  /** Declarations whose bodies are collected on their own (nested classes): not walked. */
  readonly skip: ReadonlySet<string>;
  /** Lambdas and nested functions. */
  readonly lambdas: ReadonlySet<string>;
  /** Nested functions with a `this` of their own (JavaScript's `function`): `this` there is not the class's. */
  readonly ownThis?: ReadonlySet<string>;
  /** The call a node makes, if it is one (`w.expr` types its receiver). */
  site(node: Node, w: Walker): Omit<CallSite, 'line'> | undefined;
  /** Binds the names a declaration node introduces (`w.bind`). */
  bind?(node: Node, w: Walker): void;
  /** Nodes that are calls: as receivers, their results. */
  readonly calls: ReadonlySet<string>;
  /** Nodes that create an object (`new X()`): a local they initialize has that type. */
  readonly creations?: ReadonlySet<string>;
  /** Nodes that only wrap their first child (parentheses, `await`). */
  readonly wrappers: ReadonlySet<string>;
  /** The receiver expression for a node; undefined for what the walker knows (names, calls, wrappers). */
  expr(node: Node, w: Walker): Expr | undefined;
}

export const UNKNOWN: Expr = { k: '?', why: 'local variable of unknown type' };

export class Walker {
  private readonly locals = new Map<string, Expr>();
  private flags = 0;
  /** Inside a nested `function`: `this` is not the member's. */
  foreignThis = false;
  private bounds: ExprBounds | undefined;
  readonly calls: CallSite[] = [];

  constructor(
    private readonly dialect: Dialect,
    /** Names that mean the receiver of the member: `self`, a Go receiver. */
    private readonly selves: ReadonlySet<string> = new Set(),
  ) {}

  /** Binds a local or parameter; a name bound twice to different things becomes unknown. */
  bind(name: string, e: Expr): void {
    if (!name) return;
    const old = this.locals.get(name);
    const value = bindable(e);
    this.locals.set(name, old && JSON.stringify(old) !== JSON.stringify(value) ? UNKNOWN : value);
  }

  /**
   * Binds a declared local: to its declared type when written, else to what its value creates or
   * returns when the value is a call or a creation, else unknown.
   */
  declare(name: string, type: string | undefined, value: Node | null | undefined): void {
    const d = this.dialect;
    this.bind(name, type ? paramExpr(type) : value && (d.calls.has(value.type) || d.creations?.has(value.type)) ? this.expr(value) : UNKNOWN);
  }

  /** A call of something that has no name (`fns[i]()`, `(a || b)()`): listed, never resolved. */
  opaque(fn: Node, argc: number): Omit<CallSite, 'line'> {
    return { kind: 'call', name: this.text(fn), argc, recv: { k: '?', why: 'the called value is an expression' } };
  }

  /** A name: the member's receiver, a local, or (unbound) a name for the resolver to look up. */
  name(n: string): Expr {
    if (this.selves.has(n)) return { k: 'this' };
    const local = this.locals.get(n);
    if (!local) return { k: 'id', n };
    return this.bounds ? this.bounds.use(local) : local;
  }

  /** The receiver expression for `node`; past the bounds of EXPR_LIMITS, unknown. */
  expr(node: Node): Expr {
    this.bounds ??= new ExprBounds(node.tree);
    return this.bounds.within(() => this.exprAt(node));
  }

  private exprAt(node: Node): Expr {
    const d = this.dialect;
    const own = d.expr(node, this);
    if (own) return own;
    if (node.type === 'identifier') return this.name(node.text);
    if (d.wrappers.has(node.type)) {
      const inner = node.namedChildren[0];
      return inner ? this.expr(inner) : { k: '?' };
    }
    if (d.calls.has(node.type)) {
      const s = d.site(node, this);
      return s && s.kind === 'call' && s.recv?.k !== '?' ? { k: 'call', ...(s.recv ? { o: s.recv } : {}), n: s.name, a: s.argc } : { k: '?', why: 'call result' };
    }
    return { k: '?', why: node.type.replace(/_/g, ' ') };
  }

  /** `this` as the member sees it. */
  self(): Expr {
    return this.foreignThis ? { k: '?', why: '`this` inside a nested function' } : { k: 'this' };
  }

  /** Receiver text as written, for display. */
  text = (n: Node): string => cutText(n.text);

  /**
   * Walks `root` in document order. A loop with its own stack, not recursion: a 5,000-term
   * expression (generated code) nests that deep, and a recursive walk overflowed the call stack,
   * which left the whole file out of the index.
   */
  walk(root: Node): void {
    const d = this.dialect;
    this.bounds ??= new ExprBounds(root.tree);
    // A node to visit, or the flags to restore once a lambda's children are done.
    const stack: Array<Node | { readonly flags: number; readonly foreignThis: boolean }> = [root];
    for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
      if (!('type' in item)) {
        this.flags = item.flags;
        this.foreignThis = item.foreignThis;
        continue;
      }
      const node = item;
      if (d.skip.has(node.type)) continue;
      if (d.lambdas.has(node.type)) {
        stack.push({ flags: this.flags, foreignThis: this.foreignThis });
        this.flags |= IN_LAMBDA;
        if (d.ownThis?.has(node.type)) this.foreignThis = true;
      }
      d.bind?.(node, this);
      let s = d.site(node, this);
      // `cb()` where cb is a local or parameter: a value, not a declaration to look up.
      if (s && s.kind === 'call' && !s.recv && this.locals.has(s.name)) s = { ...s, recv: { k: '?', why: `${s.name} is a local variable or parameter` } };
      if (s) {
        const site: CallSite = { line: node.startPosition.row + 1, ...s, name: siteName(s.name) };
        this.calls.push(this.flags ? { ...site, flags: (site.flags ?? 0) | this.flags } : site);
      }
      const kids = node.namedChildren;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as Node);
    }
  }
}

/** Collects the call sites of a member: parameters first (`params`), then the body. */
export function collect(dialect: Dialect, body: Node | null | undefined, opts: { selves?: Iterable<string>; params?: ReadonlyArray<readonly [string, Expr]> } = {}): CallSite[] {
  if (!body) return [];
  const w = new Walker(dialect, new Set(opts.selves ?? []));
  for (const [n, e] of opts.params ?? []) w.bind(n, e);
  w.walk(body);
  return w.calls;
}

/** A parameter's binding: its declared type, or unknown. */
export const paramExpr = (type: string): Expr => (type ? { k: 't', t: type } : UNKNOWN);

/**
 * The calls a file's top-level code makes when the module loads (`main()` under
 * `if __name__ == "__main__":`, `app.listen(…)`), as the module type's initializer `<module>`
 * (as Java's `<clinit>` is the code that runs when a class loads). One walker over all `statements`, so a module-level
 * variable binds as a local does; `declarations` are not walked (their members have their own
 * calls). Undefined when the top level calls nothing.
 */
export function moduleInitializer(dialect: Dialect, statements: readonly Node[], declarations: Iterable<string>): MethodSymbol | undefined {
  const w = new Walker({ ...dialect, skip: new Set([...dialect.skip, ...declarations]) });
  for (const s of statements) w.walk(s);
  if (!w.calls.length) return undefined;
  // Loops, not Math.min(...lines): a module of 500,000 calls overflows a spread's stack.
  let first = Infinity;
  let last = 0;
  for (const c of w.calls) {
    first = Math.min(first, c.line);
    last = Math.max(last, c.line);
  }
  return { kind: 'initializer', name: '<module>', params: [], modifiers: [], annotations: [], line: first, endLine: last, hasBody: true, calls: w.calls };
}
