import type { IntelPosition, IntelSymbol, IntelSymbolKind } from '../../workspace/languageIntel';
import { summarize } from '../parse/javaSyntax';
import { fieldDocTable, moduleName, withFieldDocs, type EnumConstantSymbol, type FileSymbols, type MethodSymbol, type TypeKind, type TypeSymbol, type VarSymbol } from '../model';
import { startWithDoc } from '../sourceLines';
import { dottedModule } from '../parse/syntax';
import { splitTopLevel } from '../java/typeRef';

/**
 * A language server's document symbols mapped onto the code index's own model (FileSymbols,
 * TypeSymbol, MethodSymbol), so read_class, read_method and call_chain render them exactly as they
 * render the parser's: Class/Interface/Enum/Struct → a type; Method/Constructor/Function → a
 * method; Field/Property/Constant → a field; EnumMember → an enum constant. Signatures, modifiers,
 * parameters and supertypes are read from the declaration's source text (the server's `detail`
 * when the text gives nothing); the doc summary from a `/** … *\/` comment right above.
 * Top-level functions belong to a `module` pseudo type named after the file.
 */

const TYPE_KINDS: Partial<Record<IntelSymbolKind, TypeKind>> = { Class: 'class', Interface: 'interface', Enum: 'enum', Struct: 'struct' };
const METHOD_KINDS: ReadonlySet<IntelSymbolKind> = new Set(['Method', 'Constructor', 'Function']);
const FIELD_KINDS: ReadonlySet<IntelSymbolKind> = new Set(['Field', 'Property', 'Constant']);
const MODIFIERS = new Set([
  'export', 'default', 'public', 'private', 'protected', 'internal', 'static', 'abstract', 'readonly', 'async', 'final',
  'override', 'declare', 'sealed', 'virtual', 'const', 'open', 'data', 'pub', 'def', 'func', 'fun', 'function', 'fn',
]);
/** Words that start a declaration but are not modifiers worth listing. */
const KEYWORDS = new Set(['def', 'func', 'fun', 'function', 'fn']);

export const isTypeKind = (k: IntelSymbolKind): boolean => TYPE_KINDS[k] !== undefined;
export const isMethodKind = (k: IntelSymbolKind): boolean => METHOD_KINDS.has(k);
/** TypeScript's server reports `namespace Foo` as a Module; other servers say Namespace or Package. */
export const isNamespaceKind = (k: IntelSymbolKind): boolean => k === 'Namespace' || k === 'Module' || k === 'Package';

/** Where each mapped method's name is in its file: what the call hierarchy is asked at. */
export const namePositions = new WeakMap<MethodSymbol, IntelPosition>();

/** `a: number = 1` → {a, number}; `int a` → {a, int}; `...rest: T[]` → {rest, T[]}. */
export function parseVar(text: string): { name: string; type: string } {
  const noDefault = splitTopLevel(text, '=')[0] ?? text;
  const colon = splitTopLevel(noDefault, ':');
  if (colon.length > 1) {
    const words = (colon[0] ?? '').trim().split(/\s+/);
    const name = (words[words.length - 1] ?? '').replace(/^\.\.\.|\?$/g, '');
    return { name, type: colon.slice(1).join(':').trim() };
  }
  const m = /^(.*?)([A-Za-z_$][\w$]*)\s*$/.exec(noDefault.trim());
  const type = (m?.[1] ?? '').trim().split(/\s+/).filter((w) => !MODIFIERS.has(w)).join(' ');
  return { name: m?.[2] ?? noDefault.trim(), type };
}

/** The declaration's head: from its first line to the body's `{` (or `;`, or `:` ending a Python line), whitespace collapsed. */
function declarationHead(lines: readonly string[], startLine: number, endLine: number): string {
  let text = '';
  let depth = 0;
  for (let i = startLine; i <= endLine && i < lines.length; i++) {
    const line = lines[i] ?? '';
    for (let j = 0; j < line.length; j++) {
      const ch = line[j] as string;
      if (ch === '(' || ch === '<' || ch === '[') depth++;
      else if ((ch === ')' || ch === ']' || (ch === '>' && line[j - 1] !== '=')) && depth > 0) depth--;
      else if (depth === 0 && (ch === '{' || ch === ';')) return collapse(text + line.slice(0, j));
      else if (depth === 0 && ch === '=' && line[j + 1] === '>') return collapse(text + line.slice(0, j));
    }
    text += `${line}\n`;
    if (depth === 0 && /:\s*$/.test(line)) return collapse(text).replace(/:$/, '');
    if (text.length > 600) break;
  }
  return collapse(text);
}

const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();

function rangeText(lines: readonly string[], s: IntelSymbol): string {
  const { start, end } = s.range;
  if (start.line === end.line) return (lines[start.line] ?? '').slice(start.character, end.character);
  return [(lines[start.line] ?? '').slice(start.character), ...lines.slice(start.line + 1, end.line), (lines[end.line] ?? '').slice(0, end.character)].join('\n');
}

/** Leading modifier words of a declaration head. */
function headModifiers(head: string): string[] {
  const out: string[] = [];
  for (const w of head.replace(/@\w+(\([^)]*\))?\s*/g, '').split(/\s+/)) {
    if (!MODIFIERS.has(w)) break;
    if (!KEYWORDS.has(w)) out.push(w);
  }
  return out;
}

/** Parameters and return type from a method head (`add(a: number, b: number): number`, `int add(int a)`, `def f(x) -> int`). */
export function parseMethodHead(head: string, name: string): { params: VarSymbol[]; returnType?: string } {
  const at = head.indexOf(`${name}`);
  const open = head.indexOf('(', at < 0 ? 0 : at);
  if (open < 0) return { params: [] };
  let depth = 0;
  let close = -1;
  for (let i = open; i < head.length; i++) {
    if (head[i] === '(') depth++;
    else if (head[i] === ')' && --depth === 0) {
      close = i;
      break;
    }
  }
  const inner = head.slice(open + 1, close < 0 ? undefined : close);
  const params = splitTopLevel(inner).map((p) => ({ ...parseVar(p), line: 0 }));
  const after = close < 0 ? '' : head.slice(close + 1).trim();
  const ret = /^(?::|->)\s*(.+)$/.exec(after)?.[1]?.trim();
  if (ret) return { params, returnType: ret };
  // C-like: the words between the modifiers and the name.
  const before = at < 0 ? [] : head.slice(0, at).trim().split(/\s+/).filter((w) => w && !MODIFIERS.has(w) && !w.startsWith('@'));
  return before.length ? { params, returnType: before.join(' ') } : { params };
}

/** Supertypes from a type head: `extends A implements B, C`, `class A(B)`, `class A : B`. */
export function superTypes(head: string): { extends: string[]; implements: string[] } {
  const ext = /\bextends\s+(.+?)(?=\s+implements\b|$)/.exec(head)?.[1];
  const impl = /\bimplements\s+(.+)$/.exec(head)?.[1];
  if (ext || impl) return { extends: ext ? splitTopLevel(ext) : [], implements: impl ? splitTopLevel(impl) : [] };
  const py = /^[^(]*\bclass\s+[\w$]+\s*\((.*)\)\s*$/.exec(head)?.[1];
  if (py) return { extends: splitTopLevel(py), implements: [] };
  const colon = /\b(?:class|struct|interface)\s+[\w$]+(?:<.*>)?\s*:\s*(.+)$/.exec(head)?.[1];
  return { extends: colon ? splitTopLevel(colon) : [], implements: [] };
}

/** The summary of a `/** … *\/` comment ending right above 1-based `line`. */
function docAbove(lines: readonly string[], line: number): string | undefined {
  const from = startWithDoc(lines, line);
  if (from === line) return undefined;
  return summarize(lines.slice(from - 1, line - 1).join('\n').trim());
}

interface Ctx {
  readonly lines: readonly string[];
  readonly pkg: string;
  readonly types: TypeSymbol[];
}

function method(s: IntelSymbol, ctx: Ctx, ownerName: string): MethodSymbol {
  const line = s.range.start.line + 1;
  const head = declarationHead(ctx.lines, s.range.start.line, s.range.end.line);
  const ctor = s.kind === 'Constructor';
  const sig = head || `${s.name}${s.detail ?? ''}`;
  const parsed = parseMethodHead(sig, ctor && !sig.includes(s.name) ? 'constructor' : s.name);
  const doc = docAbove(ctx.lines, line);
  const m: MethodSymbol = {
    kind: ctor ? 'constructor' : 'method',
    name: ctor ? ownerName : s.name,
    params: parsed.params.map((p) => ({ ...p, line })),
    ...(!ctor && parsed.returnType ? { returnType: parsed.returnType } : {}),
    modifiers: headModifiers(head),
    annotations: [],
    line,
    endLine: s.range.end.line + 1,
    ...(doc ? { doc } : {}),
    hasBody: /\{|\)\s*(->[^:\n]*)?:/.test(rangeText(ctx.lines, s)),
    ...(head ? { signature: head } : {}),
    calls: [],
  };
  namePositions.set(m, s.selectionRange.start);
  return m;
}

function field(s: IntelSymbol, ctx: Ctx): VarSymbol & { doc?: string } {
  const line = s.range.start.line + 1;
  const text = collapse((ctx.lines[s.range.start.line] ?? '').slice(s.range.start.character)).replace(/[;,]$/, '');
  const v = parseVar(text);
  const type = v.name === s.name ? v.type : (s.detail ?? '');
  const doc = docAbove(ctx.lines, line);
  return { name: s.name, type, line, modifiers: headModifiers(text), ...(doc ? { doc } : {}) };
}

function visitType(s: IntelSymbol, ctx: Ctx, outer: TypeSymbol | undefined): void {
  const kind = TYPE_KINDS[s.kind] ?? 'class';
  const qname = outer ? `${outer.qname}.${s.name}` : s.name;
  const head = declarationHead(ctx.lines, s.range.start.line, s.range.end.line) || `${s.name} ${s.detail ?? ''}`.trim();
  const fields: VarSymbol[] = [];
  const fieldDocs = fieldDocTable();
  const methods: MethodSymbol[] = [];
  const enumConstants: EnumConstantSymbol[] = [];
  const nested: IntelSymbol[] = [];
  for (const c of s.children) {
    if (isTypeKind(c.kind)) nested.push(c);
    else if (isMethodKind(c.kind)) methods.push(method(c, ctx, s.name));
    else if (c.kind === 'EnumMember') {
      const doc = docAbove(ctx.lines, c.range.start.line + 1);
      enumConstants.push({ name: c.name, line: c.range.start.line + 1, ...(doc ? { doc } : {}) });
    } else if (FIELD_KINDS.has(c.kind)) {
      const { doc, ...f } = field(c, ctx);
      fields.push(f);
      if (doc) fieldDocs[c.name] = doc;
    }
  }
  const sup = superTypes(head);
  const doc = docAbove(ctx.lines, s.range.start.line + 1);
  const type: TypeSymbol = {
    kind,
    name: s.name,
    qname,
    fqn: ctx.pkg ? `${ctx.pkg}.${qname}` : qname,
    ...(outer ? { outer: outer.qname } : {}),
    modifiers: headModifiers(head),
    annotations: [],
    typeParams: [],
    extends: sup.extends,
    implements: sup.implements,
    line: s.range.start.line + 1,
    endLine: s.range.end.line + 1,
    signature: head,
    ...(doc ? { doc } : {}),
    fields: withFieldDocs(fields, fieldDocs),
    methods,
    enumConstants,
    components: [],
  };
  ctx.types.push(type);
  for (const n of nested) visitType(n, ctx, type);
}


/** A file's document symbols as FileSymbols (types outer before inner; top-level functions in a `module` type). */
export function toFileSymbols(relPath: string, text: string, symbols: readonly IntelSymbol[]): FileSymbols {
  const lines = text.split(/\r?\n/);
  // A script's names are qualified by its path, as the parser qualifies them (`src.app.Cart`): two
  // files' classes or modules of one name then have names that tell them apart.
  const script = /\.(?:[cm]?[jt]s|[jt]sx)$/i.test(relPath);
  const pkg = script ? dottedModule(relPath) : (/^\s*package\s+([\w.]+)\s*;?\s*$/m.exec(text)?.[1] ?? '');
  const ctx: Ctx = { lines, pkg, types: [] };
  const functions: MethodSymbol[] = [];
  // Other languages' servers list packages and imported modules here: their members stay flat.
  const walk = (list: readonly IntelSymbol[], ns: TypeSymbol | undefined, into: MethodSymbol[]): void => {
    for (const s of list) {
      if (isTypeKind(s.kind)) visitType(s, ctx, ns);
      else if (isMethodKind(s.kind)) into.push(method(s, ctx, s.name));
      else if (isNamespaceKind(s.kind) && !script) walk(s.children, ns, into);
      else if (isNamespaceKind(s.kind)) {
        // A namespace is a `module` type of its own (as the parser has it), its functions in it;
        // `namespace A.B {}` (one symbol named `A.B`) is B nested in A.
        let type = ns;
        for (const name of s.name.split('.')) {
          const outer: TypeSymbol | undefined = type;
          const qname = outer ? `${outer.qname}.${name}` : name;
          type = {
            kind: 'module', name, qname, fqn: pkg ? `${pkg}.${qname}` : qname, ...(outer ? { outer: outer.qname } : {}), namespace: true,
            modifiers: [], annotations: [], typeParams: [], extends: [], implements: [], line: s.range.start.line + 1, endLine: s.range.end.line + 1,
            signature: declarationHead(lines, s.range.start.line, s.range.end.line) || `namespace ${qname}`, fields: [], methods: [], enumConstants: [], components: [],
          };
          ctx.types.push(type);
        }
        if (type) walk(s.children, type, type.methods as MethodSymbol[]);
      }
    }
  };
  walk(symbols, undefined, functions);
  // A function declared inside a function or a callback is a function of the file, as in the parser.
  const nested = (list: readonly IntelSymbol[], inFunction: boolean): void => {
    for (const s of list) {
      if (inFunction && s.kind === 'Function' && /^[\w$]+$/.test(s.name)) functions.push(method(s, ctx, s.name));
      nested(s.children, inFunction || isMethodKind(s.kind));
    }
  };
  if (script) nested(symbols, false);
  if (functions.length) {
    const name = moduleName(relPath);
    ctx.types.push({
      kind: 'module', name, qname: name, fqn: script ? pkg : pkg ? `${pkg}.${name}` : name, modifiers: [], annotations: [], typeParams: [], extends: [], implements: [],
      line: 1, endLine: lines.length, signature: `module ${relPath}`, fields: [], methods: functions, enumConstants: [], components: [],
    });
  }
  return { language: 'lsp', package: pkg, imports: [], types: ctx.types, lineCount: lines.length };
}
