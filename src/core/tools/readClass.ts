import * as path from 'node:path';
import * as z from 'zod';
import { nameParam } from './params';
import { MAX_PATH_CHARS } from '../workspace/paths';
import { english, t, type Translate } from '../l10n';
import { readProjectText } from '../policy/projectText';
import { resolveInProject } from '../workspace/paths';
import { ToolError } from '../protocol/errors';
import { splitLines } from '../workspace/text';
import { MAX_READ_LINES } from './readFile';
import { ANSWER_BUDGET_BYTES, AnswerBudget } from '../protocol/answerBudget';
import { boundedSource, MAX_SOURCE_LINE_CHARS } from './boundedSource';
import { defineTool } from './tool';
import type { CodeIndex, TypeEntry } from '../code/index/codeIndex';
import type { MethodSymbol, TypeSymbol } from '../code/model';
import { ambiguity, kindLabel, lines, methodSignature, nestedTypes, numberedRanges, SOURCE } from './codeAnswers';
import { fenceLanguage, LSP_SOURCE, namingServer, type Source } from '../code/lsp/attempt';
import { languageForPath } from '../code/languages/registry';
import { quickTypes } from '../code/intel/quickLookup';
import { headerLines, startWithDocAndAnnotations } from '../code/sourceLines';
import { indexForLookups } from '../code/intel/intel';
import { answerCodeQuestion } from '../code/intel/codeQuestion';

/**
 * read_class: a class's structure (package, declaration, fields, constructors, methods with line
 * numbers and Javadoc summaries, nested types) or its full source with line numbers. A simple
 * name several classes share is answered with the list of candidates (a success that asks the
 * agent to choose by fully qualified name or relativePath), not an error: the list is what the
 * agent needs to go on.
 */

const params = z.object({
  className: nameParam(),
  mode: z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(['structure', 'full'])).default('structure'),
  relativePath: z.string().trim().max(MAX_PATH_CHARS).optional(),
});

/** Types matching `className`, narrowed to `relativePath` (a file or a folder) when given. */
export async function findClass(index: CodeIndex, ws: Parameters<typeof resolveInProject>[0], className: string, relativePath?: string): Promise<TypeEntry[]> {
  if (!relativePath) return index.findTypes(className);
  const p = await resolveInProject(ws, relativePath);
  if (index.fileSymbols(p.rel) || languageForPath(p.rel)) await index.update(p.rel);
  const inPath = (e: TypeEntry) => e.path === p.rel || p.rel === '.' || e.path.startsWith(`${p.rel}/`);
  const found = index.findTypes(className).filter(inPath);
  if (found.length || !index.fileSymbols(p.rel)) return found;
  // A file was named but the class name is written differently there (e.g. the file's only class).
  const simple = className.replace(/\$/g, '.').split('.').pop() ?? className;
  return index.findTypes(simple).filter(inPath);
}

/** Reparses the type's file if it changed, and returns its fresh entry. */
export async function fresh(index: CodeIndex, e: TypeEntry): Promise<TypeEntry> {
  await index.update(e.path);
  const same = index.typesByFqn(e.type.fqn).filter((x) => x.path === e.path);
  // A namespace and the interface it merges with share their fqn and their file.
  return same.find((x) => x.type.kind === e.type.kind && x.type.namespace === e.type.namespace) ?? same[0] ?? e;
}

export function notFound(index: CodeIndex, className: string): ToolError {
  const simple = (className.replace(/\$/g, '.').split('.').pop() ?? className).toLowerCase();
  const near = [...index.typeHeads()].filter((r) => r.head.name.toLowerCase().includes(simple)).slice(0, 10);
  const hint = near.length ? ` Similar: ${near.map((r) => r.head.fqn).join(', ')}.` : '';
  return new ToolError('NOT_FOUND', `Class not found: ${className} (searched ${index.fileCount} source files).${hint}`);
}

const memberJson = (m: MethodSymbol) => ({
  name: m.name,
  signature: methodSignature(m),
  ...(m.returnType ? { returnType: m.returnType } : {}),
  params: m.params.map((p) => ({ name: p.name, type: p.type })),
  ...(m.typeParams?.length ? { typeParameters: m.typeParams } : {}),
  modifiers: m.modifiers,
  annotations: m.annotations,
  line: m.line,
  endLine: m.endLine,
  ...(m.doc ? { doc: m.doc } : {}),
});

function structure(e: TypeEntry, all: readonly TypeSymbol[], source: Source = SOURCE, t: Translate = english): { result: string; structured: unknown } {
  const ty = e.type;
  const ctors = ty.methods.filter((m) => m.kind === 'constructor');
  const methods = ty.methods.filter((m) => m.kind === 'method');
  const nested = nestedTypes(all, ty);
  const doc = (d?: string) => (d ? ` — ${d}` : '');
  const out = [
    t('## {0}: {1}', kindLabel(ty.namespace ? 'namespace' : ty.kind, t), ty.fqn),
    '',
    t('File: {0} · {1} · package {2} · source: {3}', e.path, lines(ty.line, ty.endLine, t), e.file.package || t('(default)'), source),
    '',
    `\`\`\`${fenceLanguage(e.path)}`,
    ty.signature,
    '```',
  ];
  if (ty.doc) out.push('', ty.doc);
  if (ty.outer) out.push('', t('Nested in {0}.', `${e.file.package ? `${e.file.package}.` : ''}${ty.outer}`));
  const section = (title: string, items: string[]) => {
    // One push per item: spreading 100,000 members into one call overflows the stack.
    if (items.length) {
      out.push('', `### ${t(title)} (${items.length})`);
      for (const item of items) out.push(item);
    }
  };
  section('Enum constants', ty.enumConstants.map((c) => `- L${c.line} \`${c.name}\`${doc(c.doc)}`));
  section('Record components', ty.components.map((c) => `- L${c.line} \`${c.type} ${c.name}\``));
  section('Fields', ty.fields.map((f) => `- L${f.line} \`${[...(f.modifiers ?? []), f.type, f.name].join(' ')}\`${doc(f.doc)}`));
  section('Constructors', ctors.map((m) => `- L${m.line}–${m.endLine} \`${methodSignature(m)}\`${doc(m.doc)}`));
  section('Methods', methods.map((m) => `- L${m.line}–${m.endLine} \`${methodSignature(m)}\`${m.hasBody ? '' : ' (no body)'}${doc(m.doc)}`));
  section('Nested types', nested.map((n) => `- L${n.line} ${n.kind} \`${n.qname}\`${doc(n.doc)}`));
  if (e.file.hasErrors) out.push('', '_The file has syntax errors; the structure above is what could be recovered._');
  return {
    result: out.join('\n'),
    structured: {
      source,
      className: ty.fqn,
      simpleName: ty.name,
      kind: ty.kind,
      path: e.path,
      package: e.file.package,
      line: ty.line,
      endLine: ty.endLine,
      signature: ty.signature,
      ...(ty.doc ? { doc: ty.doc } : {}),
      ...(ty.outer ? { outer: ty.outer } : {}),
      modifiers: ty.modifiers,
      annotations: ty.annotations,
      typeParameters: ty.typeParams,
      extends: ty.extends,
      implements: ty.implements,
      fields: ty.fields.map((f) => ({ name: f.name, type: f.type, modifiers: f.modifiers ?? [], line: f.line, ...(f.doc ? { doc: f.doc } : {}) })),
      enumConstants: ty.enumConstants,
      recordComponents: ty.components.map((c) => ({ name: c.name, type: c.type, line: c.line })),
      constructors: ctors.map(memberJson),
      methods: methods.map(memberJson),
      nestedTypes: nested.map((n) => ({ className: n.fqn, kind: n.kind, line: n.line })),
    },
  };
}

/**
 * The class as a reader needs it: the file's header (package and imports, so every name in the
 * body can be placed), then the class from its doc comment and annotations to its end, numbered.
 */
async function full(ws: Parameters<typeof readProjectText>[0], e: TypeEntry, source: Source = SOURCE): Promise<{ result: string; structured: unknown }> {
  const file = await readProjectText(ws, e.path);
  const text = splitLines(file.text);
  const from = startWithDocAndAnnotations(text, e.type.line);
  const end = Math.min(e.type.endLine, text.length);
  const firstDecl = Math.min(from, ...e.file.types.filter((ty) => !ty.outer && ty.kind !== 'module').map((ty) => startWithDocAndAnnotations(text, ty.line)));
  const wholeHeader = headerLines(text, firstDecl);
  // Header and body are shown twice (Markdown and `structured`) and bounded together in bytes on the wire.
  const budget = new AnswerBudget();
  const headerShown = wholeHeader ? boundedSource(text, wholeHeader.start, wholeHeader.end, budget) : undefined;
  const header = wholeHeader && headerShown && headerShown.to >= wholeHeader.start ? { start: wholeHeader.start, end: headerShown.to } : undefined;
  const body = boundedSource(text, from, Math.min(end, from + MAX_READ_LINES - 1), budget);
  const to = body.to;
  const shown = header && headerShown ? [...headerShown.lines, ...body.lines.slice(headerShown.lines.length)] : body.lines;
  const longLines = (headerShown?.longLines ?? 0) + body.longLines;
  const language = fenceLanguage(e.path);
  const out = [t('## {0}: {1}', kindLabel(e.type.namespace ? 'namespace' : e.type.kind, t), e.type.fqn), '', t('File: {0} · {1} · source: {2}', e.path, lines(from, end, t), source), ''];
  out.push(numberedRanges(shown, [...(header ? [header] : []), ...(to >= from ? [{ start: from, end: to }] : [])], language));
  if (to < end) {
    const why = body.bytesCut ? `${ANSWER_BUDGET_BYTES / (1024 * 1024)} MB` : `${MAX_READ_LINES} lines`;
    out.push('', `**Output capped at ${why}.** Read the rest with read_file relativePath=${e.path} start_line=${to + 1} end_line=${end}.`);
  }
  if (longLines) out.push('', `${longLines} line(s) longer than ${MAX_SOURCE_LINE_CHARS} characters were cut.`);
  const omitted = longLines || body.bytesCut || (wholeHeader && header?.end !== wholeHeader.end);
  return {
    result: out.join('\n'),
    structured: {
      source,
      className: e.type.fqn,
      kind: e.type.kind,
      path: e.path,
      ...(header ? { header: { startLine: header.start, endLine: header.end, content: shown.slice(header.start - 1, header.end).join('\n') } } : {}),
      startLine: from,
      endLine: to,
      totalLines: end - from + 1,
      truncated: to < end,
      content: shown.slice(from - 1, to).join('\n'),
      ...(omitted ? { omitted: ['content'], note: `Lines longer than ${MAX_SOURCE_LINE_CHARS} characters are cut, and the answer is bounded at ${ANSWER_BUDGET_BYTES / (1024 * 1024)} MB; read_file shows the rest.` } : {}),
    },
  };
}
/**
 * Entries of one fully qualified name that are one type written in several files: Go methods
 * declared beside another file of the package than their type, C# `partial` classes. They are
 * answered as one type (the declaring part first, the others listed), not as an ambiguity.
 */
export function typeInParts(found: readonly TypeEntry[]): TypeEntry[] | undefined {
  const first = found[0];
  if (found.length < 2 || !first) return undefined;
  const lang = first.file.language;
  // A TypeScript namespace merged with a class, an interface or another block of the same name, in one file.
  const merged = (lang === 'typescript' || lang === 'tsx' || lang === 'lsp') && found.every((e) => e.path === first.path) && found.some((e) => e.type.namespace);
  if ((lang !== 'go' && lang !== 'csharp' && !merged) || found.some((e) => e.type.fqn !== first.type.fqn || e.file.language !== lang)) return undefined;
  // the declaring part first: not a Go "methods of" entry nor a namespace, and in the file named after the type
  const rank = (e: TypeEntry) => (e.type.signature.startsWith('methods of ') || e.type.namespace ? 2 : 0) + (path.posix.basename(e.path).replace(/\.[^.]*$/, '') === e.type.name ? 0 : 1);
  return [...found].sort((a, b) => rank(a) - rank(b) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The answer for one type, with the other files it is written in when there are several. */
async function answerType(ws: Parameters<typeof readProjectText>[0], parts: readonly TypeEntry[], mode: string, source: Source): Promise<{ result: string; structured: unknown }> {
  const [main, ...rest] = parts as [TypeEntry, ...TypeEntry[]];
  const out = mode === 'full' ? await full(ws, main, source) : structure(main, main.file.types, source, t);
  if (!rest.length) return out;
  const more = rest.map((e) => `- ${e.path}, ${lines(e.type.line, e.type.endLine, t)}: ${e.type.methods.map((m) => `\`${methodSignature(m)}\` (L${m.line})`).join(', ') || '—'}`);
  return {
    result: [out.result, '', `### ${t('Also written in other files')} (${rest.length})`, ...more].join('\n'),
    structured: {
      ...(out.structured as object),
      otherParts: rest.map((e) => ({ path: e.path, line: e.type.line, endLine: e.type.endLine, methods: e.type.methods.filter((m) => m.kind === 'method').map(memberJson) })),
    },
  };
}

export const readClassTool = defineTool({
  name: 'read_class',
  description:
    'Read a class (Java, Kotlin, TypeScript/JavaScript, Python, Go, C#; also interfaces, enums, records, structs, and a file\'s top-level functions as its module) by simple, qualified or fully qualified name: its structure (fields, constructors, methods with line numbers and doc summaries) or, with mode "full", its source with line numbers.',
  writes: false,
  params,
  paths: (p) => ({ scope: p.relativePath }),
  async handler(p, ctx) {
    const how = 'className set to one of the fully qualified names above, or relativePath set to the file';
    const { answer } = await answerCodeQuestion(ctx, {
      tool: 'read_class',
      needs: 'declarations',
      languageServer: {
        find: (s) => s.typesNamed(p.className, p.relativePath),
        async answer(found) {
          const parts = found.length > 1 ? typeInParts(found) : found;
          if (!parts) return ambiguity(p.className, found, how, LSP_SOURCE);
          return namingServer(ctx.workspace, await answerType(ctx.workspace, parts, p.mode, LSP_SOURCE));
        },
      },
      async fromFilesAlone() {
        const quick = await quickTypes(ctx.workspace, p.className, p.relativePath, ctx.signal);
        if (!quick?.length) return undefined;
        const parts = quick.length > 1 ? typeInParts(quick) : quick;
        return async () => (parts ? answerType(ctx.workspace, parts, p.mode, SOURCE) : ambiguity(p.className, quick, how, SOURCE));
      },
      async fromIndex() {
        const { index } = await indexForLookups(ctx);
        const found = await findClass(index, ctx.workspace, p.className, p.relativePath);
        if (!found.length) throw notFound(index, p.className + (p.relativePath ? ` in ${p.relativePath}` : ''));
        const parts = found.length > 1 ? typeInParts(found) : found;
        if (!parts) return ambiguity(p.className, found, how, SOURCE);
        const freshParts: TypeEntry[] = [];
        for (const e of parts) freshParts.push(await fresh(index, e));
        return answerType(ctx.workspace, freshParts, p.mode, SOURCE);
      },
    });
    return answer;
  },
});
