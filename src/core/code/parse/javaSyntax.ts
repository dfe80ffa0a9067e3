import type { Node } from 'web-tree-sitter';
import type { TypeParam } from '../model';

/** Small helpers over tree-sitter-java nodes shared by the declaration and body extractors. */

export const line = (n: Node): number => n.startPosition.row + 1;
export const endLine = (n: Node): number => n.endPosition.row + 1;

export function isComment(n: Node): boolean {
  return n.type === 'line_comment' || n.type === 'block_comment';
}

/** Named children without comments. */
export function namedKids(n: Node): Node[] {
  return n.namedChildren.filter((c) => !isComment(c));
}

const ANNOTATION = /@\s*[\w$.]+(\s*\((?:[^()]|\([^()]*\))*\))?/g;
const COMMENT = /\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;

/** Type text as written, without annotations and comments, whitespace normalised: `Map.Entry<K, V>[]`. */
export function cleanType(text: string): string {
  let t = text;
  if (t.includes('/')) t = t.replace(COMMENT, ' ');
  if (t.includes('@')) t = t.replace(ANNOTATION, ' ');
  if (!/\s/.test(t)) return t.replace(/,/g, ', ');
  return t
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\s*([<>.[\],])\s*/g, '$1')
    .replace(/,/g, ', ')
    .replace(/\?(extends|super)/g, '? $1 ')
    .replace(/&/g, ' & ');
}

export function typeText(n: Node | null): string {
  return n ? cleanType(n.text) : '';
}

export interface Modifiers {
  readonly modifiers: string[];
  readonly annotations: string[];
}

const NO_MODIFIERS: Modifiers = { modifiers: [], annotations: [] };

/** Keywords and annotations of a declaration's `modifiers` child. */
export function modifiersOf(decl: Node): Modifiers {
  const mods = decl.children.find((c) => c.type === 'modifiers');
  if (!mods) return NO_MODIFIERS;
  const out: Modifiers = { modifiers: [], annotations: [] };
  for (const c of mods.children) {
    if (c.type === 'marker_annotation' || c.type === 'annotation') {
      const text = c.text.replace(/\s+/g, ' ');
      out.annotations.push(text.length > 80 ? `${text.slice(0, 77)}…` : text);
    } else if (!c.isNamed) out.modifiers.push(c.type);
  }
  return out;
}

export function typeParamsOf(decl: Node): TypeParam[] {
  const tps = decl.childForFieldName('type_parameters');
  if (!tps) return [];
  const out: TypeParam[] = [];
  for (const tp of namedKids(tps)) {
    if (tp.type !== 'type_parameter') continue;
    const kids = namedKids(tp).filter((k) => k.type !== 'marker_annotation' && k.type !== 'annotation');
    const name = kids.find((k) => k.type === 'type_identifier' || k.type === 'identifier')?.text ?? '';
    const bound = kids.find((k) => k.type === 'type_bound');
    // `T extends Object & Comparable<T>`: Object says nothing; the next bound has the methods.
    const bounds = bound ? namedKids(bound) : [];
    const first = bounds.find((b) => b.text !== 'Object' && b.text !== 'java.lang.Object') ?? bounds[0];
    out.push(first ? { name, bound: typeText(first) } : { name });
  }
  return out;
}

/** Number of arguments in an `argument_list` (comments are not arguments). */
export function argCount(args: Node | null): number {
  if (!args) return 0;
  const n = args.namedChildCount;
  // Comments are named children too; only a text with a slash can hold one (most have none).
  return n && args.text.includes('/') ? namedKids(args).length : n;
}

/**
 * First sentence of the Javadoc comment right before a declaration: tags dropped, inline tags
 * reduced to their text, HTML removed, at most 200 characters.
 */
export function docSummary(decl: Node): string | undefined {
  let prev = decl.previousSibling;
  while (prev && prev.type === 'line_comment') prev = prev.previousSibling;
  if (!prev || prev.type !== 'block_comment' || !prev.text.startsWith('/**')) return undefined;
  return summarize(prev.text);
}

export function summarize(comment: string): string | undefined {
  const body = comment
    .replace(/^\/\*\*+/, '')
    .replace(/\*+\/$/, '')
    .split(/\r?\n/)
    .map((l) => l.replace(/^\s*\*( |$)?/, ''))
    .join('\n');
  const beforeTags = body.split(/\n\s*@[a-zA-Z]/)[0] ?? '';
  const text = beforeTags
    .replace(/\{@(?:code|literal)\s+([^{}]*)\}/g, '$1')
    .replace(/\{@(?:link|linkplain)\s+([^\s{}]+)(?:\s+([^{}]*))?\}/g, (_m, ref: string, label?: string) => label ?? ref.replace(/^#/, ''))
    .replace(/\{@\w+\s*([^{}]*)\}/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return undefined;
  const m = /^(.*?[.!?])(?:\s|$)/.exec(text);
  const first = m?.[1] ?? text;
  return first.length > 200 ? `${first.slice(0, 197)}…` : first;
}
