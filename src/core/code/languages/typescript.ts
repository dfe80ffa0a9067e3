import type { Node, Tree } from 'web-tree-sitter';
import { collect, moduleInitializer, paramExpr, UNKNOWN, type Dialect, type Walker } from '../parse/callSites';
import { fieldDocTable, moduleName } from '../model';
import type { CallSite, EnumConstantSymbol, FileSymbols, ImportSymbol, LanguageId, MethodSymbol, TypeKind, TypeSymbol, VarSymbol } from '../model';
import { scriptImports, scriptRequire } from './typescriptImports';
import { blockDoc, dottedModule, endLine, headOf, kids, line, moduleSymbol, typeOf, typeSymbol } from '../parse/syntax';

/**
 * Declarations of a TypeScript, TSX or JavaScript file (one grammar family, the same node types):
 * classes (abstract ones too), interfaces, enums and type aliases with their members; top-level
 * functions and `const f = () => …` in the file's `module` type. The package is the module's
 * path, dotted (`src/app/util.ts` → `src.app.util`), and is also the module type's fqn.
 * Imports (`import … from`, `require(…)`) keep the specifier as written, for the resolver.
 */

const CLASS_NODES: Readonly<Record<string, TypeKind>> = {
  class_declaration: 'class',
  abstract_class_declaration: 'class',
  class: 'class',
  interface_declaration: 'interface',
  enum_declaration: 'enum',
  type_alias_declaration: 'type',
};
const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
/** Top-level statements whose calls run when the module loads (declarations of functions, classes and imports are not). */
const RUNS_AT_LOAD = new Set([
  'expression_statement', 'if_statement', 'for_statement', 'for_in_statement', 'while_statement', 'do_statement',
  'try_statement', 'switch_statement', 'statement_block', 'labeled_statement',
]);
/** `main();`, `if (…) {…}`, `export default defineConfig({…})`; not a namespace, a function or a class. */
const runsAtLoad = (statement: Node, decl: Node): boolean =>
  statement.type === 'export_statement'
    ? !statement.childForFieldName('declaration') && !FUNCTION_VALUES.has(decl.type) && !CLASS_NODES[decl.type]
    : RUNS_AT_LOAD.has(decl.type) && decl.namedChildren[0]?.type !== 'internal_module';
const KEYWORDS = new Set(['static', 'async', 'get', 'set', 'abstract', 'readonly', 'declare', 'override', 'export', 'default', '*', 'accessor']);

/** Function declarations are functions of their own wherever they are, inside a callback too (`nestedFunctions`). */
const DECLARED_FUNCTIONS = ['function_declaration', 'generator_function_declaration'];

const DIALECT: Dialect = {
  skip: new Set([...Object.keys(CLASS_NODES), ...DECLARED_FUNCTIONS]),
  lambdas: new Set(['arrow_function', 'function_expression', 'function', 'function_declaration', 'generator_function', 'generator_function_declaration']),
  ownThis: new Set(['function_expression', 'function', 'function_declaration', 'generator_function', 'generator_function_declaration']),
  site(node, w) {
    if (node.type === 'new_expression') {
      const ctor = node.childForFieldName('constructor');
      return ctor ? { kind: 'new', name: ctor.text.replace(/\s+/g, ''), argc: argc(node) } : undefined;
    }
    if (node.type !== 'call_expression') return undefined;
    const fn = node.childForFieldName('function');
    if (!fn) return undefined;
    if (fn.type === 'super') return { kind: 'super', name: '', argc: argc(node) };
    if (fn.type === 'identifier') return fn.text === 'require' ? undefined : { kind: 'call', name: fn.text, argc: argc(node) };
    if (fn.type === 'member_expression') {
      const object = fn.childForFieldName('object');
      const name = fn.childForFieldName('property')?.text ?? '';
      return object ? { kind: 'call', name, argc: argc(node), recv: w.expr(object), text: w.text(object) } : undefined;
    }
    // `(a || b)()`, `fns[i]()`, an IIFE: what is called has no name.
    if (FUNCTION_VALUES.has(fn.type) || fn.type === 'parenthesized_expression' && FUNCTION_VALUES.has(fn.namedChildren[0]?.type ?? '')) return undefined;
    return w.opaque(fn, argc(node));
  },
  bind(node, w) {
    if (node.type === 'variable_declarator') {
      const name = node.childForFieldName('name');
      const type = node.childForFieldName('type');
      if (name?.type !== 'identifier') return bindPattern(name, w);
      w.declare(name.text, typeOf(type), node.childForFieldName('value'));
    } else if (node.type === 'formal_parameters') {
      for (const p of params(node)) w.bind(p.name, paramExpr(p.type));
    } else if (node.type === 'for_in_statement' || node.type === 'catch_clause') {
      bindPattern(node.childForFieldName('left') ?? node.childForFieldName('parameter'), w);
    }
  },
  calls: new Set(['call_expression']),
  creations: new Set(['new_expression']),
  wrappers: new Set(['parenthesized_expression', 'non_null_expression', 'await_expression']),
  expr(node, w) {
    switch (node.type) {
      case 'this':
        return w.self();
      case 'super':
        return { k: 'super' };
      case 'member_expression': {
        const o = node.childForFieldName('object');
        return o ? { k: 'get', o: w.expr(o), n: node.childForFieldName('property')?.text ?? '' } : { k: '?' };
      }
      case 'new_expression': {
        const c = node.childForFieldName('constructor');
        return c ? { k: 'new', t: c.text.replace(/\s+/g, '') } : { k: '?' };
      }
      case 'subscript_expression': {
        const o = node.childForFieldName('object');
        return o ? { k: 'idx', o: w.expr(o) } : { k: '?' };
      }
      case 'as_expression':
      case 'satisfies_expression': {
        const t = node.namedChildren[1];
        return t ? { k: 't', t: t.text } : { k: '?' };
      }
      default:
        return undefined;
    }
  },
};

function argc(call: Node): number {
  const args = call.childForFieldName('arguments');
  return args ? kids(args).length : 0;
}

function bindPattern(p: Node | null | undefined, w: Walker): void {
  if (!p) return;
  if (p.type === 'identifier' || p.type === 'shorthand_property_identifier_pattern') w.bind(p.text, UNKNOWN);
  else for (const c of p.namedChildren) if (c.type !== 'property_identifier') bindPattern(c, w);
}

/** Parameters of a `formal_parameters` node: TypeScript's typed ones and JavaScript's patterns. */
function params(list: Node | null): VarSymbol[] {
  const out: VarSymbol[] = [];
  for (const p of list ? kids(list) : []) {
    let target: Node | null = p;
    let type = '';
    if (p.type === 'required_parameter' || p.type === 'optional_parameter') {
      target = p.childForFieldName('pattern');
      type = typeOf(p.childForFieldName('type'));
    }
    if (target?.type === 'assignment_pattern') target = target.childForFieldName('left');
    if (target?.type === 'rest_pattern') target = target.namedChildren[0] ?? null;
    out.push({ name: target?.type === 'identifier' ? target.text : (target?.text ?? p.text), type, line: line(p) });
  }
  return out;
}

function modifiersOf(node: Node): string[] {
  const out: string[] = [];
  for (const c of node.children) {
    if (c.type === 'accessibility_modifier' || c.type === 'override_modifier') out.push(c.text);
    else if (!c.isNamed && KEYWORDS.has(c.type)) out.push(c.type);
    if (c === node.childForFieldName('name')) break;
  }
  return out;
}

/** Decorators of a declaration: its own children, or the export statement's around it. */
function decorators(node: Node): string[] {
  const own = node.children.filter((c) => c.type === 'decorator');
  const parent = node.parent?.type === 'export_statement' ? node.parent.children.filter((c) => c.type === 'decorator') : [];
  let prev = node.previousNamedSibling;
  const before: Node[] = [];
  while (prev?.type === 'decorator') {
    before.unshift(prev);
    prev = prev.previousNamedSibling;
  }
  return [...new Set([...parent, ...before, ...own].map((d) => d.text.replace(/\s+/g, ' ').slice(0, 80)))];
}

/** The doc comment above a declaration, or above the export statement that holds it. */
const docOf = (node: Node): string | undefined => blockDoc(node) ?? (node.parent?.type === 'export_statement' ? blockDoc(node.parent) : undefined);

interface Scope {
  readonly functions: MethodSymbol[];
  readonly vars: VarSymbol[];
}

interface Ctx {
  readonly pkg: string;
  /** JavaScript declares fields by assigning them in the constructor. */
  readonly js: boolean;
  readonly types: TypeSymbol[];
  /** Functions declared inside a method's body: the file module's, as a user names them. */
  readonly nested: MethodSymbol[];
}

/** `new Map<string, P>()` → `Map<string, P>`: the type of a value created where it is declared. */
function createdType(value: Node | null): string {
  const ctor = value?.type === 'new_expression' ? value.childForFieldName('constructor') : null;
  return ctor && /^[\w$.]+$/.test(ctor.text) ? `${ctor.text}${value?.childForFieldName('type_arguments')?.text.replace(/\s+/g, ' ') ?? ''}` : '';
}

/** Function declarations anywhere inside `node`'s body (a callback's too), each a function with its own calls. */
function nestedFunctions(node: Node, into: MethodSymbol[]): void {
  const value = node.childForFieldName('value');
  const body = (value && FUNCTION_VALUES.has(value.type) ? value : node).childForFieldName('body');
  for (const d of body ? body.descendantsOfType(DECLARED_FUNCTIONS) : []) if (d) into.push(method(d, undefined));
}

function method(node: Node, ownerName: string | undefined, extra: Partial<MethodSymbol> = {}): MethodSymbol {
  const value = FUNCTION_VALUES.has(node.childForFieldName('value')?.type ?? '') ? node.childForFieldName('value') : null;
  const fn = value ?? node;
  const body = fn.childForFieldName('body');
  const name = node.childForFieldName('name')?.text ?? node.childForFieldName('property')?.text ?? 'default';
  const ps = params(fn.childForFieldName('parameters'));
  const single = fn.childForFieldName('parameter'); // `x => …`
  if (single) ps.push({ name: single.text, type: '', line: line(single) });
  const ctor = ownerName !== undefined && name === 'constructor' && node.type === 'method_definition';
  const ret = typeOf(fn.childForFieldName('return_type'));
  const doc = docOf(node);
  const annotations = decorators(node);
  return {
    kind: ctor ? 'constructor' : 'method',
    name: ctor ? (ownerName as string) : name,
    params: ps,
    ...(ret && !ctor ? { returnType: ret } : {}),
    modifiers: modifiersOf(node),
    annotations,
    line: line(node),
    endLine: endLine(node),
    ...(doc ? { doc } : {}),
    signature: headOf(node, body),
    hasBody: !!body,
    calls: collect(DIALECT, body, { params: ps.map((p) => [p.name, paramExpr(p.type)] as const) }),
    ...extra,
  };
}

function classLike(node: Node, kind: TypeKind, ctx: Ctx, outer?: string, nameOverride?: string): void {
  const name = node.childForFieldName('name')?.text ?? nameOverride ?? 'default';
  const qname = outer ? `${outer}.${name}` : name;
  const body = node.childForFieldName('body') ?? node.childForFieldName('value');
  const ext: string[] = [];
  const impl: string[] = [];
  for (const c of node.namedChildren) {
    if (c.type === 'class_heritage') {
      for (const h of c.namedChildren) {
        if (h.type === 'extends_clause') ext.push(...kids(h).filter((k) => k.type !== 'type_arguments').map((k) => k.text));
        else if (h.type === 'implements_clause') impl.push(...kids(h).map((k) => k.text));
        else ext.push(h.text); // JavaScript: `class A extends B` has the expression right here
      }
    } else if (c.type === 'extends_type_clause') ext.push(...kids(c).map((k) => k.text));
  }
  const fields: VarSymbol[] = [];
  const fieldDocs = fieldDocTable();
  const methods: MethodSymbol[] = [];
  const enumConstants: EnumConstantSymbol[] = [];
  const inits: CallSite[] = [];
  const staticInits: CallSite[] = [];
  for (const m of body && kind !== 'type' ? kids(body) : body?.type === 'object_type' ? kids(body) : []) {
    const doc = blockDoc(m);
    switch (m.type) {
      case 'method_definition':
      case 'method_signature':
      case 'abstract_method_signature': {
        const me = method(m, name);
        methods.push(me);
        nestedFunctions(m, ctx.nested);
        // Parameter properties (`constructor(private svc: Service)`) and, in JavaScript, `this.x = new X()` are fields too.
        if (me.kind === 'constructor') {
          for (const a of ctx.js ? m.descendantsOfType('assignment_expression') : []) {
            const left = a.childForFieldName('left');
            const right = a.childForFieldName('right');
            const fname = left?.type === 'member_expression' && left.childForFieldName('object')?.type === 'this' ? left.childForFieldName('property')?.text : undefined;
            if (!fname || fields.some((f) => f.name === fname) || body?.namedChildren.some((x) => (x.childForFieldName('name') ?? x.childForFieldName('property'))?.text === fname)) continue;
            const ctor = right?.type === 'new_expression' ? right.childForFieldName('constructor')?.text : undefined;
            fields.push({ name: fname, type: ctor && /^[\w$.]+$/.test(ctor) ? ctor : '', line: line(a), modifiers: [] });
          }
          for (const p of kids(m.childForFieldName('parameters') as Node)) {
            const mods = p.namedChildren.filter((x) => x.type === 'accessibility_modifier' || x.type === 'override_modifier').map((x) => x.text);
            if (p.children.some((x) => x.type === 'readonly')) mods.push('readonly');
            if (mods.length) fields.push({ name: p.childForFieldName('pattern')?.text ?? '', type: typeOf(p.childForFieldName('type')), line: line(p), modifiers: mods });
          }
        }
        break;
      }
      case 'public_field_definition':
      case 'field_definition':
      case 'property_signature': {
        const value = m.childForFieldName('value');
        if (value && FUNCTION_VALUES.has(value.type)) {
          methods.push(method(m, name));
          nestedFunctions(m, ctx.nested);
          break;
        }
        const fname = (m.childForFieldName('name') ?? m.childForFieldName('property'))?.text ?? '';
        const modifiers = modifiersOf(m);
        fields.push({ name: fname, type: typeOf(m.childForFieldName('type')) || createdType(value), line: line(m), modifiers });
        if (doc) fieldDocs[fname] = doc;
        const into = modifiers.includes('static') ? staticInits : inits;
        if (value) for (const site of collect(DIALECT, value)) into.push(site);
        break;
      }
      case 'property_identifier':
        enumConstants.push({ name: m.text, line: line(m), ...(doc ? { doc } : {}) });
        break;
      case 'enum_assignment': {
        const cname = m.childForFieldName('name')?.text ?? '';
        enumConstants.push({ name: cname, line: line(m), ...(doc ? { doc } : {}) });
        break;
      }
      default:
        break;
    }
  }
  // Field initializers, as Java's: `<init>` (instance) and `<clinit>` (static), when they call something.
  for (const [calls, isStatic] of [[inits, false], [staticInits, true]] as const) {
    if (!calls.length) continue;
    methods.push({ kind: 'initializer', name: isStatic ? '<clinit>' : '<init>', params: [], modifiers: isStatic ? ['static'] : [], annotations: [], line: line(node), endLine: endLine(node), hasBody: true, calls });
  }
  const doc = docOf(node);
  ctx.types.push(
    typeSymbol({
      kind, name, qname, pkg: ctx.pkg, node, signature: headOf(node, kind === 'type' && body?.type !== 'object_type' ? null : body), ...(doc ? { doc } : {}),
      modifiers: [...(node.parent?.type === 'export_statement' ? ['export'] : []), ...(node.type.startsWith('abstract') ? ['abstract'] : [])],
      annotations: decorators(node), extends: ext, implements: impl, fields, fieldDocs, methods, enumConstants,
    }),
  );
}

export function extractTypeScript(tree: Tree, lineCount: number, relPath: string, language: LanguageId): FileSymbols {
  const pkg = dottedModule(relPath);
  const ctx: Ctx = { pkg, js: language === 'javascript', types: [], nested: [] };
  const imps: ImportSymbol[] = [];
  /** What the file's module holds: its functions, and its variables of a known type (visible in every function). */
  const fileScope: Scope = { functions: [], vars: [] };
  /** Top-level statements (and variable declarators) that run when the module loads. */
  const statements: Node[] = [];
  const topLevel = (nodes: readonly Node[], prefix?: string, scope: Scope = fileScope): void => {
    const functions = scope.functions;
    for (const n of nodes) {
      const decl = n.type === 'export_statement' ? (n.childForFieldName('declaration') ?? n.childForFieldName('value')) : n;
      if (!decl) continue;
      if (prefix === undefined && runsAtLoad(n, decl)) statements.push(decl);
      const kind = CLASS_NODES[decl.type];
      if (kind) classLike(decl, kind, ctx, prefix, 'default');
      else if (decl.type === 'import_statement') scriptImports(decl, imps);
      else if (decl.type === 'function_declaration' || decl.type === 'generator_function_declaration' || decl.type === 'function_signature') {
        functions.push(method(decl, undefined, n.type === 'export_statement' ? { modifiers: ['export'] } : {}));
        nestedFunctions(decl, ctx.nested);
      } else if (FUNCTION_VALUES.has(decl.type)) {
        functions.push(method(decl, undefined, { name: 'default' }));
        nestedFunctions(decl, ctx.nested);
      }
      else if (decl.type === 'lexical_declaration' || decl.type === 'variable_declaration') {
        for (const d of decl.namedChildren) {
          if (d.type !== 'variable_declarator' || scriptRequire(d, imps)) continue;
          if (FUNCTION_VALUES.has(d.childForFieldName('value')?.type ?? '')) {
            functions.push(method(d, undefined, { line: line(decl), endLine: endLine(decl) }));
            nestedFunctions(d, ctx.nested);
          } else {
            if (prefix === undefined) statements.push(d);
            const name = d.childForFieldName('name');
            const type = typeOf(d.childForFieldName('type')) || createdType(d.childForFieldName('value'));
            if (name?.type === 'identifier' && type) scope.vars.push({ name: name.text, type, line: line(d), modifiers: decl.type === 'lexical_declaration' ? [decl.children[0]?.type ?? ''] : ['var'] });
          }
        }
      } else if ((decl.type === 'internal_module' || decl.type === 'module') && decl.childForFieldName('body')) {
        namespace(decl, prefix);
      } else if (decl.type === 'expression_statement' && decl.namedChildren[0]?.type === 'internal_module') topLevel([decl.namedChildren[0]], prefix);
    }
  };
  /** `namespace A.B { … }` and `namespace A { namespace B { … } }`: a `module` type per namespace, its functions in it. */
  const namespace = (decl: Node, prefix: string | undefined): void => {
    const body = decl.childForFieldName('body') as Node;
    const names = (decl.childForFieldName('name')?.text ?? '').split('.').map((x) => x.trim());
    let qname = prefix;
    for (const [i, name] of names.entries()) {
      const outer = qname;
      qname = outer ? `${outer}.${name}` : name;
      const scope: Scope = { functions: [], vars: [] };
      if (i === names.length - 1) topLevel(kids(body), qname, scope);
      ctx.types.push({
        ...moduleSymbol(name, `${pkg}.${qname}`, relPath, scope.functions, lineCount), fields: scope.vars,
        qname, ...(outer ? { outer } : {}), line: line(decl), endLine: endLine(decl), signature: headOf(decl, body), namespace: true,
      });
    }
  };
  topLevel(kids(tree.rootNode));
  for (const st of statements) for (const d of st.descendantsOfType(DECLARED_FUNCTIONS)) if (d) ctx.nested.push(method(d, undefined));
  const functions = [...fileScope.functions, ...ctx.nested];
  const init = moduleInitializer(DIALECT, statements, ['function_declaration', 'generator_function_declaration']);
  if (functions.length || init || fileScope.vars.length) {
    ctx.types.push({ ...moduleSymbol(moduleName(relPath), pkg, relPath, init ? [...functions, init] : functions, lineCount), fields: fileScope.vars });
  }
  return { language, package: pkg, imports: imps, types: ctx.types, lineCount, ...(tree.rootNode.hasError ? { hasErrors: true } : {}) };
}
