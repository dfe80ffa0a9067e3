import type { Node, Tree } from 'web-tree-sitter';
import { summarize } from '../parse/javaSyntax';
import { collect, moduleInitializer, paramExpr, UNKNOWN, type Dialect, type Walker } from '../parse/callSites';
import { moduleName } from '../model';
import type { FileSymbols, ImportSymbol, MethodSymbol, TypeSymbol, VarSymbol } from '../model';
import { collapse, endLine, headOf, kids, line, moduleSymbol, typeSymbol } from '../parse/syntax';

/**
 * Declarations of a Python file: classes (nested ones too) with their methods, decorators as
 * annotations and docstrings as doc; `__init__` is the constructor; class-level assignments and
 * `self.x = …` in methods are fields. Module-level functions belong to the file's `module` type.
 * The package is the dotted module path (`pkg/sub/mod.py` → `pkg.sub.mod`, `pkg/__init__.py` →
 * `pkg`), which is also the module type's fqn.
 */

const COMMENT = /#[^\n]*/g;
const CLAUSES = new Set(['elif_clause', 'else_clause', 'except_clause', 'except_group_clause', 'finally_clause']);

const DIALECT: Dialect = {
  skip: new Set(['class_definition']),
  lambdas: new Set(['lambda', 'function_definition']),
  site(node, w) {
    if (node.type !== 'call') return undefined;
    const fn = node.childForFieldName('function');
    const args = node.childForFieldName('arguments');
    const argc = args ? kids(args).length : 0;
    if (fn?.type === 'identifier') return fn.text === 'super' ? undefined : { kind: 'call', name: fn.text, argc };
    if (fn?.type === 'attribute') {
      const object = fn.childForFieldName('object');
      const name = fn.childForFieldName('attribute')?.text ?? '';
      return object ? { kind: 'call', name, argc, recv: w.expr(object), text: w.text(object) } : undefined;
    }
    return fn ? w.opaque(fn, argc) : undefined;
  },
  bind(node, w) {
    if (node.type === 'assignment') {
      const left = node.childForFieldName('left');
      if (left?.type !== 'identifier') return bindTargets(left, w);
      w.declare(left.text, collapse(node.childForFieldName('type')?.text ?? ''), node.childForFieldName('right'));
    } else if (node.type === 'for_statement' || node.type === 'for_in_clause') bindTargets(node.childForFieldName('left'), w);
    else if (node.type === 'as_pattern_target' || node.type === 'named_expression') bindTargets(node.namedChildren[0], w);
  },
  calls: new Set(['call']),
  wrappers: new Set(['parenthesized_expression', 'await']),
  expr(node, w) {
    switch (node.type) {
      case 'attribute': {
        const o = node.childForFieldName('object');
        return o ? { k: 'get', o: w.expr(o), n: node.childForFieldName('attribute')?.text ?? '' } : { k: '?' };
      }
      case 'call':
        return node.childForFieldName('function')?.text === 'super' ? { k: 'super' } : undefined;
      default:
        return undefined;
    }
  },
};

function bindTargets(n: Node | null | undefined, w: Walker): void {
  if (!n) return;
  if (n.type === 'identifier') w.bind(n.text, UNKNOWN);
  else if (n.type === 'pattern_list' || n.type === 'tuple_pattern' || n.type === 'list_pattern' || n.type === 'expression_list') for (const c of n.namedChildren) bindTargets(c, w);
}

/** The docstring: the body's first statement when it is a string, first sentence. */
function docstring(body: Node | null): string | undefined {
  const first = body?.namedChildren.find((c) => !c.type.includes('comment'));
  const s = first?.type === 'expression_statement' ? first.namedChildren[0] : undefined;
  if (s?.type !== 'string') return undefined;
  const text = s.namedChildren.filter((c) => c.type === 'string_content').map((c) => c.text).join('');
  return summarize(text.split(/\n\s*\n/)[0] ?? text);
}

function params(list: Node | null): VarSymbol[] {
  const out: VarSymbol[] = [];
  for (const p of list ? kids(list) : []) {
    let name = p.text;
    let type = '';
    if (p.type === 'typed_parameter') {
      name = p.namedChildren.find((c) => c.type !== 'type')?.text ?? p.text;
      type = collapse(p.childForFieldName('type')?.text ?? '');
    } else if (p.type === 'default_parameter' || p.type === 'typed_default_parameter') {
      name = p.childForFieldName('name')?.text ?? p.text;
      type = collapse(p.childForFieldName('type')?.text ?? '');
    } else if (p.type === 'keyword_separator' || p.type === 'positional_separator') continue;
    out.push({ name, type, line: line(p) });
  }
  return out;
}

interface Decorated {
  readonly node: Node;
  /** The decorated_definition around it, when there is one (its range and position are the declaration's). */
  readonly outer: Node;
  readonly decorators: string[];
}

function undecorate(n: Node): Decorated | undefined {
  if (n.type === 'decorated_definition') {
    const def = n.childForFieldName('definition');
    const decorators = n.namedChildren.filter((c) => c.type === 'decorator').map((d) => collapse(d.text).slice(0, 80));
    return def ? { node: def, outer: n, decorators } : undefined;
  }
  return n.type === 'function_definition' || n.type === 'class_definition' ? { node: n, outer: n, decorators: [] } : undefined;
}

function method(d: Decorated, owner: string | undefined): { m: MethodSymbol; fields: VarSymbol[] } {
  const n = d.node;
  const body = n.childForFieldName('body');
  const all = params(n.childForFieldName('parameters'));
  const isStatic = d.decorators.some((x) => x === '@staticmethod');
  // The first parameter of a method is its receiver (`self`, `cls`): not an argument.
  const self = owner !== undefined && !isStatic ? all.shift() : undefined;
  const name = n.childForFieldName('name')?.text ?? '';
  const ctor = owner !== undefined && name === '__init__';
  const ret = collapse(n.childForFieldName('return_type')?.text ?? '');
  const doc = docstring(body);
  const mods = [...(n.children.some((c) => c.type === 'async') ? ['async'] : []), ...(isStatic ? ['static'] : [])];
  const calls = collect(DIALECT, body, { selves: self ? [self.name] : [], params: all.map((p) => [p.name, paramExpr(p.type)] as const) });
  const m: MethodSymbol = {
    kind: ctor ? 'constructor' : 'method',
    name: ctor ? (owner as string) : name,
    params: all,
    ...(ret && !ctor ? { returnType: ret } : {}),
    modifiers: mods,
    annotations: d.decorators,
    line: line(d.outer),
    endLine: endLine(d.outer),
    ...(doc ? { doc } : {}),
    signature: headOf(n, body, COMMENT),
    hasBody: true,
    calls,
  };
  return { m, fields: self && body ? selfFields(body, self.name) : [] };
}

/** `self.x = …` / `self.x: T = …` in a method body: the instance's fields. */
function selfFields(body: Node, self: string): VarSymbol[] {
  const out: VarSymbol[] = [];
  // A loop with its own stack: a 6,000-term expression nests deeper than recursion can go.
  const stack: Node[] = [body];
  for (let n = stack.pop(); n; n = stack.pop()) {
    if (n.type === 'class_definition' || n.type === 'function_definition' || n.type === 'lambda') continue;
    if (n.type === 'assignment') {
      const left = n.childForFieldName('left');
      if (left?.type === 'attribute' && left.childForFieldName('object')?.text === self) {
        out.push({ name: left.childForFieldName('attribute')?.text ?? '', type: fieldType(n), line: line(n) });
      }
    }
    const kids = n.namedChildren;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as Node);
  }
  return out;
}

/**
 * A field's type: its annotation, else the class it is assigned a new instance of
 * (`self.repo = Repo()`, a capitalized name called: Python's convention for classes; the
 * resolver still checks that the name is a class).
 */
function fieldType(assign: Node): string {
  const type = assign.childForFieldName('type');
  if (type) return collapse(type.text);
  const right = assign.childForFieldName('right');
  const fn = right?.type === 'call' ? right.childForFieldName('function') : undefined;
  return fn && /^[A-Z][\w.]*$/.test(fn.text.split('.').pop() ?? '') && /^[\w.]+$/.test(fn.text) ? fn.text : '';
}

function visitClass(d: Decorated, pkg: string, types: TypeSymbol[], outer?: string): void {
  const n = d.node;
  const name = n.childForFieldName('name')?.text ?? '';
  const qname = outer ? `${outer}.${name}` : name;
  const body = n.childForFieldName('body');
  const fields: VarSymbol[] = [];
  const seen = new Set<string>();
  const addField = (f: VarSymbol) => {
    if (seen.has(f.name)) return;
    seen.add(f.name);
    fields.push(f);
  };
  const methods: MethodSymbol[] = [];
  const nested: Decorated[] = [];
  for (const c of body ? kids(body) : []) {
    const inner = undecorate(c);
    if (inner?.node.type === 'function_definition') {
      const { m, fields: fs } = method(inner, name);
      methods.push(m);
      for (const f of fs) if (!methods.some((x) => x.name === f.name)) addField(f);
    } else if (inner?.node.type === 'class_definition') nested.push(inner);
    else if (c.type === 'expression_statement' && c.namedChildren[0]?.type === 'assignment') {
      const a = c.namedChildren[0];
      const left = a.childForFieldName('left');
      if (left?.type === 'identifier') addField({ name: left.text, type: fieldType(a), line: line(a), modifiers: ['static'] });
    }
  }
  const supers = n.childForFieldName('superclasses');
  const bases = supers ? kids(supers).filter((k) => k.type !== 'keyword_argument').map((k) => k.text) : [];
  const doc = docstring(body);
  types.push(
    typeSymbol({
      kind: 'class', name, qname, pkg, ...(outer ? { outer } : {}), node: d.outer, signature: headOf(n, body, COMMENT), ...(doc ? { doc } : {}),
      annotations: d.decorators, extends: bases, fields, methods,
    }),
  );
  for (const x of nested) visitClass(x, pkg, types, qname);
}

function imports(n: Node, out: ImportSymbol[]): void {
  if (n.type === 'import_statement') {
    for (const c of n.childrenForFieldName('name')) {
      if (c.type === 'aliased_import') out.push({ name: collapse(c.childForFieldName('name')?.text ?? ''), isStatic: false, onDemand: true, alias: c.childForFieldName('alias')?.text ?? '' });
      else out.push({ name: collapse(c.text), isStatic: false, onDemand: true });
    }
    return;
  }
  const from = collapse(n.childForFieldName('module_name')?.text ?? '');
  if (n.namedChildren.some((c) => c.type === 'wildcard_import')) {
    out.push({ name: from, isStatic: false, onDemand: true, member: '*' });
    return;
  }
  for (const c of n.childrenForFieldName('name')) {
    const member = collapse((c.type === 'aliased_import' ? c.childForFieldName('name') : c)?.text ?? '');
    const alias = c.type === 'aliased_import' ? (c.childForFieldName('alias')?.text ?? member) : member;
    out.push({ name: from, isStatic: false, onDemand: false, member, alias });
  }
}

/** `pkg/sub/mod.py` → `pkg.sub.mod`; `pkg/__init__.py` → `pkg`. */
const pythonModule = (relPath: string): string => relPath.replace(/\.pyi?$/, '').replace(/(^|\/)__init__$/, '').split('/').join('.');

export function extractPython(tree: Tree, lineCount: number, relPath: string): FileSymbols {
  const pkg = pythonModule(relPath);
  const types: TypeSymbol[] = [];
  const imps: ImportSymbol[] = [];
  const functions: MethodSymbol[] = [];
  /** Top-level statements that run when the module loads. */
  const statements: Node[] = [];
  /** `outermost`: the file's own statements (a nested `if`/`try` is walked whole with its outermost statement). */
  const topLevel = (nodes: readonly Node[], outermost: boolean): void => {
    for (const n of nodes) {
      const d = undecorate(n);
      if (d?.node.type === 'class_definition') visitClass(d, pkg, types);
      else if (d?.node.type === 'function_definition') functions.push(method(d, undefined).m);
      else if (n.type === 'import_statement' || n.type === 'import_from_statement') imports(n, imps);
      else {
        // Definitions under `if TYPE_CHECKING:` / `try:` at module level are still the module's.
        if (n.type === 'if_statement' || n.type === 'try_statement') blocks(n);
        if (outermost) statements.push(n);
      }
    }
  };
  const blocks = (n: Node): void => {
    for (const c of n.namedChildren) {
      if (c.type === 'block') topLevel(kids(c), false);
      else if (CLAUSES.has(c.type)) blocks(c);
    }
  };
  topLevel(kids(tree.rootNode), true);
  const init = moduleInitializer(DIALECT, statements, ['function_definition', 'decorated_definition', 'class_definition']);
  if (functions.length || init) types.push(moduleSymbol(moduleName(relPath), pkg, relPath, init ? [...functions, init] : functions, lineCount));
  return { language: 'python', package: pkg, imports: imps, types, lineCount, ...(tree.rootNode.hasError ? { hasErrors: true } : {}) };
}
