import type { Node } from 'web-tree-sitter';
import { summarize } from './javaSyntax';
import { withFieldDocs, type MethodSymbol, type TypeKind, type TypeSymbol, type VarSymbol } from '../model';

/**
 * Helpers the extractors of every language but Java share: positions, declaration heads, doc
 * comments, and TypeSymbol / MethodSymbol builders with the fields a language does not have left
 * empty.
 */

export { endLine, line } from './javaSyntax';

export const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();

const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 3)}…` : s);

/**
 * The declaration as written up to its body (`class A extends B`, `def f(self, x) -> int`),
 * comments removed, whitespace collapsed, at most 300 characters.
 */
export function headOf(node: Node, body: Node | null | undefined, comment: RegExp = /\/\*[\s\S]*?\*\/|\/\/[^\n]*/g): string {
  const text = body && body.startIndex > node.startIndex ? node.text.slice(0, body.startIndex - node.startIndex) : node.text;
  return cut(collapse(text.replace(comment, ' ')).replace(/\s*(=>|=|:|\{|;)$/, ''), 300);
}

/** Type text without a leading `:` (TypeScript annotations), whitespace collapsed. */
export const typeOf = (n: Node | null | undefined): string => (n ? collapse(n.text.replace(/^:\s*/, '')) : '');

/** Named children that are not comments. */
export const kids = (n: Node): Node[] => n.namedChildren.filter((c) => !c.type.includes('comment'));

/** Comment nodes right above `node` (no blank line between), nearest last. */
function commentsAbove(node: Node): Node[] {
  const out: Node[] = [];
  let next = node;
  for (let p = node.previousSibling; p && p.type.includes('comment'); p = p.previousSibling) {
    if (next.startPosition.row - p.endPosition.row > 1) break;
    out.unshift(p);
    next = p;
  }
  return out;
}

/** `/** … *\/` right above the declaration (TypeScript, JavaScript, Kotlin), its first sentence. */
export function blockDoc(node: Node): string | undefined {
  const c = commentsAbove(node).pop();
  return c && c.text.startsWith('/**') ? summarize(c.text) : undefined;
}

/** Line comments right above the declaration with this prefix (`//` for Go, `///` for C#): their first sentence. */
export function lineDoc(node: Node, prefix: string): string | undefined {
  const lines = commentsAbove(node).map((c) => c.text).filter((t) => t.startsWith(prefix));
  if (!lines.length) return undefined;
  const text = lines.map((t) => t.slice(prefix.length)).join('\n');
  // C#'s XML doc: the <summary> only, when there is one.
  const summary = /<summary>([\s\S]*?)<\/summary>/.exec(text)?.[1];
  return summarize((summary ?? text).replace(/<(see|paramref|typeparamref)\s+\w+="([^"]*)"\s*\/>/g, '$2'));
}

/** Whatever a language has no notion of, empty. */
export function typeSymbol(t: {
  kind: TypeKind;
  name: string;
  qname?: string;
  pkg: string;
  outer?: string;
  node: Node;
  signature: string;
  doc?: string;
  modifiers?: string[];
  annotations?: string[];
  extends?: string[];
  implements?: string[];
  fields?: VarSymbol[];
  fieldDocs?: Record<string, string>;
  methods?: MethodSymbol[];
  enumConstants?: TypeSymbol['enumConstants'];
  components?: VarSymbol[];
}): TypeSymbol {
  const qname = t.qname ?? (t.outer ? `${t.outer}.${t.name}` : t.name);
  return {
    kind: t.kind,
    name: t.name,
    qname,
    fqn: t.pkg ? `${t.pkg}.${qname}` : qname,
    ...(t.outer ? { outer: t.outer } : {}),
    modifiers: t.modifiers ?? [],
    annotations: t.annotations ?? [],
    typeParams: [],
    extends: t.extends ?? [],
    implements: t.implements ?? [],
    line: t.node.startPosition.row + 1,
    endLine: t.node.endPosition.row + 1,
    signature: t.signature,
    ...(t.doc ? { doc: t.doc } : {}),
    fields: withFieldDocs(t.fields ?? [], t.fieldDocs),
    methods: t.methods ?? [],
    enumConstants: t.enumConstants ?? [],
    components: t.components ?? [],
  };
}

/**
 * A file's top-level functions as the `module` pseudo type, named after the file as the
 * language-server path names it (`lspModel.ts`), with `fqn` the module's own dotted name.
 */
export function moduleSymbol(name: string, fqn: string, relPath: string, methods: MethodSymbol[], lineCount: number): TypeSymbol {
  return {
    kind: 'module', name, qname: name, fqn, modifiers: [], annotations: [], typeParams: [], extends: [], implements: [],
    line: 1, endLine: Math.max(1, lineCount), signature: `module ${relPath}`, fields: [], methods, enumConstants: [], components: [],
  };
}

/** `src/app/util.ts` → `src.app.util`: a module's dotted name from its path. */
export const dottedModule = (relPath: string): string => relPath.replace(/\.[^./]*$/, '').split('/').join('.');
