import * as z from 'zod';
import { nameParam } from './params';
import { MAX_PATH_CHARS } from '../workspace/paths';
import { t } from '../l10n';
import { readProjectText } from '../policy/projectText';
import { ToolError } from '../protocol/errors';
import { splitLines } from '../workspace/text';
import { defineTool } from './tool';
import type { Workspace } from '../workspace/workspace';
import type { MethodEntry, TypeEntry } from '../code/index/codeIndex';
import { ANSWER_BUDGET_BYTES, AnswerBudget } from '../protocol/answerBudget';
import { boundedSource, MAX_SOURCE_LINE_CHARS } from './boundedSource';
import { methodInfo, methodSignature, numbered, SOURCE, startWithDoc, ambiguity } from './codeAnswers';
import { findClass, fresh, notFound, typeInParts } from './readClass';
import { fenceLanguage, LSP_SOURCE, namingServer, type Source } from '../code/lsp/attempt';
import { quickTypes } from '../code/intel/quickLookup';
import { indexForLookups } from '../code/intel/intel';
import { answerCodeQuestion } from '../code/intel/codeQuestion';
import { isConstructorName, paramsMatch, parseMethodSpec } from '../code/index/callGraph';

/**
 * read_method: the source of every overload of a method (constructors when methodName is the
 * class name, `<init>` or `new`), Javadoc included, with line numbers. `methodName` may carry
 * parameter types to pick one overload: `add(int, E)`. When the class does not declare the
 * method, the inherited declaration is shown and said to be inherited.
 */

const params = z.object({
  className: nameParam(),
  methodName: nameParam(),
  relativePath: z.string().trim().max(MAX_PATH_CHARS).optional(),
});

/** At most this many lines per overload; longer bodies are cut with a note. */
const MAX_METHOD_LINES = 400;

export const readMethodTool = defineTool({
  name: 'read_method',
  description:
    'Read the source of a method or function (Java, Kotlin, TypeScript/JavaScript, Python, Go, C#; every overload, doc comment included) with line numbers; a top-level function is in its file\'s module (className = the file name without extension). methodName may include parameter types, e.g. "add(int, E)"; use the class name for constructors.',
  writes: false,
  params,
  paths: (p) => ({ scope: p.relativePath }),
  async handler(p, ctx) {
    const spec = parseMethodSpec(`X.${p.methodName}`);
    const pick = (owner: TypeEntry): MethodEntry[] => {
      const ctor = isConstructorName(spec.methodName, owner) || spec.methodName === 'constructor';
      return owner.type.methods
        .filter((m) => (ctor ? m.kind === 'constructor' : m.kind === 'method' && m.name === spec.methodName))
        .filter((m) => !spec.params || paramsMatch(m, spec.params))
        .map((method) => ({ owner, method }));
    };
    const noMethod = (classes: readonly TypeEntry[]): ToolError => {
      const names = [...new Set(classes.flatMap((c) => c.type.methods.filter((m) => m.kind === 'method').map((m) => m.name)))].sort();
      const what = spec.params ? `${spec.methodName}(${spec.params.join(', ')})` : spec.methodName;
      return new ToolError('NOT_FOUND', `No method ${what} in ${classes.map((c) => c.type.fqn).join(', ')}. Methods: ${names.slice(0, 40).join(', ') || '(none)'}${names.length > 40 ? ', …' : ''}`);
    };
    const how = 'className set to one of the fully qualified names above';
    const { answer: written } = await answerCodeQuestion(ctx, {
      tool: 'read_method',
      needs: 'declarations',
      languageServer: {
        find: (s) => s.typesNamed(p.className, p.relativePath, spec.methodName),
        async answer(classes) {
          const matches = classes.flatMap(pick);
          if (!matches.length) throw noMethod(classes);
          if (new Set(matches.map((m) => m.owner)).size > 1) {
            return ambiguity(p.className, classes.filter((c) => matches.some((m) => m.owner === c)), how, LSP_SOURCE);
          }
          return namingServer(ctx.workspace, await answer(ctx.workspace, p, matches, false, LSP_SOURCE));
        },
      },
      // The method of a class found in the files that declare it (see quickLookup.ts). Several
      // classes of that name declaring it are listed, as the index lists them; an inherited
      // method waits for the index (its supertypes may be anywhere).
      async fromFilesAlone() {
        const quick = await quickTypes(ctx.workspace, p.className, p.relativePath, ctx.signal);
        const matches = quick?.flatMap(pick) ?? [];
        const owners = new Set(matches.map((m) => m.owner.type.fqn + m.owner.path));
        if (matches.length && owners.size === 1) return () => answer(ctx.workspace, p, matches, false, SOURCE);
        if (quick && owners.size > 1 && quick.length > 1 && !typeInParts(quick)) {
          return async () => ambiguity(p.className, quick.filter((c) => matches.some((m) => m.owner.type === c.type)), how, SOURCE);
        }
        return undefined;
      },
      async fromIndex() {
        const { index, graph } = await indexForLookups(ctx);
        const classes = await findClass(index, ctx.workspace, p.className, p.relativePath);
        if (!classes.length) throw notFound(index, p.className);
        const freshClasses: TypeEntry[] = [];
        for (const c of classes) freshClasses.push(await fresh(index, c));
        let matches = freshClasses.flatMap(pick);
        let inherited = false;
        if (!matches.length) {
          const q = graph.findMethods(`${freshClasses.length === 1 ? (freshClasses[0] as TypeEntry).type.fqn : p.className}.${p.methodName}`);
          matches = q.matches;
          inherited = q.inherited;
        }
        const owners = new Set(matches.map((m) => m.owner.type.fqn + m.owner.path));
        // one type written in several files (Go, C# partial) is not an ambiguity: its methods are all its own
        if (owners.size > 1 && !inherited && classes.length > 1 && !typeInParts(freshClasses)) {
          return ambiguity(p.className, freshClasses.filter((c) => matches.some((m) => m.owner.type === c.type)), how, SOURCE);
        }
        if (!matches.length) throw noMethod(freshClasses);
        return answer(ctx.workspace, p, matches, inherited, SOURCE);
      },
    });
    return written;
  },
});

/** The declarations' sources, Javadoc included, with line numbers: the same shape from either source. */
async function answer(ws: Workspace, p: { className: string; methodName: string }, matches: readonly MethodEntry[], inherited: boolean, source: Source): Promise<{ result: string; structured: unknown }> {
  const out = [t('## Method: {0}', `${p.className}.${p.methodName}`), '', `${t('{0} declaration(s) · source: {1}', matches.length, source)}${inherited ? ` · inherited from ${[...new Set(matches.map((m) => m.owner.type.fqn))].join(', ')}` : ''}`];
  const methods = [];
  const texts = new Map<string, string[]>();
  // All overloads together, each shown twice (Markdown and `structured`), bounded in bytes on the wire.
  const budget = new AnswerBudget();
  let longLines = 0;
  let bytesCut = false;
  for (const m of matches) {
    let text = texts.get(m.owner.path);
    if (!text) texts.set(m.owner.path, (text = splitLines((await readProjectText(ws, m.owner.path)).text)));
    const from = startWithDoc(text, m.method.line);
    const end = Math.min(m.method.endLine, text.length);
    const shown = boundedSource(text, from, Math.min(end, m.method.line + MAX_METHOD_LINES - 1), budget);
    const to = shown.to;
    longLines += shown.longLines;
    bytesCut ||= shown.bytesCut;
    out.push('', `### \`${methodSignature(m.method)}\``, '', `${m.owner.type.fqn} — ${m.owner.path}:${m.method.line}–${m.method.endLine}`, '', numbered(shown.lines, from, to, fenceLanguage(m.owner.path)));
    if (to < end) out.push('', `_Cut at ${shown.bytesCut ? `${ANSWER_BUDGET_BYTES / (1024 * 1024)} MB` : `${MAX_METHOD_LINES} lines`}; read the rest with read_file relativePath=${m.owner.path} start_line=${to + 1} end_line=${end}._`);
    methods.push({ ...methodInfo(m), startLine: from, truncated: to < end, code: shown.lines.slice(from - 1, to).join('\n') });
  }
  if (longLines) out.push('', `_${longLines} line(s) longer than ${MAX_SOURCE_LINE_CHARS} characters were cut._`);
  const omitted = longLines > 0 || bytesCut;
  return {
    result: out.join('\n'),
    structured: {
      source,
      className: p.className,
      methodName: p.methodName,
      inherited,
      methods,
      ...(omitted ? { omitted: ['methods.code'], note: `Lines longer than ${MAX_SOURCE_LINE_CHARS} characters are cut, and the answer is bounded at ${ANSWER_BUDGET_BYTES / (1024 * 1024)} MB; read_file shows the rest.` } : {}),
    },
  };
}
