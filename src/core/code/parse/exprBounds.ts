import type { Node, Tree } from 'web-tree-sitter';
import type { Expr } from '../model';

/**
 * Bounds of the receiver and argument expressions the index keeps for one file. A hostile or
 * generated file must not make them large: each call site keeps its receiver's whole tree, so
 *
 *  - a chain `b.m1().m2()…mN()` keeps N trees of up to N nodes, and a 5,000-term expression
 *    recursed deep enough to overflow the stack (the file lost its call sites, or left the index);
 *  - a local bound to an expression copies that tree into every use: `x1 = x0 + x0`, `x2 = x1 + x1`…
 *    doubles at each line (a short file grows to a huge JSON), and `x{i+1} = x{i}.m()` grows by one;
 *  - a declared type's text is copied into every receiver typed by it (a 10,000-character type).
 *
 * So: at most 256 levels and 100,000 nodes per file, a use of a local counting its tree's nodes;
 * a local bound to at most 64 nodes; names and type texts of at most 256 characters. The whole
 * JDK stays within them (at most 389 levels of string concatenation, whose type needs none of
 * them, and 10,253 nodes in a file). Past a bound an expression is unknown: its call is still
 * listed, unresolved.
 */
const EXPR_LIMITS = { depth: 256, nodes: 100_000 };
const MAX_BOUND = 64;
const MAX_TEXT = 256;

/**
 * Bounds of a tree-sitter query over one file (java/javaBody.ts). On very deep nesting (a long
 * generated chain of calls) the query runs far past any deadline: calls that start
 * deeper than `depth` levels are not looked for (`callsDeeper` tells whether a file has any), and
 * the query stops after `ms` (its calls so far are kept).
 */
export const QUERY_LIMITS = { depth: 5000, ms: 10_000 };

/**
 * Whether a node of one of `types` (what a query captures) lies more than `depth` levels
 * below `root`, where a query bounded by `maxStartDepth: depth` does not look. A subtree of n
 * nodes is at most n − 1 levels deep (tree-sitter counts a node's descendants in constant time),
 * so only subtrees of more nodes than the levels left are entered: on a JDK file, a few dozen
 * nodes. A cursor visits one node at a time (a flat initializer of 100,000 elements allocates no
 * list of them).
 */
export function callsDeeper(root: Node, depth: number, types: ReadonlySet<string>): boolean {
  const cursor = root.walk();
  try {
    for (let level = 0; ; ) {
      if (level > depth && types.has(cursor.nodeType)) return true;
      if (level + cursor.currentNode.descendantCount - 1 > depth && cursor.gotoFirstChild()) {
        level++;
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        if (level === 0 || !cursor.gotoParent()) return false;
        level--;
      }
    }
  } finally {
    cursor.delete();
  }
}

const TOO_DEEP: Expr = { k: '?', why: 'expression nested too deep' };
const TOO_LARGE: Expr = { k: '?', why: "the file's expressions are too large" };
const TOO_LONG: Expr = { k: '?', why: 'name or type too long' };
const UNFOLLOWED: Expr = { k: '?', why: 'value too large to follow' };

/** Expressions made so far from each tree (a file's): its share of EXPR_LIMITS.nodes. */
const madeFrom = new WeakMap<Tree, { made: number }>();

/** The nodes of `e`, counted up to `cap` (then `cap + 1`). */
function sizeOf(e: Expr, cap: number): number {
  let n = 0;
  const stack: unknown[] = [e];
  while (stack.length && n <= cap) {
    const x = stack.pop();
    if (Array.isArray(x)) for (const y of x as unknown[]) stack.push(y);
    else if (x && typeof x === 'object') {
      n++;
      for (const v of Object.values(x)) if (v && typeof v === 'object') stack.push(v);
    }
  }
  return Math.min(n, cap + 1);
}

const long = (s: unknown): boolean => typeof s === 'string' && s.length > MAX_TEXT;

/** A node of its own (not its children) names or types something too long to keep. */
function tooLong(e: Expr): boolean {
  const x = e as { t?: unknown; n?: unknown; q?: unknown; ts?: readonly unknown[] };
  return long(x.t) || long(x.n) || long(x.q) || (x.ts?.some(long) ?? false);
}

/** What a local or parameter may be bound to: `e`, or unknown when it is too large to copy into every use. */
export function bindable(e: Expr): Expr {
  return tooLong(e) || sizeOf(e, MAX_BOUND) > MAX_BOUND ? UNFOLLOWED : e;
}

/**
 * An expression's text for display: whitespace collapsed, at most 80 characters. Only the head
 * is looked at: a receiver can be a generated chain of many thousands of calls, and collapsing all
 * of it at each of its calls blew up in time and memory (each cut kept its whole collapsed copy alive).
 */
export const cutText = (s: string): string => {
  const one = (s.length > 400 ? s.slice(0, 400) : s).replace(/\s+/g, ' ');
  return one.length > 80 ? `${one.slice(0, 77)}…` : one;
};

/** A call site's name as kept: at most 256 characters (a name is a key of the callers lookup). */
export const siteName = (name: string): string => (name.length > MAX_TEXT ? name.slice(0, MAX_TEXT) : name);

/** Keeps one walk's expressions within EXPR_LIMITS: their depth, and their file's count. */
export class ExprBounds {
  private depth = 0;
  private readonly file: { made: number };

  constructor(tree: Tree) {
    let file = madeFrom.get(tree);
    if (!file) madeFrom.set(tree, (file = { made: 0 }));
    this.file = file;
  }

  /** What `make` returns, made one level deeper; unknown past the bounds. */
  within(make: () => Expr): Expr {
    if (this.depth >= EXPR_LIMITS.depth) return TOO_DEEP;
    if (this.file.made >= EXPR_LIMITS.nodes) return TOO_LARGE;
    this.file.made++;
    this.depth++;
    try {
      const e = make();
      return tooLong(e) ? TOO_LONG : e;
    } finally {
      this.depth--;
    }
  }

  /** A use of a bound local (`bindable`): its tree counts against the file's nodes. */
  use(local: Expr): Expr {
    const n = sizeOf(local, MAX_BOUND);
    if (this.file.made + n > EXPR_LIMITS.nodes) return TOO_LARGE;
    this.file.made += n;
    return local;
  }
}
