import type { Node, Tree } from 'web-tree-sitter';
import { collect, paramExpr, UNKNOWN, type Dialect } from '../parse/callSites';
import type { CallSite, EnumConstantSymbol, FileSymbols, ImportSymbol, MethodSymbol, TypeKind, TypeSymbol, VarSymbol } from '../model';
import { fieldDocTable } from '../model';
import { blockDoc, collapse, endLine, headOf, kids, line, moduleSymbol, typeSymbol } from '../parse/syntax';

/**
 * Declarations of a Kotlin file: classes (data, enum, sealed…), interfaces, `object`s and
 * companion objects (nested types named `Companion` unless named), with properties as fields,
 * the primary constructor (its `val`/`var` parameters are fields too), secondary constructors,
 * functions and `init` blocks (as Java's `<init>`). Top-level functions belong to the `module`
 * type named as the JVM names it (`Util.kt` → `UtilKt`). The package is the package header.
 */

const TYPE_NODES = new Set(['class_declaration', 'object_declaration', 'companion_object']);

const calleeOf = (call: Node): Node | undefined => call.namedChildren[0] ?? undefined;

function argc(call: Node): number {
  const args = call.namedChildren.find((c) => c.type === 'value_arguments');
  const lambda = call.namedChildren.some((c) => c.type === 'annotated_lambda') ? 1 : 0;
  return (args ? kids(args).length : 0) + lambda;
}

/** `a.b` / `a?.b`: receiver and member name. */
function navigation(n: Node): { recv: Node; name: string } | undefined {
  const k = kids(n);
  const recv = k[0];
  const name = k[k.length - 1];
  return recv && name && k.length >= 2 ? { recv, name: name.text } : undefined;
}

const DIALECT: Dialect = {
  skip: new Set([...TYPE_NODES, 'object_literal']),
  lambdas: new Set(['lambda_literal', 'anonymous_function']),
  site(node, w) {
    if (node.type === 'constructor_delegation_call') {
      return { kind: node.children.some((c) => c.type === 'super') ? 'super' : 'this', name: '', argc: argc(node) };
    }
    if (node.type !== 'call_expression') return undefined;
    const fn = calleeOf(node);
    if (fn?.type === 'identifier') return { kind: 'call', name: fn.text, argc: argc(node) };
    if (fn?.type === 'navigation_expression') {
      const nav = navigation(fn);
      return nav ? { kind: 'call', name: nav.name, argc: argc(node), recv: w.expr(nav.recv), text: w.text(nav.recv) } : undefined;
    }
    return fn ? w.opaque(fn, argc(node)) : undefined;
  },
  bind(node, w) {
    if (node.type === 'property_declaration') {
      const v = node.namedChildren.find((c) => c.type === 'variable_declaration');
      const name = v?.namedChildren[0]?.text ?? '';
      const type = v?.namedChildren[1];
      w.declare(name, type ? typeText(type) : undefined, node.namedChildren.find((c) => c.type === 'call_expression'));
    } else if (node.type === 'lambda_parameters' || node.type === 'for_statement') {
      for (const v of node.descendantsOfType('variable_declaration')) w.bind(v.namedChildren[0]?.text ?? '', UNKNOWN);
    } else if (node.type === 'lambda_literal' && !node.namedChildren.some((c) => c.type === 'lambda_parameters')) {
      w.bind('it', UNKNOWN);
    }
  },
  calls: new Set(['call_expression']),
  wrappers: new Set(['parenthesized_expression']),
  expr(node, w) {
    switch (node.type) {
      case 'this_expression':
        return w.self();
      case 'super_expression':
        return { k: 'super' };
      case 'navigation_expression': {
        const nav = navigation(node);
        return nav ? { k: 'get', o: w.expr(nav.recv), n: nav.name } : { k: '?' };
      }
      default:
        return undefined;
    }
  },
};

/** `List<Int>?` → `List<Int>?` as written, whitespace collapsed. */
const typeText = (n: Node): string => collapse(n.text);

const TYPE_NODE = /(_type|^user_type)$/;

function params(list: Node | null | undefined): { params: VarSymbol[]; varargs: boolean } {
  const out: VarSymbol[] = [];
  let varargs = false;
  let pending = false;
  for (const p of list ? kids(list) : []) {
    if (p.type === 'parameter_modifiers' || p.type === 'modifiers') {
      pending = p.text.includes('vararg');
      continue;
    }
    if (p.type !== 'parameter' && p.type !== 'class_parameter') continue;
    const name = p.namedChildren.find((c) => c.type === 'identifier')?.text ?? '';
    const type = p.namedChildren.find((c) => TYPE_NODE.test(c.type));
    const isVararg = pending || !!p.namedChildren.find((c) => c.type === 'modifiers' || c.type === 'parameter_modifiers')?.text.includes('vararg');
    if (isVararg) varargs = true;
    out.push({ name, type: (type ? typeText(type) : '') + (isVararg ? '...' : ''), line: line(p) });
    pending = false;
  }
  return { params: out, varargs };
}

function modifiersOf(n: Node): { modifiers: string[]; annotations: string[] } {
  const mods = n.namedChildren.find((c) => c.type === 'modifiers');
  const modifiers: string[] = [];
  const annotations: string[] = [];
  for (const c of mods ? kids(mods) : []) {
    if (c.type === 'annotation') annotations.push(collapse(c.text).slice(0, 80));
    else modifiers.push(c.text);
  }
  return { modifiers, annotations };
}

function func(n: Node, owner: string | undefined): MethodSymbol {
  const body = n.namedChildren.find((c) => c.type === 'function_body' || c.type === 'block') ?? null;
  const plist = n.namedChildren.find((c) => c.type === 'function_value_parameters');
  const { params: ps, varargs } = params(plist);
  const afterParams = plist ? n.namedChildren.slice(n.namedChildren.indexOf(plist) + 1) : [];
  const ret = afterParams.find((c) => TYPE_NODE.test(c.type));
  const doc = blockDoc(n);
  const ctor = n.type === 'secondary_constructor';
  const delegation = n.namedChildren.find((c) => c.type === 'constructor_delegation_call');
  const bindings = ps.map((p) => [p.name, paramExpr(p.type.replace(/\.\.\.$/, ''))] as const);
  return {
    kind: ctor ? 'constructor' : 'method',
    name: ctor ? (owner ?? '') : (n.childForFieldName('name')?.text ?? ''),
    params: ps,
    ...(varargs ? { varargs } : {}),
    ...(ret && !ctor ? { returnType: typeText(ret) } : {}),
    ...modifiersOf(n),
    line: line(n),
    endLine: endLine(n),
    ...(doc ? { doc } : {}),
    signature: headOf(n, body),
    hasBody: !!body,
    calls: [...collect(DIALECT, delegation, { params: bindings }), ...collect(DIALECT, body, { params: bindings })],
  };
}

function kindOf(n: Node): TypeKind {
  if (n.type !== 'class_declaration') return 'object';
  if (n.children.some((c) => c.type === 'interface')) return 'interface';
  if (n.namedChildren.some((c) => c.type === 'enum_class_body')) return 'enum';
  return 'class';
}

function visitType(n: Node, pkg: string, types: TypeSymbol[], outer?: string): void {
  const name = n.childForFieldName('name')?.text ?? (n.type === 'companion_object' ? 'Companion' : '');
  const qname = outer ? `${outer}.${name}` : name;
  const kind = kindOf(n);
  const body = n.namedChildren.find((c) => c.type === 'class_body' || c.type === 'enum_class_body') ?? null;
  const fields: VarSymbol[] = [];
  const fieldDocs = fieldDocTable();
  const methods: MethodSymbol[] = [];
  const enumConstants: EnumConstantSymbol[] = [];
  const nested: Node[] = [];
  const inits: CallSite[] = [];
  const primary = n.namedChildren.find((c) => c.type === 'primary_constructor');
  if (primary) {
    const plist = primary.namedChildren.find((c) => c.type === 'class_parameters');
    const { params: ps, varargs } = params(plist);
    for (const p of plist ? kids(plist) : []) {
      if (p.type === 'class_parameter' && /^\s*(\S+\s+)*(val|var)\b/.test(p.text.replace(/@\w+(\([^)]*\))?/g, ''))) {
        const f = ps.find((x) => x.name === p.namedChildren.find((c) => c.type === 'identifier')?.text);
        if (f) fields.push({ ...f, modifiers: modifiersOf(p).modifiers });
      }
    }
    methods.push({ kind: 'constructor', name, params: ps, ...(varargs ? { varargs } : {}), ...modifiersOf(primary), line: line(primary), endLine: endLine(primary), signature: `${name}${collapse(plist?.text ?? '()')}`, hasBody: true, calls: [] });
  }
  // `: Base(args)` runs with the primary constructor.
  const deleg = n.namedChildren.find((c) => c.type === 'delegation_specifiers');
  const supers: string[] = [];
  let superclass: string | undefined;
  for (const d of deleg ? kids(deleg) : []) {
    const inv = d.namedChildren.find((c) => c.type === 'constructor_invocation');
    const t = (inv ?? d).namedChildren.find((c) => TYPE_NODE.test(c.type));
    const text = t ? typeText(t) : collapse(d.text);
    if (inv) {
      superclass = text;
      const args = inv.namedChildren.find((c) => c.type === 'value_arguments');
      inits.push({ line: line(inv), kind: 'super', name: '', argc: args ? kids(args).length : 0 });
    } else supers.push(text);
  }
  for (const c of body ? kids(body) : []) {
    const doc = blockDoc(c);
    if (TYPE_NODES.has(c.type)) nested.push(c);
    else if (c.type === 'function_declaration' || c.type === 'secondary_constructor') methods.push(func(c, name));
    else if (c.type === 'property_declaration') {
      const v = c.namedChildren.find((x) => x.type === 'variable_declaration');
      const fname = v?.namedChildren[0]?.text ?? '';
      const type = v?.namedChildren[1];
      fields.push({ name: fname, type: type ? typeText(type) : '', line: line(c), modifiers: modifiersOf(c).modifiers });
      if (doc) fieldDocs[fname] = doc;
      for (const s of collect(DIALECT, c)) if (s.line >= line(c)) inits.push(s);
    } else if (c.type === 'anonymous_initializer') for (const s of collect(DIALECT, c)) inits.push(s);
    else if (c.type === 'enum_entry') enumConstants.push({ name: c.namedChildren.find((x) => x.type === 'identifier')?.text ?? '', line: line(c), ...(doc ? { doc } : {}) });
  }
  if (inits.length) {
    const ctor = methods.find((m) => m.kind === 'constructor' && m.line === (primary ? line(primary) : -1));
    if (ctor) methods[methods.indexOf(ctor)] = { ...ctor, calls: inits };
    else methods.push({ kind: 'initializer', name: '<init>', params: [], modifiers: [], annotations: [], line: line(n), endLine: endLine(n), hasBody: true, calls: inits });
  }
  const doc = blockDoc(n);
  const ext = kind === 'interface' ? supers : superclass ? [superclass] : [];
  types.push(
    typeSymbol({
      kind, name, qname, pkg, ...(outer ? { outer } : {}), node: n, signature: headOf(n, body), ...(doc ? { doc } : {}), ...modifiersOf(n),
      extends: ext, implements: kind === 'interface' ? [] : supers, fields, fieldDocs, methods, enumConstants,
    }),
  );
  for (const x of nested) visitType(x, pkg, types, qname);
}

/** The JVM class of a file's top-level functions: `util.kt` → `UtilKt`. */
const kotlinFileClass = (relPath: string): string => {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1).replace(/\.kts?$/, '');
  return `${base.charAt(0).toUpperCase()}${base.slice(1).replace(/[^\w]/g, '_')}Kt`;
};

export function extractKotlin(tree: Tree, lineCount: number, relPath: string): FileSymbols {
  const root = tree.rootNode;
  const header = root.namedChildren.find((c) => c.type === 'package_header');
  const pkg = collapse(header?.namedChildren.find((c) => c.type === 'qualified_identifier' || c.type === 'identifier')?.text ?? '').replace(/\s/g, '');
  const imps: ImportSymbol[] = [];
  const types: TypeSymbol[] = [];
  const functions: MethodSymbol[] = [];
  for (const n of kids(root)) {
    if (n.type === 'import' || n.type === 'import_header') {
      const name = (n.namedChildren.find((c) => c.type === 'qualified_identifier' || c.type === 'identifier')?.text ?? '').replace(/\s/g, '');
      const onDemand = /\.\*\s*$/.test(n.text) || n.namedChildren.some((c) => c.type === 'wildcard_import');
      const alias = n.namedChildren.filter((c) => c.type === 'identifier' || c.type === 'import_alias').pop();
      imps.push({ name, isStatic: false, onDemand, ...(alias && alias.text !== name ? { alias: alias.text.replace(/^as\s+/, '') } : {}) });
    } else if (TYPE_NODES.has(n.type)) visitType(n, pkg, types);
    else if (n.type === 'function_declaration') functions.push(func(n, undefined));
  }
  if (functions.length) {
    const name = kotlinFileClass(relPath);
    types.push(moduleSymbol(name, pkg ? `${pkg}.${name}` : name, relPath, functions, lineCount));
  }
  return { language: 'kotlin', package: pkg, imports: imps, types, lineCount, ...(root.hasError ? { hasErrors: true } : {}) };
}
