import type { Language, Node, Query as QueryType } from 'web-tree-sitter';
import { Query } from '../parse/parser';
import { bindable, callsDeeper, cutText as cut, ExprBounds, QUERY_LIMITS, siteName } from '../parse/exprBounds';
import { argCount, cleanType, isComment, line, namedKids, typeText } from '../parse/javaSyntax';
import { ANONYMOUS, IN_LAMBDA, IN_NESTED_CLASS, type CallSite, type Expr, type VarSymbol } from '../model';

/**
 * Call sites of every member body in a Java file: method invocations, `new`, `this(…)` / `super(…)`
 * and method references. One tree-sitter query finds them with the declarations that open scopes
 * (blocks, lambdas, catch, for, patterns…), in document order; a stack of open scopes binds a
 * receiver naming a local or parameter to its declared type here. The rest is left to the resolver.
 */

/** A member body the calls are collected into, by source range (UTF-16 offsets). */
export interface MemberRange {
  readonly start: number;
  readonly end: number;
  readonly calls: CallSite[];
  /** Parameters in scope in the body (record components for compact constructors). */
  readonly params?: readonly VarSymbol[];
}

const PATTERNS = `
[(block) (constructor_body) (switch_block) (switch_rule) (switch_block_statement_group) (for_statement)
 (catch_clause) (try_with_resources_statement) (method_declaration) (constructor_declaration)
 (compact_constructor_declaration)] @scope
(enhanced_for_statement) @for
(lambda_expression) @lambda
(class_body) @body
[(class_declaration) (interface_declaration) (enum_declaration) (record_declaration)] @type
(local_variable_declaration) @local
[(formal_parameter) (spread_parameter)] @param
(catch_formal_parameter) @catch
(resource) @resource
[(instanceof_expression) (type_pattern) (record_pattern_component)] @pattern
(method_invocation) @call
(object_creation_expression) @new
(explicit_constructor_invocation) @ctor
(method_reference) @ref
`;

/** Every node PATTERNS captures (a scope or a parameter missed binds a call wrongly): a file with one deeper than the query looks is marked. */
const CAPTURED: ReadonlySet<string> = new Set([...PATTERNS.matchAll(/\((\w+)\)/g)].map((m) => m[1] as string));
const queries = new WeakMap<Language, QueryType>();
function queryFor(lang: Language): QueryType {
  let q = queries.get(lang);
  if (!q) queries.set(lang, (q = new Query(lang, PATTERNS)));
  return q;
}

interface Scope {
  readonly end: number;
  readonly flags: number;
  readonly vars: Map<string, Expr>;
}

const UNKNOWN_LAMBDA: Expr = { k: '?', why: 'lambda parameter without a declared type' };
const STRING: Expr = { k: 'fq', t: 'java.lang.String' };
const CLASS: Expr = { k: 'fq', t: 'java.lang.Class' };

/** Fills `members[i].calls` with each member's call sites (innermost wins); says why any were left out (QUERY_LIMITS). */
export function collectCalls(root: Node, members: readonly MemberRange[]): 'time' | 'depth' | undefined {
  if (!members.length) return undefined;
  return !new CallCollector(root, members).run(root) ? 'time' : callsDeeper(root, QUERY_LIMITS.depth, CAPTURED) ? 'depth' : undefined;
}

class CallCollector {
  private readonly scopes: Scope[] = [];
  private readonly open: MemberRange[] = [];
  private readonly localTypes = new Set<string>();
  private next = 0;
  private readonly bounds: ExprBounds;

  constructor(
    root: Node,
    private readonly members: readonly MemberRange[],
  ) {
    this.bounds = new ExprBounds(root.tree);
  }

  run(root: Node): boolean {
    const deadline = performance.now() + QUERY_LIMITS.ms;
    let late = false;
    const captures = queryFor(root.tree.language).captures(root, { maxStartDepth: QUERY_LIMITS.depth, progressCallback: () => (late ||= performance.now() > deadline) });
    for (const { name, node } of captures) {
      const at = node.startIndex;
      this.advance(at);
      const member = this.open[this.open.length - 1];
      if (!member) continue; // outside every member body: declarations only
      switch (name) {
        case 'scope':
        case 'for':
        case 'lambda':
        case 'body':
          this.openScope(name, node);
          break;
        case 'type':
          if (this.scopes.length) this.localTypes.add(node.childForFieldName('name')?.text ?? '');
          break;
        case 'local':
          for (const d of node.childrenForFieldName('declarator')) this.declarator(typeText(node.childForFieldName('type')), d);
          break;
        case 'param':
          this.parameter(node);
          break;
        case 'catch': {
          const types = namedKids(node.namedChildren.find((k) => k.type === 'catch_type') ?? node);
          const n = node.childForFieldName('name')?.text;
          const only = types.length === 1 ? types[0] : undefined;
          if (n) this.declare(n, only ? typeText(only) : { k: 'lub', ts: types.map((t) => typeText(t)) });
          break;
        }
        case 'resource':
          if (node.childForFieldName('type')) this.declarator(typeText(node.childForFieldName('type')), node);
          break;
        case 'pattern':
          this.pattern(node);
          break;
        default:
          this.call(name, node, member);
      }
    }
    return !late;
  }

  /** Closes scopes and members that end before `at`, opens members that start at or before it. */
  private advance(at: number): void {
    while (this.scopes.length && (this.scopes[this.scopes.length - 1] as Scope).end <= at) this.scopes.pop();
    while (this.open.length && (this.open[this.open.length - 1] as MemberRange).end <= at) {
      this.open.pop();
      if (!this.open.length) this.localTypes.clear();
    }
    while (this.next < this.members.length && (this.members[this.next] as MemberRange).start <= at) {
      const m = this.members[this.next++] as MemberRange;
      if (m.end <= at) continue;
      this.open.push(m);
      this.scopes.push({ end: m.end, flags: 0, vars: new Map() });
      for (const p of m.params ?? []) this.declare(p.name, p.type.endsWith('...') ? `${p.type.slice(0, -3)}[]` : p.type);
    }
  }

  private get flags(): number {
    return this.scopes[this.scopes.length - 1]?.flags ?? 0;
  }

  private openScope(kind: string, node: Node): void {
    let flags = this.flags;
    if (kind === 'lambda') flags |= IN_LAMBDA;
    if (kind === 'body') flags |= IN_NESTED_CLASS; // a class body inside a member: anonymous or local class
    this.scopes.push({ end: node.endIndex, flags, vars: new Map() });
    if (kind === 'for') {
      const type = typeText(node.childForFieldName('type'));
      const n = node.childForFieldName('name')?.text;
      const value = node.childForFieldName('value');
      if (n) this.declare(n, type === 'var' ? (value ? { k: 'elem', o: this.exprOf(value) } : { k: '?' }) : type);
    } else if (kind === 'lambda') {
      const params = node.childForFieldName('parameters');
      const names = params?.type === 'identifier' ? [params] : params?.type === 'inferred_parameters' ? namedKids(params) : [];
      if (!names.length) return;
      const target = this.lambdaTarget(node);
      names.forEach((p, i) => this.declare(p.text, target ? target(i, names.length) : UNKNOWN_LAMBDA));
    }
  }

  /**
   * Where an untyped lambda's parameter types come from (JLS 15.27.3): the parameter of the method
   * it is passed to, or the type it is cast to, declared as, or returned as. Typed by the resolver.
   */
  private lambdaTarget(lambda: Node): ((i: number, n: number) => Expr) | undefined {
    let child = lambda;
    let p = lambda.parent;
    while (p?.type === 'parenthesized_expression') [child, p] = [p, p.parent];
    if (!p) return undefined;
    if (p.type === 'argument_list' && p.parent?.type === 'method_invocation') {
      const j = namedKids(p).findIndex((k) => k.id === child.id);
      const c = this.exprOf(p.parent);
      return j < 0 ? undefined : (i, n) => ({ k: 'la', c, j, i, n });
    }
    let t: string | undefined;
    if (p.type === 'cast_expression') t = typeText(p.childForFieldName('type'));
    else if (p.type === 'variable_declarator' && p.childForFieldName('value')?.id === child.id) {
      const decl = p.parent;
      if (decl?.type === 'local_variable_declaration' || decl?.type === 'field_declaration') t = typeText(decl.childForFieldName('type'));
    } else if (p.type === 'return_statement') {
      let m = p.parent;
      while (m && !['method_declaration', 'lambda_expression', 'class_body', 'constructor_declaration'].includes(m.type)) m = m.parent;
      if (m?.type === 'method_declaration') t = typeText(m.childForFieldName('type'));
    }
    const type = t;
    return type && type !== 'var' ? (i, n) => ({ k: 'lt', t: type, i, n }) : undefined;
  }

  private declare(name: string, type: string | Expr): void {
    const scope = this.scopes[this.scopes.length - 1];
    if (!scope || !name) return;
    if (typeof type !== 'string') scope.vars.set(name, bindable(type));
    else {
      const head = /^[\w$]+/.exec(type)?.[0] ?? '';
      scope.vars.set(name, bindable(this.localTypes.has(head) ? { k: '?', why: `${head} is a local class` } : { k: 't', t: type }));
    }
  }

  private lookup(name: string): Expr | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const hit = (this.scopes[i] as Scope).vars.get(name);
      if (hit) return hit;
    }
    return undefined;
  }

  private declarator(type: string, d: Node): void {
    const n = d.childForFieldName('name')?.text;
    if (!n) return;
    const dims = d.childForFieldName('dimensions');
    if (type !== 'var') this.declare(n, dims ? type + cleanType(dims.text) : type);
    else {
      const value = d.childForFieldName('value');
      this.declare(n, value ? this.exprOf(value) : { k: '?' });
    }
  }

  private parameter(p: Node): void {
    if (p.type === 'spread_parameter') {
      const type = namedKids(p).find((k) => k.type !== 'modifiers' && k.type !== 'variable_declarator');
      const decl = p.namedChildren.find((k) => k.type === 'variable_declarator');
      const n = decl?.childForFieldName('name')?.text;
      if (n) this.declare(n, `${typeText(type ?? null)}[]`);
      return;
    }
    const type = typeText(p.childForFieldName('type'));
    const n = p.childForFieldName('name')?.text;
    const dims = p.childForFieldName('dimensions');
    if (n) this.declare(n, type === 'var' || !type ? UNKNOWN_LAMBDA : dims ? type + cleanType(dims.text) : type);
  }

  private pattern(node: Node): void {
    if (node.type === 'instanceof_expression') {
      const n = node.childForFieldName('name')?.text;
      const right = node.childForFieldName('right');
      if (n && right) this.declare(n, typeText(right));
      return;
    }
    const kids = namedKids(node);
    const n = kids[kids.length - 1];
    const type = kids[0];
    if (kids.length === 2 && type && n?.type === 'identifier') this.declare(n.text, typeText(type));
  }

  private add(member: MemberRange, at: CallSite): void {
    const site = { ...at, name: siteName(at.name) };
    const flags = this.flags | (site.flags ?? 0);
    member.calls.push(flags ? { ...site, flags } : site);
  }

  private call(kind: string, node: Node, member: MemberRange): void {
    if (kind === 'call') {
      const object = node.childForFieldName('object');
      const nameNode = node.childForFieldName('name');
      const args = node.childForFieldName('arguments');
      const site: CallSite = { line: line(nameNode ?? node), kind: 'call', name: nameNode?.text ?? '', argc: argCount(args), ...this.argExprs(args) };
      if (!object) return this.add(member, site);
      // `Outer.super.m()`: something besides the dot between receiver and name (rare: check only then).
      const gap = nameNode ? nameNode.startIndex - object.endIndex > 1 : false;
      const viaSuper = gap && object.type !== 'super' && node.children.some((c) => c.type === 'super');
      const recv: Expr = viaSuper ? { k: 'qsuper', q: cleanType(object.text) } : this.exprOf(object);
      return this.add(member, { ...site, recv, text: cut(object.text + (viaSuper ? '.super' : '')) });
    }
    if (kind === 'new') {
      const type = node.childForFieldName('type');
      const args = node.childForFieldName('arguments');
      let site: CallSite = { line: line(node), kind: 'new', name: typeText(type), argc: argCount(args), ...this.argExprs(args) };
      if (node.namedChildren.some((c) => c.type === 'class_body')) site = { ...site, flags: ANONYMOUS };
      const first = namedKids(node)[0];
      if (first && type && first.id !== type.id) site = { ...site, recv: this.exprOf(first), text: cut(first.text) };
      return this.add(member, site);
    }
    if (kind === 'ctor') {
      const ctor = node.childForFieldName('constructor');
      const argc = argCount(node.childForFieldName('arguments'));
      return this.add(member, { line: line(node), kind: ctor?.type === 'super' ? 'super' : 'this', name: '', argc });
    }
    const target = node.namedChildren.find((c) => !isComment(c));
    const last = node.children[node.children.length - 1];
    if (!target || !last) return;
    this.add(member, { line: line(node), kind: 'ref', name: last.type === 'new' ? 'new' : last.text, argc: -1, recv: this.exprOf(target), text: cut(target.text) });
  }

  /** Argument expressions, when some may tell an overload apart (not all unknown). */
  private argExprs(args: Node | null): { g?: Expr[] } {
    if (!args || !args.namedChildCount) return {};
    const g = namedKids(args).map((a) => this.exprOf(a));
    return g.some((x) => x.k !== '?' && x.k !== 'null') ? { g } : {};
  }

  /** The receiver expression as the resolver will see it; past the bounds of EXPR_LIMITS (parse/exprBounds.ts), unknown. */
  private exprOf(node: Node): Expr {
    return this.bounds.within(() => this.exprAt(node));
  }

  private exprAt(node: Node): Expr {
    switch (node.type) {
      case 'identifier': {
        const local = this.lookup(node.text);
        return local ? this.bounds.use(local) : { k: 'id', n: node.text };
      }
      case 'this':
        return { k: 'this' };
      case 'super':
        return { k: 'super' };
      case 'field_access': {
        const object = node.childForFieldName('object');
        const field = node.childForFieldName('field');
        if (!object || !field) return { k: '?' };
        if (field.type === 'this') return { k: 'qthis', q: cleanType(object.text) };
        return { k: 'get', o: this.exprOf(object), n: field.text };
      }
      case 'method_invocation': {
        const object = node.childForFieldName('object');
        const n = node.childForFieldName('name')?.text ?? '';
        const args = node.childForFieldName('arguments');
        const a = argCount(args);
        const g = a && args ? { g: namedKids(args).map((x) => this.exprOf(x)) } : {};
        const nameNode = node.childForFieldName('name');
        const gap = object && nameNode ? nameNode.startIndex - object.endIndex > 1 : false;
        if (object && gap && object.type !== 'super' && node.children.some((c) => c.type === 'super')) {
          return { k: 'call', o: { k: 'qsuper', q: cleanType(object.text) }, n, a, ...g };
        }
        return object ? { k: 'call', o: this.exprOf(object), n, a, ...g } : { k: 'call', n, a, ...g };
      }
      case 'object_creation_expression': {
        if (node.namedChildren.some((c) => c.type === 'class_body')) return { k: '?', why: 'anonymous class' };
        const type = node.childForFieldName('type');
        if (namedKids(node)[0]?.id !== type?.id) return { k: '?', why: 'qualified inner class creation' };
        return { k: 'new', t: typeText(type) };
      }
      case 'parenthesized_expression': {
        const inner = namedKids(node)[0];
        return inner ? this.exprOf(inner) : { k: '?' };
      }
      case 'cast_expression':
        return { k: 't', t: typeText(node.childForFieldName('type')) };
      case 'string_literal':
        return STRING;
      case 'class_literal':
        return CLASS;
      case 'array_access': {
        const array = node.childForFieldName('array');
        return array ? { k: 'idx', o: this.exprOf(array) } : { k: '?' };
      }
      case 'array_creation_expression': {
        const dims = node.namedChildren.filter((c) => c.type === 'dimensions' || c.type === 'dimensions_expr').length;
        return { k: 't', t: typeText(node.childForFieldName('type')) + '[]'.repeat(Math.max(1, dims)) };
      }
      case 'ternary_expression': {
        const a = node.childForFieldName('consequence');
        const b = node.childForFieldName('alternative');
        return a && b ? { k: 'cond', a: this.exprOf(a), b: this.exprOf(b) } : { k: '?' };
      }
      case 'null_literal':
        return { k: 'null' };
      case 'binary_expression': {
        const op = node.childForFieldName('operator')?.type ?? '';
        const l = node.childForFieldName('left');
        const r = node.childForFieldName('right');
        if (!l || !r) return { k: '?' };
        if (/^(==|!=|<|>|<=|>=|&&|\|\|)$/.test(op)) return { k: 'fq', t: 'boolean' };
        const a = this.exprOf(l);
        const b = this.exprOf(r);
        if (op === '+' && (a === STRING || b === STRING)) return STRING;
        if (op === '<<' || op === '>>' || op === '>>>') return { k: 'num', a };
        return /^[-+*/%&|^]$/.test(op) ? { k: 'num', a, b } : { k: '?' };
      }
      case 'unary_expression': {
        const op = node.childForFieldName('operator')?.type ?? '';
        const x = node.childForFieldName('operand');
        if (op === '!') return { k: 'fq', t: 'boolean' };
        return x ? { k: 'num', a: this.exprOf(x) } : { k: '?' };
      }
      case 'character_literal':
        return { k: 'fq', t: 'char' };
      case 'true':
      case 'false':
        return { k: 'fq', t: 'boolean' };
      case 'decimal_integer_literal':
      case 'hex_integer_literal':
      case 'octal_integer_literal':
      case 'binary_integer_literal':
        return { k: 'fq', t: /[lL]$/.test(node.text) ? 'long' : 'int' };
      case 'decimal_floating_point_literal':
      case 'hex_floating_point_literal':
        return { k: 'fq', t: /[fF]$/.test(node.text) ? 'float' : 'double' };
      case 'assignment_expression': {
        const left = node.childForFieldName('left');
        return left ? this.exprOf(left) : { k: '?' };
      }
      default:
        return { k: '?', why: node.type.replace(/_/g, ' ') };
    }
  }
}
