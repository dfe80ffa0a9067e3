import type { Node, Tree } from 'web-tree-sitter';
import { collectCalls, type MemberRange } from '../java/javaBody';
import { cleanType, docSummary, endLine, line, modifiersOf, namedKids, typeParamsOf, typeText } from '../parse/javaSyntax';
import type {
  CallSite,
  EnumConstantSymbol,
  FileSymbols,
  ImportSymbol,
  MethodSymbol,
  TypeKind,
  TypeSymbol,
  VarSymbol,
} from '../model';
import { fieldDocTable, withFieldDocs } from '../model';

/** Declarations of one Java file: package, imports, every type (nested ones too) and its members. */

const TYPE_KINDS: Readonly<Record<string, TypeKind>> = {
  class_declaration: 'class',
  interface_declaration: 'interface',
  enum_declaration: 'enum',
  record_declaration: 'record',
  annotation_type_declaration: 'annotation',
};

const dotted = (n: Node | undefined): string => (n ? n.text.replace(/\s+/g, '') : '');

/** `declarationsOnly`: the tree is of an outline (java/outline.ts); its calls are not looked for, and no initializer is kept. */
export function extractJava(tree: Tree, lineCount: number, declarationsOnly = false): FileSymbols {
  const root = tree.rootNode;
  let pkg = '';
  const imports: ImportSymbol[] = [];
  const types: TypeSymbol[] = [];
  const ranges: MemberRange[] = [];
  for (const n of root.namedChildren) {
    if (n.type === 'package_declaration') {
      pkg = dotted(n.namedChildren.find((c) => c.type === 'scoped_identifier' || c.type === 'identifier'));
    } else if (n.type === 'import_declaration') {
      const name = dotted(n.namedChildren.find((c) => c.type === 'scoped_identifier' || c.type === 'identifier'));
      const isStatic = n.children.some((c) => c.type === 'static');
      const onDemand = n.namedChildren.some((c) => c.type === 'asterisk');
      if (name) imports.push({ name, isStatic, onDemand });
    } else if (TYPE_KINDS[n.type]) {
      visitType(n, pkg, undefined, { types, ranges });
    }
  }
  ranges.sort((a, b) => a.start - b.start);
  const cut = declarationsOnly ? undefined : collectCalls(root, ranges);
  for (const t of types) {
    const methods = t.methods as MethodSymbol[];
    for (let i = methods.length - 1; i >= 0; i--) {
      const m = methods[i] as MethodSymbol;
      if (m.kind === 'initializer' && !m.calls.length) methods.splice(i, 1);
    }
  }
  return { language: 'java', package: pkg, imports, types, lineCount, ...(root.hasError ? { hasErrors: true } : {}), ...(cut ? { callsCut: cut } : {}) };
}

function superTypes(node: Node, kind: TypeKind): { ext: string[]; impl: string[] } {
  const listOf = (n: Node | null | undefined): string[] => {
    if (!n) return [];
    const list = n.namedChildren.find((c) => c.type === 'type_list');
    return namedKids(list ?? n).map((t) => typeText(t));
  };
  const superclass = node.childForFieldName('superclass');
  const ext = superclass ? listOf(superclass) : [];
  if (kind === 'interface') ext.push(...listOf(node.namedChildren.find((c) => c.type === 'extends_interfaces')));
  return { ext, impl: listOf(node.childForFieldName('interfaces')) };
}

function signatureOf(node: Node, body: Node | null): string {
  const text = body ? node.text.slice(0, body.startIndex - node.startIndex) : node.text;
  const one = text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, ' ').replace(/\s+/g, ' ').trim();
  return one.length > 300 ? `${one.slice(0, 297)}…` : one;
}

function paramsOf(list: Node | null): { params: VarSymbol[]; varargs: boolean } {
  const params: VarSymbol[] = [];
  let varargs = false;
  for (const p of list ? namedKids(list) : []) {
    if (p.type === 'formal_parameter') {
      const dims = p.childForFieldName('dimensions');
      const type = typeText(p.childForFieldName('type')) + (dims ? cleanType(dims.text) : '');
      params.push({ name: p.childForFieldName('name')?.text ?? '', type, line: line(p) });
    } else if (p.type === 'spread_parameter') {
      const type = namedKids(p).find((k) => k.type !== 'modifiers' && k.type !== 'variable_declarator');
      const decl = p.namedChildren.find((k) => k.type === 'variable_declarator');
      params.push({ name: decl?.childForFieldName('name')?.text ?? '', type: `${typeText(type ?? null)}...`, line: line(p) });
      varargs = true;
    }
  }
  return { params, varargs };
}

interface Sink {
  readonly types: TypeSymbol[];
  readonly ranges: MemberRange[];
}

/** A fresh calls array for a member, registered by the member's source range. */
function callsFor(sink: Sink, node: Node, params?: readonly VarSymbol[]): CallSite[] {
  const calls: CallSite[] = [];
  sink.ranges.push({ start: node.startIndex, end: node.endIndex, calls, ...(params?.length ? { params } : {}) });
  return calls;
}

function member(node: Node, typeName: string, componentParams: readonly VarSymbol[], sink: Sink): MethodSymbol | undefined {
  const { modifiers, annotations } = modifiersOf(node);
  const doc = docSummary(node);
  const body = node.childForFieldName('body');
  const base = { modifiers, annotations, line: line(node), endLine: endLine(node), ...(doc ? { doc } : {}) };
  const throwsNode = node.namedChildren.find((c) => c.type === 'throws');
  const throws = throwsNode ? namedKids(throwsNode).map((t) => typeText(t)) : undefined;
  const typeParams = typeParamsOf(node);
  const extra = { ...(throws?.length ? { throws } : {}), ...(typeParams.length ? { typeParams } : {}) };
  switch (node.type) {
    case 'method_declaration':
    case 'annotation_type_element_declaration': {
      const { params, varargs } = paramsOf(node.childForFieldName('parameters'));
      const dims = node.childForFieldName('dimensions');
      const returnType = typeText(node.childForFieldName('type')) + (dims ? cleanType(dims.text) : '');
      const name = node.childForFieldName('name')?.text ?? '';
      return { kind: 'method', name, params, ...(varargs ? { varargs } : {}), returnType, ...extra, ...base, hasBody: !!body, calls: body ? callsFor(sink, node) : [] };
    }
    case 'constructor_declaration': {
      const { params, varargs } = paramsOf(node.childForFieldName('parameters'));
      return { kind: 'constructor', name: typeName, params, ...(varargs ? { varargs } : {}), ...extra, ...base, hasBody: true, calls: callsFor(sink, node) };
    }
    case 'compact_constructor_declaration':
      return { kind: 'constructor', name: typeName, params: componentParams, ...base, hasBody: true, calls: callsFor(sink, node, componentParams) };
    default:
      return undefined;
  }
}

function initializer(node: Node, isStatic: boolean, sink: Sink): MethodSymbol {
  const calls = callsFor(sink, node);
  return {
    kind: 'initializer',
    name: isStatic ? '<clinit>' : '<init>',
    params: [],
    modifiers: isStatic ? ['static'] : [],
    annotations: [],
    line: line(node),
    endLine: endLine(node),
    hasBody: true,
    calls,
  };
}

function visitType(node: Node, pkg: string, outer: TypeSymbol | undefined, sink: Sink): void {
  const kind = TYPE_KINDS[node.type];
  const name = node.childForFieldName('name')?.text;
  if (!kind || !name) return;
  const qname = outer ? `${outer.qname}.${name}` : name;
  const { modifiers, annotations } = modifiersOf(node);
  const { ext, impl } = superTypes(node, kind);
  const body = node.childForFieldName('body');
  const doc = docSummary(node);
  const components = kind === 'record' ? paramsOf(node.childForFieldName('parameters')).params : [];
  const fields: VarSymbol[] = [];
  const fieldDocs = fieldDocTable();
  const methods: MethodSymbol[] = [];
  const enumConstants: EnumConstantSymbol[] = [];
  const nested: Node[] = [];
  const staticContext = kind === 'interface' || kind === 'annotation';

  const visitMembers = (container: Node): void => {
    for (const c of container.namedChildren) {
      switch (c.type) {
        case 'field_declaration':
        case 'constant_declaration': {
          const mods = modifiersOf(c);
          const type = typeText(c.childForFieldName('type'));
          const fdoc = docSummary(c);
          let hasValue = false;
          for (const d of c.childrenForFieldName('declarator')) {
            const fname = d.childForFieldName('name')?.text ?? '';
            const dims = d.childForFieldName('dimensions');
            fields.push({ name: fname, type: dims ? type + cleanType(dims.text) : type, line: line(d), modifiers: mods.modifiers });
            if (fdoc) fieldDocs[fname] = fdoc;
            if (d.childForFieldName('value')) hasValue = true;
          }
          if (hasValue) methods.push(initializer(c, staticContext || mods.modifiers.includes('static'), sink));
          break;
        }
        case 'static_initializer':
          methods.push(initializer(c, true, sink));
          break;
        case 'block':
          methods.push(initializer(c, false, sink));
          break;
        case 'enum_constant': {
          const cdoc = docSummary(c);
          enumConstants.push({ name: c.childForFieldName('name')?.text ?? '', line: line(c), ...(cdoc ? { doc: cdoc } : {}) });
          if (c.childForFieldName('arguments') || c.childForFieldName('body')) methods.push(initializer(c, true, sink));
          break;
        }
        case 'enum_body_declarations':
          visitMembers(c);
          break;
        default:
          if (TYPE_KINDS[c.type]) nested.push(c);
          else {
            const m = member(c, name, components, sink);
            if (m) methods.push(m);
          }
      }
    }
  };
  if (body) visitMembers(body);

  const type: TypeSymbol = {
    kind,
    name,
    qname,
    fqn: pkg ? `${pkg}.${qname}` : qname,
    ...(outer ? { outer: outer.qname } : {}),
    modifiers,
    annotations,
    typeParams: typeParamsOf(node),
    extends: ext,
    implements: impl,
    line: line(node),
    endLine: endLine(node),
    signature: signatureOf(node, body),
    ...(doc ? { doc } : {}),
    fields: withFieldDocs(fields, fieldDocs),
    methods,
    enumConstants,
    components,
  };
  sink.types.push(type);
  for (const n of nested) visitType(n, pkg, type, sink);
}
