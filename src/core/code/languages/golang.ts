import type { Node, Tree } from 'web-tree-sitter';
import { collect, paramExpr, UNKNOWN, type Dialect, type Walker } from '../parse/callSites';
import { moduleName } from '../model';
import type { Expr, FileSymbols, ImportSymbol, MethodSymbol, TypeKind, TypeSymbol, VarSymbol } from '../model';
import { collapse, endLine, headOf, kids, line, lineDoc, moduleSymbol, typeSymbol } from '../parse/syntax';

/**
 * Declarations of a Go file: struct and interface types (other defined types as `type`) with
 * their fields and methods, methods attached by receiver type; functions in the file's `module`
 * type. The package is the package clause's name. A type's range runs to the end of its last
 * method in the file, so read_class "full" shows them. A method whose receiver type is declared in
 * another file of the package gets a type entry of its own in this file (kind `struct`, the
 * signature says so): one file is parsed at a time.
 */

/** Go's predeclared functions and types: calling them is the language, not a call into code. */
const BUILTINS = new Set(
  ('append cap clear close complex copy delete imag len make max min new panic print println real recover ' +
    'bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any').split(' '),
);

/** `*pkg.T[int]` → `pkg.T`. */
/** The named type of a declaration (`*pkg.T` → pkg.T, `List[T]` → List); a slice, array, map or channel is kept whole, so it reads as the built-in it is. */
const goTypeName = (text: string): string => {
  const t = text.replace(/^[*&\s]+/, '').trim();
  return /^(\[|map\[|chan\b|<-\s*chan\b)/.test(t) ? t : t.replace(/\[.*$/s, '').trim();
};

const DIALECT: Dialect = {
  skip: new Set(),
  lambdas: new Set(['func_literal']),
  site(node, w) {
    if (node.type !== 'call_expression') return undefined;
    const fn = node.childForFieldName('function');
    const args = node.childForFieldName('arguments');
    const argc = args ? kids(args).length : 0;
    if (fn?.type === 'identifier') return BUILTINS.has(fn.text) && w.name(fn.text).k === 'id' ? undefined : { kind: 'call', name: fn.text, argc };
    if (fn?.type === 'selector_expression') {
      const operand = fn.childForFieldName('operand');
      const name = fn.childForFieldName('field')?.text ?? '';
      return operand ? { kind: 'call', name, argc, recv: w.expr(operand), text: w.text(operand) } : undefined;
    }
    if (fn?.type === 'func_literal' || fn?.type === 'parenthesized_type' || fn?.type === 'array_type' || fn?.type === 'pointer_type') return undefined;
    return fn ? w.opaque(fn, argc) : undefined;
  },
  bind(node, w) {
    if (node.type === 'short_var_declaration' || node.type === 'assignment_statement' && node.children.some((c) => c.type === ':=')) {
      const left = node.childForFieldName('left')?.namedChildren ?? [];
      const right = node.childForFieldName('right')?.namedChildren ?? [];
      left.forEach((l, i) => {
        const r = right[i];
        w.bind(l.text, left.length === right.length && r ? valueExpr(r, w) : UNKNOWN);
      });
    } else if (node.type === 'var_spec') {
      const type = node.childForFieldName('type');
      const values = node.childForFieldName('value')?.namedChildren ?? [];
      node.childrenForFieldName('name').forEach((n, i) => {
        const v = values[i];
        w.bind(n.text, type ? paramExpr(goTypeName(type.text)) : v ? valueExpr(v, w) : UNKNOWN);
      });
    } else if (node.type === 'range_clause') {
      for (const n of node.childForFieldName('left')?.namedChildren ?? []) w.bind(n.text, UNKNOWN);
    } else if (node.type === 'func_literal') {
      for (const p of params(node.childForFieldName('parameters'))) w.bind(p.name, paramExpr(goTypeName(p.type)));
    }
  },
  calls: new Set(['call_expression']),
  wrappers: new Set(['parenthesized_expression']),
  expr(node, w) {
    if (node.type !== 'selector_expression') return node.type === 'composite_literal' || node.type === 'unary_expression' ? valueExpr(node, w) : undefined;
    const o = node.childForFieldName('operand');
    return o ? { k: 'get', o: w.expr(o), n: node.childForFieldName('field')?.text ?? '' } : { k: '?' };
  },
};

/** What a value is, when it says its type: `T{…}`, `&T{…}`, `new(T)`, a call. */
function valueExpr(v: Node, w: Walker): Expr {
  if (v.type === 'composite_literal') return { k: 't', t: goTypeName(v.childForFieldName('type')?.text ?? '') };
  if (v.type === 'unary_expression' && v.childForFieldName('operand')?.type === 'composite_literal') return valueExpr(v.childForFieldName('operand') as Node, w);
  if (v.type === 'call_expression') {
    const fn = v.childForFieldName('function');
    const arg = v.childForFieldName('arguments')?.namedChildren[0];
    if (fn?.text === 'new' && arg) return { k: 't', t: goTypeName(arg.text) };
    return w.expr(v);
  }
  if (v.type === 'identifier' || v.type === 'selector_expression') return w.expr(v);
  return UNKNOWN;
}

function params(list: Node | null | undefined): VarSymbol[] {
  const out: VarSymbol[] = [];
  for (const p of list ? kids(list) : []) {
    const type = collapse(p.childForFieldName('type')?.text ?? '');
    const names = p.childrenForFieldName('name');
    const variadic = p.type === 'variadic_parameter_declaration' ? '...' : '';
    if (!names.length) out.push({ name: '', type: variadic + type, line: line(p) });
    for (const n of names) out.push({ name: n.text, type: variadic + type, line: line(p) });
  }
  return out;
}

function func(n: Node, receiver?: VarSymbol): MethodSymbol {
  const body = n.childForFieldName('body');
  const ps = params(n.childForFieldName('parameters'));
  const ret = collapse(n.childForFieldName('result')?.text ?? '');
  const doc = lineDoc(n, '//');
  const bindings = ps.map((p) => [p.name, paramExpr(goTypeName(p.type.replace(/^\.\.\./, '[]')))] as const);
  return {
    kind: 'method',
    name: n.childForFieldName('name')?.text ?? '',
    params: ps,
    ...(ret ? { returnType: ret } : {}),
    modifiers: [],
    annotations: [],
    line: line(n),
    endLine: endLine(n),
    ...(doc ? { doc } : {}),
    signature: headOf(n, body),
    hasBody: !!body,
    calls: collect(DIALECT, body, { selves: receiver?.name ? [receiver.name] : [], params: bindings }),
  };
}

export function extractGo(tree: Tree, lineCount: number, relPath: string): FileSymbols {
  const root = tree.rootNode;
  const pkg = root.namedChildren.find((c) => c.type === 'package_clause')?.namedChildren[0]?.text ?? '';
  const imps: ImportSymbol[] = [];
  const types: TypeSymbol[] = [];
  const byName = new Map<string, { fields: VarSymbol[]; methods: MethodSymbol[] }>();
  const functions: MethodSymbol[] = [];
  const receivers: Array<{ type: string; m: MethodSymbol; node: Node }> = [];
  const declared: Array<() => TypeSymbol> = [];
  for (const n of kids(root)) {
    if (n.type === 'import_declaration') {
      const specs = n.descendantsOfType('import_spec');
      for (const s of specs) {
        const p = s.childForFieldName('path')?.text.replace(/^["`]|["`]$/g, '') ?? '';
        const alias = s.childForFieldName('name')?.text;
        imps.push({ name: p, isStatic: false, onDemand: true, ...(alias ? { alias } : {}) });
      }
    } else if (n.type === 'type_declaration') {
      for (const spec of n.namedChildren.filter((c) => c.type === 'type_spec' || c.type === 'type_alias')) {
        const name = spec.childForFieldName('name')?.text ?? '';
        const t = spec.childForFieldName('type');
        const kind: TypeKind = t?.type === 'struct_type' ? 'struct' : t?.type === 'interface_type' ? 'interface' : 'type';
        const fields: VarSymbol[] = [];
        const methods: MethodSymbol[] = [];
        const ext: string[] = [];
        if (t?.type === 'struct_type') {
          for (const f of t.descendantsOfType('field_declaration')) {
            const type = collapse(f.childForFieldName('type')?.text ?? '');
            const names = f.childrenForFieldName('name');
            if (!names.length) ext.push(goTypeName(type)); // embedded: its methods are promoted
            for (const fn of names) fields.push({ name: fn.text, type, line: line(f) });
          }
        } else if (t?.type === 'interface_type') {
          for (const m of kids(t)) {
            if (m.type === 'method_elem' || m.type === 'method_spec') methods.push({ ...func(m), hasBody: false });
            else if (m.type === 'type_elem' || m.type === 'constraint_elem') ext.push(collapse(m.text));
          }
        }
        byName.set(name, { fields, methods });
        const doc = lineDoc(spec, '//') ?? (n.namedChildren.length === 1 ? lineDoc(n, '//') : undefined);
        const head = n.namedChildren.length === 1 ? n : spec;
        declared.push(() => typeSymbol({ kind, name, pkg, node: head, signature: `type ${headOf(spec, t?.type === 'struct_type' || t?.type === 'interface_type' ? t.namedChildren[0] ?? null : null)}`.replace(/\s*\{$/, ''), ...(doc ? { doc } : {}), extends: ext, fields, methods }));
      }
    } else if (n.type === 'function_declaration') functions.push(func(n));
    else if (n.type === 'method_declaration') {
      const recv = params(n.childForFieldName('receiver'))[0];
      const m = func(n, recv);
      receivers.push({ type: goTypeName(recv?.type ?? ''), m: { ...m, params: m.params }, node: n });
    }
  }
  for (const r of receivers) {
    const own = byName.get(r.type);
    if (own) own.methods.push(r.m);
  }
  // A type's range runs to its last method in the file: read_class "full" shows them (Go keeps a type's methods after it).
  for (const make of declared) {
    const t = make();
    types.push({ ...t, endLine: t.methods.reduce((end, m) => Math.max(end, m.endLine), t.endLine) });
  }
  // Methods on a type declared in another file of the package.
  const elsewhere = new Map<string, { methods: MethodSymbol[]; first: Node; last: Node }>();
  for (const r of receivers) {
    if (byName.has(r.type)) continue;
    const e = elsewhere.get(r.type);
    if (e) {
      e.methods.push(r.m);
      e.last = r.node;
    } else elsewhere.set(r.type, { methods: [r.m], first: r.node, last: r.node });
  }
  for (const [name, e] of elsewhere) {
    const t = typeSymbol({ kind: 'struct', name, pkg, node: e.first, signature: `methods of ${name} (declared in another file of package ${pkg})`, methods: e.methods });
    types.push({ ...t, endLine: endLine(e.last) });
  }
  if (functions.length) types.push(moduleSymbol(moduleName(relPath), pkg ? `${pkg}.${moduleName(relPath)}` : moduleName(relPath), relPath, functions, lineCount));
  return { language: 'go', package: pkg, imports: imps, types, lineCount, ...(root.hasError ? { hasErrors: true } : {}) };
}
