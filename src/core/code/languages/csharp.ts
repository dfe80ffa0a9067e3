import type { Node, Tree } from 'web-tree-sitter';
import { collect, paramExpr, UNKNOWN, type Dialect } from '../parse/callSites';
import type { EnumConstantSymbol, FileSymbols, ImportSymbol, MethodSymbol, TypeKind, TypeSymbol, VarSymbol } from '../model';
import { fieldDocTable } from '../model';
import { collapse, endLine, headOf, kids, line, lineDoc, typeSymbol } from '../parse/syntax';

/**
 * Declarations of a C# file: classes, interfaces, structs, enums and records (nested ones too)
 * with fields, properties (as fields), constructors and methods; attributes as annotations, the
 * `<summary>` of `///` comments as doc. The package is the namespace (block or file-scoped,
 * nested ones joined); `using` directives are imports.
 */

const TYPE_NODES: Readonly<Record<string, TypeKind>> = {
  class_declaration: 'class',
  interface_declaration: 'interface',
  struct_declaration: 'struct',
  enum_declaration: 'enum',
  record_declaration: 'record',
  record_struct_declaration: 'record',
};

const DIALECT: Dialect = {
  skip: new Set(Object.keys(TYPE_NODES)),
  lambdas: new Set(['lambda_expression', 'anonymous_method_expression', 'local_function_statement']),
  site(node, w) {
    const args = node.childForFieldName('arguments') ?? node.namedChildren.find((c) => c.type === 'argument_list');
    const argc = args ? kids(args).length : 0;
    if (node.type === 'object_creation_expression') {
      const type = node.childForFieldName('type');
      return type ? { kind: 'new', name: collapse(type.text), argc } : undefined;
    }
    if (node.type === 'constructor_initializer') return { kind: node.children.some((c) => c.type === 'base') ? 'super' : 'this', name: '', argc };
    if (node.type !== 'invocation_expression') return undefined;
    const fn = node.childForFieldName('function');
    if (fn?.type === 'identifier') return { kind: 'call', name: fn.text, argc };
    if (fn?.type === 'generic_name') return { kind: 'call', name: fn.namedChildren[0]?.text ?? '', argc };
    if (fn?.type === 'member_access_expression') {
      const object = receiverOf(fn);
      const nameNode = fn.childForFieldName('name');
      const name = nameNode?.type === 'generic_name' ? (nameNode.namedChildren[0]?.text ?? '') : (nameNode?.text ?? '');
      return object ? { kind: 'call', name, argc, recv: w.expr(object), text: w.text(object) } : undefined;
    }
    return fn ? w.opaque(fn, argc) : undefined;
  },
  bind(node, w) {
    if (node.type === 'variable_declaration') {
      const type = node.childForFieldName('type');
      const implicit = !type || type.type === 'implicit_type' || type.text === 'var';
      for (const d of node.namedChildren.filter((c) => c.type === 'variable_declarator')) {
        const name = d.childForFieldName('name')?.text ?? d.namedChildren[0]?.text ?? '';
        const value = d.namedChildren.find((c) => c.type === 'object_creation_expression');
        w.bind(name, !implicit ? paramExpr(collapse(type.text)) : value ? w.expr(value) : UNKNOWN);
      }
    } else if (node.type === 'foreach_statement') {
      const left = node.childForFieldName('left');
      const type = node.childForFieldName('type');
      if (left) w.bind(left.text, type && type.text !== 'var' ? paramExpr(collapse(type.text)) : UNKNOWN);
    } else if (node.type === 'parameter_list' || node.type === 'catch_declaration') {
      for (const p of node.type === 'parameter_list' ? params(node) : []) w.bind(p.name, paramExpr(p.type));
    }
  },
  calls: new Set(['invocation_expression']),
  wrappers: new Set(['parenthesized_expression']),
  expr(node, w) {
    switch (node.type) {
      case 'this':
      case 'this_expression':
        return w.self();
      case 'base':
      case 'base_expression':
        return { k: 'super' };
      case 'identifier':
        return node.text === 'this' ? w.self() : node.text === 'base' ? { k: 'super' } : undefined;
      case 'member_access_expression': {
        const o = receiverOf(node);
        return o ? { k: 'get', o: w.expr(o), n: node.childForFieldName('name')?.text ?? '' } : { k: '?' };
      }
      case 'object_creation_expression': {
        const t = node.childForFieldName('type');
        return t ? { k: 'new', t: collapse(t.text) } : { k: '?' };
      }
      case 'cast_expression': {
        const t = node.childForFieldName('type');
        return t ? { k: 't', t: collapse(t.text) } : { k: '?' };
      }
      default:
        return undefined;
    }
  },
};

/** The object of `a.b`: the grammar leaves a `this` / `base` receiver unnamed. */
const receiverOf = (access: Node): Node | null =>
  access.childForFieldName('expression') ?? access.children.find((c) => c.type === 'this' || c.type === 'base') ?? null;

function params(list: Node | null | undefined): VarSymbol[] {
  return (list ? kids(list) : [])
    .filter((p) => p.type === 'parameter')
    .map((p) => ({ name: p.childForFieldName('name')?.text ?? '', type: collapse(p.childForFieldName('type')?.text ?? ''), line: line(p) }));
}

function modifiers(n: Node): { modifiers: string[]; annotations: string[] } {
  const mods = n.namedChildren.filter((c) => c.type === 'modifier').map((c) => c.text);
  const annotations = n.namedChildren.filter((c) => c.type === 'attribute_list').map((c) => collapse(c.text).slice(0, 80));
  return { modifiers: mods, annotations };
}

const doc = (n: Node): string | undefined => lineDoc(n, '///');

function member(n: Node, owner: string): MethodSymbol | undefined {
  const body = n.childForFieldName('body') ?? n.namedChildren.find((c) => c.type === 'block' || c.type === 'arrow_expression_clause') ?? null;
  const ps = params(n.childForFieldName('parameters'));
  const bindings = ps.map((p) => [p.name, paramExpr(p.type)] as const);
  const d = doc(n);
  const base = {
    params: ps,
    ...modifiers(n),
    line: line(n),
    endLine: endLine(n),
    ...(d ? { doc: d } : {}),
    signature: headOf(n, body),
    hasBody: !!body,
  };
  if (n.type === 'constructor_declaration') {
    const init = n.namedChildren.find((c) => c.type === 'constructor_initializer');
    const calls = [...collect(DIALECT, init, { params: bindings }), ...collect(DIALECT, body, { params: bindings })];
    return { kind: 'constructor', name: owner, ...base, calls };
  }
  if (n.type === 'method_declaration' || n.type === 'operator_declaration') {
    const ret = collapse((n.childForFieldName('returns') ?? n.childForFieldName('type'))?.text ?? '');
    const name = n.childForFieldName('name')?.text ?? 'operator';
    return { kind: 'method', name, ...(ret ? { returnType: ret } : {}), ...base, calls: collect(DIALECT, body, { params: bindings }) };
  }
  return undefined;
}

function visitType(n: Node, kind: TypeKind, pkg: string, types: TypeSymbol[], outer?: string): void {
  const name = n.childForFieldName('name')?.text ?? '';
  const qname = outer ? `${outer}.${name}` : name;
  const body = n.childForFieldName('body') ?? null;
  const fields: VarSymbol[] = [];
  const fieldDocs = fieldDocTable();
  const methods: MethodSymbol[] = [];
  const enumConstants: EnumConstantSymbol[] = [];
  const nested: Array<[Node, TypeKind]> = [];
  const inits: MethodSymbol['calls'][number][] = [];
  // Record parameters are components and properties.
  const components = params(n.namedChildren.find((c) => c.type === 'parameter_list'));
  for (const c of body ? kids(body) : []) {
    const d = doc(c);
    const k = TYPE_NODES[c.type];
    if (k) nested.push([c, k]);
    else if (c.type === 'field_declaration' || c.type === 'event_field_declaration') {
      const decl = c.namedChildren.find((x) => x.type === 'variable_declaration');
      const type = collapse(decl?.childForFieldName('type')?.text ?? '');
      for (const v of decl?.namedChildren.filter((x) => x.type === 'variable_declarator') ?? []) {
        const fname = v.childForFieldName('name')?.text ?? v.namedChildren[0]?.text ?? '';
        fields.push({ name: fname, type, line: line(v), modifiers: modifiers(c).modifiers });
        if (d) fieldDocs[fname] = d;
        for (const site of collect(DIALECT, v)) inits.push(site); // a loop: a spread of 100,000 sites overflows the stack
      }
    } else if (c.type === 'property_declaration') {
      const pname = c.childForFieldName('name')?.text ?? '';
      fields.push({ name: pname, type: collapse(c.childForFieldName('type')?.text ?? ''), line: line(c), modifiers: [...modifiers(c).modifiers, 'property'] });
      if (d) fieldDocs[pname] = d;
    } else if (c.type === 'enum_member_declaration') {
      enumConstants.push({ name: c.childForFieldName('name')?.text ?? '', line: line(c), ...(d ? { doc: d } : {}) });
    } else {
      const m = member(c, name);
      if (m) methods.push(m);
    }
  }
  if (inits.length) methods.push({ kind: 'initializer', name: '<init>', params: [], modifiers: [], annotations: [], line: line(n), endLine: endLine(n), hasBody: true, calls: inits });
  const baseList = n.namedChildren.find((c) => c.type === 'base_list');
  const bases = baseList ? kids(baseList).filter((b) => b.type !== 'argument_list').map((b) => collapse(b.text)) : [];
  // C# does not say which base is the class: by convention interfaces are named I + capital.
  const isIface = (b: string) => /^I[A-Z]/.test(b.replace(/^.*\./, ''));
  const ext = kind === 'interface' ? bases : bases.filter((b) => !isIface(b)).slice(0, 1);
  const d = doc(n);
  types.push(
    typeSymbol({
      kind, name, qname, pkg, ...(outer ? { outer } : {}), node: n, signature: headOf(n, body), ...(d ? { doc: d } : {}), ...modifiers(n),
      extends: ext, implements: bases.filter((b) => !ext.includes(b)), fields, fieldDocs, methods, enumConstants, components,
    }),
  );
  for (const [c, k] of nested) visitType(c, k, pkg, types, qname);
}

export function extractCSharp(tree: Tree, lineCount: number): FileSymbols {
  const imps: ImportSymbol[] = [];
  const types: TypeSymbol[] = [];
  let filePkg = '';
  const visit = (nodes: readonly Node[], ns: string): void => {
    for (const n of nodes) {
      const k = TYPE_NODES[n.type];
      if (k) visitType(n, k, ns, types);
      else if (n.type === 'using_directive') {
        const alias = n.childForFieldName('name')?.text;
        const target = n.namedChildren.filter((c) => c.type !== 'comment' && c !== n.childForFieldName('name')).pop();
        if (target) imps.push({ name: collapse(target.text), isStatic: n.children.some((c) => c.type === 'static'), onDemand: !alias, ...(alias ? { alias } : {}) });
      } else if (n.type === 'namespace_declaration') {
        const name = collapse(n.childForFieldName('name')?.text ?? '');
        const inner = ns ? `${ns}.${name}` : name;
        filePkg ||= inner;
        visit(kids(n.childForFieldName('body') ?? n), inner);
      } else if (n.type === 'file_scoped_namespace_declaration') {
        const name = collapse(n.childForFieldName('name')?.text ?? '');
        filePkg = name;
        ns = name; // the declarations after it, its siblings, are in it
      }
    }
  };
  visit(kids(tree.rootNode), '');
  return { language: 'csharp', package: filePkg, imports: imps, types, lineCount, ...(tree.rootNode.hasError ? { hasErrors: true } : {}) };
}
