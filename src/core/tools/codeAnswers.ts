import { fenceFor } from '../workspace/text';
import { english, t, type Translate } from '../l10n';
import type { MethodEntry, TypeEntry } from '../code/index/codeIndex';
import type { MethodSymbol, TypeSymbol, ParamSymbol } from '../code/model';

/** Markdown and structured shapes shared by the code tools. */

export const SOURCE = 'parser' as const;

export interface MethodInfo {
  readonly className: string;
  readonly methodName: string;
  readonly kind: MethodSymbol['kind'];
  readonly signature: string;
  readonly path: string;
  readonly line: number;
  readonly endLine: number;
  readonly doc?: string;
}

const params = (ps: readonly ParamSymbol[]): string => ps.map((p) => `${p.type} ${p.name}`.trim()).join(', ');

const INITIALIZERS: Readonly<Record<string, string>> = { '<clinit>': 'static initializer', '<module>': 'module code, run when it loads' };

/** `public static <T> List<T> of(T... items) throws IOException` */
export function methodSignature(m: MethodSymbol): string {
  if (m.signature) return m.signature;
  // an initializer's name says static or not: `static static initializer` would say it twice
  const mods = [...m.annotations, ...(m.kind === 'initializer' ? [] : m.modifiers)].join(' ');
  const tps = m.typeParams?.length ? `<${m.typeParams.map((t) => (t.bound ? `${t.name} extends ${t.bound}` : t.name)).join(', ')}> ` : '';
  const ret = m.kind === 'method' && m.returnType ? `${m.returnType} ` : '';
  const thr = m.throws?.length ? ` throws ${m.throws.join(', ')}` : '';
  const name = m.kind === 'initializer' ? (INITIALIZERS[m.name] ?? 'instance initializer') : m.name;
  return `${mods ? `${mods} ` : ''}${tps}${ret}${name}${m.kind === 'initializer' ? '' : `(${params(m.params)})`}${thr}`;
}

export function methodInfo(e: MethodEntry): MethodInfo {
  const m = e.method;
  return {
    className: e.owner.type.fqn,
    methodName: m.name,
    kind: m.kind,
    signature: methodSignature(m),
    path: e.owner.path,
    line: m.line,
    endLine: m.endLine,
    ...(m.doc ? { doc: m.doc } : {}),
  };
}

/** `ArrayList.add(int, E)`: short name for trees and lists. */
export function shortName(e: MethodEntry): string {
  const m = e.method;
  const cls = e.owner.type.qname;
  if (m.kind === 'initializer') return `${cls}.${m.name}`;
  return `${cls}.${m.kind === 'constructor' ? '<init>' : m.name}(${m.params.map((p) => p.type).join(', ')})`;
}

export const lines = (a: number, b: number, t: Translate = english): string => (a === b ? t('line {0}', a) : t('lines {0}–{1}', a, b));

/** The heading word for a kind of type: Class, Interface, Enum, Record, Annotation, Struct, Module, Namespace. */
export const kindLabel = (kind: string, t: Translate): string => t(kind === 'annotation' ? 'Annotation' : (kind[0]?.toUpperCase() ?? '') + kind.slice(1));

function typeLabel(e: TypeEntry): string {
  return `${e.type.kind} \`${e.type.fqn}\` — ${e.path}:${e.type.line}`;
}

/** Candidates for an ambiguous name: a success result that asks the agent to choose. */
export function ambiguity(name: string, candidates: readonly TypeEntry[], how: string, source: 'parser' | 'language-server' = SOURCE): { result: string; structured: unknown } {
  const list = candidates.map((c) => `- ${typeLabel(c)}`);
  return {
    result: [
      t('## Several classes match {0}', `\`${name}\``),
      '',
      ...list,
      '',
      t('Call again with {0}.', how),
    ].join('\n'),
    structured: {
      source,
      ambiguous: true,
      candidates: candidates.map((c) => ({ className: c.type.fqn, kind: c.type.kind, path: c.path, line: c.type.line })),
    },
  };
}

/** Several line ranges of one file in one numbered block, a `⋮` line where lines are left out between them. */
export function numberedRanges(textLines: readonly string[], ranges: readonly { start: number; end: number }[], language = 'java'): string {
  const width = String(Math.max(1, ...ranges.map((r) => r.end))).length;
  const body: string[] = [];
  ranges.forEach((r, i) => {
    if (i > 0 && r.start > (ranges[i - 1] as { end: number }).end + 1) body.push(`${' '.repeat(width)} ⋮`);
    for (let n = r.start; n <= r.end; n++) body.push(`${String(n).padStart(width)} | ${textLines[n - 1] ?? ''}`);
  });
  const joined = body.join('\n');
  const fence = fenceFor(joined);
  return `${fence}${language}\n${joined}\n${fence}`;
}

export function numbered(textLines: readonly string[], from: number, to: number, language = 'java'): string {
  const width = String(Math.max(to, 1)).length;
  const body = [];
  for (let n = from; n <= to; n++) body.push(`${String(n).padStart(width)} | ${textLines[n - 1] ?? ''}`);
  const joined = body.join('\n');
  const fence = fenceFor(joined);
  return `${fence}${language}\n${joined}\n${fence}`;
}
export { startWithDoc } from '../code/sourceLines';

export function nestedTypes(file: readonly TypeSymbol[], owner: TypeSymbol): TypeSymbol[] {
  return file.filter((t) => t.outer === owner.qname);
}
