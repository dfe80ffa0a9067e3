import * as z from 'zod';
import { t } from '../l10n';
import { readProjectText } from '../policy/projectText';
import { ToolError } from '../protocol/errors';
import { splitLines } from '../workspace/text';
import { AnswerBudget } from '../protocol/answerBudget';
import { boundedSource, MAX_SOURCE_LINE_CHARS } from './boundedSource';
import { boolParam, intParam, nameParam } from './params';
import { defineTool } from './tool';
import type { Workspace } from '../workspace/workspace';
import { callText, isConstructorName, parseMethodSpec, paramsMatch, type CallGraph, type CallTree, type CallTreeNode, type PossibleCaller } from '../code/index/callGraph';
import type { Sliced } from '../code/index/slices';
import type { MethodEntry, TypeEntry } from '../code/index/codeIndex';
import type { ResolvedCall } from '../code/java/resolver';
import { MAX_CALL_SITES } from '../code/packedSymbols';
import { QUERY_LIMITS } from '../code/parse/exprBounds';
import { ambiguity, methodInfo, numbered, shortName, SOURCE } from './codeAnswers';
import { LspCallTree } from '../code/lsp/lspCalls';
import type { LspSession } from '../code/lsp/lspLookup';
import { fenceLanguage, LSP_SOURCE, type Source } from '../code/lsp/attempt';
import { notFound } from './readClass';
import { answerCodeQuestion } from '../code/intel/codeQuestion';
import { answerFromCallIndex } from '../code/intel/neededCallSites';
import { answerFromNeededFiles } from '../code/intel/neededFilesIndex';

/**
 * call_chain: callers and/or callees of `ClassName.methodName` (every overload unless parameter
 * types are given) as trees to `depth`, each node with class, method, file and the line of the
 * call. Answered by static analysis of the sources ("parser"): calls through an interface or
 * superclass go to that declaration; callers include calls made through a method the target
 * overrides (marked "via supertype"); calls whose receiver type cannot be told are listed as
 * unresolved, never guessed.
 */

const params = z.object({
  method: nameParam(),
  direction: z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(['callers', 'callees', 'both'])).default('both'),
  depth: intParam().pipe(z.number().min(1).max(5)).default(1),
  includeSource: boolParam().default(false),
});

const MAX_SOURCE_LINES = 1500;
const MAX_LINES_PER_METHOD = 120;
/** What one method's source may cost on the wire, and all of them: each is sent twice (Markdown and `structured`). */
const MAX_SOURCE_BYTES_PER_METHOD = 256 * 1024;
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

interface TreeJson {
  readonly className?: string;
  readonly methodName?: string;
  readonly signature?: string;
  readonly path?: string;
  readonly line?: number;
  readonly external?: string;
  readonly implicit?: boolean;
  readonly anonymous?: boolean;
  readonly callLine?: number;
  readonly call?: string;
  readonly virtual?: boolean;
  readonly cycle?: boolean;
  readonly repeated?: boolean;
  readonly unresolved?: ReadonlyArray<{ readonly line: number; readonly call: string; readonly reason: string }>;
  readonly children: readonly TreeJson[];
}

const unresolvedJson = (rs: readonly ResolvedCall[]) => rs.map((r) => ({ line: r.site.line, call: callText(r.site), reason: r.reason ?? 'unresolved' }));

function toJson(n: CallTreeNode): TreeJson {
  const m = n.method ? methodInfo(n.method) : undefined;
  return {
    ...(m ? { className: m.className, methodName: m.methodName, signature: m.signature, path: m.path, line: m.line } : {}),
    ...(n.external ? { external: n.external } : {}),
    ...(n.implicit ? { implicit: true } : {}),
    ...(n.anonymous ? { anonymous: true } : {}),
    ...(n.line !== undefined ? { callLine: n.line } : {}),
    ...(n.call ? { call: n.call } : {}),
    ...(n.virtual ? { virtual: true } : {}),
    ...(n.cycle ? { cycle: true } : {}),
    ...(n.repeated ? { repeated: true } : {}),
    ...(n.unresolved ? { unresolved: unresolvedJson(n.unresolved) } : {}),
    children: n.children.map(toJson),
  };
}

function render(n: CallTreeNode, direction: 'callers' | 'callees', indent: string, out: string[]): void {
  const where = n.method ? `${n.method.owner.path}:${n.method.method.line}` : '';
  const why = n.anonymous ? 'anonymous subclass' : n.implicit ? 'implicit' : 'outside the project';
  const name = n.method ? `\`${shortName(n.method)}\`` : `\`${n.external}\` (${why})`;
  const at = n.line === undefined ? '' : direction === 'callees' ? ` · called at line ${n.line}: \`${n.call}\`` : ` · calls it at line ${n.line}: \`${n.call}\``;
  const marks = `${n.virtual ? ' · via supertype' : ''}${n.cycle ? ' · ↻ cycle (already on this path)' : ''}${n.repeated ? ' · (expanded above)' : ''}`;
  out.push(`${indent}- ${name}${where ? ` — ${where}` : ''}${at}${marks}`);
  for (const u of n.unresolved ?? []) out.push(`${indent}  - unresolved: \`${callText(u.site)}\` at line ${u.site.line} — ${u.reason ?? 'unknown'}`);
  for (const c of n.children) render(c, direction, `${indent}  `, out);
}

function collect(nodes: readonly CallTreeNode[], into: Map<string, MethodEntry>): void {
  for (const n of nodes) {
    if (n.method && !n.cycle && !n.repeated) into.set(`${n.method.owner.path}:${n.method.method.line}`, n.method);
    collect(n.children, into);
  }
}

interface Sources {
  readonly markdown: string[];
  readonly json: Record<string, string>;
  /** Cut by the line bounds. */
  readonly cut: boolean;
  /** Cut by the byte bounds. */
  readonly bytesCut: boolean;
  /** Lines cut at MAX_SOURCE_LINE_CHARS. */
  readonly longLines: number;
}

async function sources(ws: Workspace, methods: Iterable<MethodEntry>): Promise<Sources> {
  const markdown: string[] = [];
  const json: Record<string, string> = {};
  const files = new Map<string, string[]>();
  const total = new AnswerBudget(MAX_SOURCE_BYTES);
  let budget = MAX_SOURCE_LINES;
  let cut = false;
  let bytesCut = false;
  let longLines = 0;
  for (const m of methods) {
    if (budget <= 0 || total.left === 0) {
      if (budget <= 0) cut = true;
      else bytesCut = true;
      break;
    }
    let text = files.get(m.owner.path);
    if (!text) files.set(m.owner.path, (text = splitLines((await readProjectText(ws, m.owner.path)).text)));
    const from = m.method.line;
    let to = Math.min(m.method.endLine, text.length, from + Math.min(budget, MAX_LINES_PER_METHOD) - 1);
    if (to < m.method.endLine) cut = true;
    const shown = boundedSource(text, from, to, total.part(MAX_SOURCE_BYTES_PER_METHOD));
    longLines += shown.longLines;
    if (shown.bytesCut) {
      bytesCut = true;
      to = shown.to;
    }
    budget -= to - from + 1;
    const key = `${m.owner.path}:${from}`;
    json[key] = shown.lines.slice(from - 1, to).join('\n');
    markdown.push('', `#### ${shortName(m)} — ${key}`, '', to < from ? t('_Not shown: over the size bound for sources._') : numbered(shown.lines, from, to, fenceLanguage(m.owner.path)));
  }
  return { markdown, json, cut, bytesCut, longLines };
}

export const callChainTool = defineTool({
  name: 'call_chain',
  description:
    'Callers and/or callees of a method or function (Java, Kotlin, TypeScript/JavaScript, Python, Go, C#: "ClassName.methodName", optionally with parameter types) as a tree to the given depth, with the file and line of every call. Static analysis of the sources.',
  writes: false,
  params,
  async handler(p, ctx) {
    const how = 'method set to ClassName.methodName with the fully qualified class name';
    const write = (found: Found | { readonly ambiguous: TypeEntry[] }) => ('ambiguous' in found ? ambiguity(p.method, found.ambiguous, how, SOURCE) : answer(p, ctx.workspace, found));
    const { answer: written } = await answerCodeQuestion(ctx, {
      tool: 'call_chain',
      needs: 'calls',
      languageServer: {
        find: (s) => viaServer(p, s),
        async answer(v) {
          if ('classes' in v) throw new ToolError('NOT_FOUND', `No method matches ${p.method} in ${v.classes.map((c) => c.type.fqn).join(', ')}.`);
          const owners = [...new Set(v.roots.map((m) => m.owner))];
          if (owners.length > 1) return ambiguity(p.method, owners, how, LSP_SOURCE);
          return answer(p, ctx.workspace, { source: LSP_SOURCE, roots: v.roots, inherited: false, trees: v.trees, possible: [], missing: [], cut: [] });
        },
      },
      // A Java chain from the files it needs alone (neededFilesIndex.ts), in slices: one file's calls can be costly to type.
      async fromFilesAlone() {
        const spec = parseMethodSpec(p.method);
        const found = await answerFromNeededFiles(ctx.workspace, { ...spec, callers: p.direction !== 'callees' }, (g) => question(g, p), ctx.signal);
        return found && (async () => write(await found()));
      },
      // From the index, once the files the question needs have their call sites (neededCallSites.ts).
      fromIndex: async () => write(await answerFromCallIndex(ctx, (g) => question(g, p))),
    });
    return written;
  },
});

type Direction = 'callers' | 'callees';

/** What a question found, from the parser's graph or from the language server, before it is written out. */
interface Found {
  readonly source: Source;
  readonly roots: MethodEntry[];
  /** The roots are declared in a supertype of the class asked for. */
  readonly inherited: boolean;
  /** The directions asked for. */
  readonly trees: Partial<Record<Direction, CallTree>>;
  /** Parser only: calls that might also reach the roots. */
  readonly possible: readonly PossibleCaller[];
  /** Files whose call sites could not be parsed: the trees cannot show calls made in them. */
  readonly missing: readonly string[];
  /** Files whose call sites are held only in part: the trees cannot show the calls past the cut. */
  readonly cut: readonly string[];
}

const wants = (p: z.output<typeof params>, dir: Direction): boolean => p.direction === 'both' || p.direction === dir;

/**
 * The question, asked of the parser's call graph: the roots, then the trees in the order the
 * answer shows them, pausing where the lookups may take long (slices.ts). Throws the tool's
 * errors; several classes declaring the method: `ambiguous`.
 */
function* question(graph: CallGraph, p: z.output<typeof params>): Sliced<Found | { readonly ambiguous: TypeEntry[] }> {
  const q = graph.findMethods(p.method);
  if (q.declaredIn) {
    throw new ToolError(
      'VALIDATION_FAILED',
      `${p.method} is declared (as a method, or as the name of constructors) in ${q.declaredIn} files of the project, too many to look through. Call again with method set to ClassName.${p.method}, the class fully qualified.`,
    );
  }
  if (!q.matches.length) {
    if (q.classes.length || !p.method.includes('.')) {
      throw new ToolError('NOT_FOUND', `No method matches ${p.method}${q.classes.length ? ` in ${q.classes.map((c) => c.type.fqn).join(', ')}` : ''}.`);
    }
    throw notFound(graph.index, p.method.slice(0, p.method.lastIndexOf('.')));
  }
  const owners = [...new Map(q.matches.map((m) => [m.owner.type, m.owner])).values()];
  if (owners.length > 1 && !q.inherited) return { ambiguous: owners };
  const trees: Partial<Record<Direction, CallTree>> = {};
  const possible: PossibleCaller[] = [];
  for (const dir of ['callees', 'callers'] as const) {
    if (!wants(p, dir)) continue;
    trees[dir] = yield* graph.treeSliced(q.matches, dir, p.depth);
    if (dir === 'callers') for (const r of q.matches) possible.push(...(yield* graph.possibleCallersSliced(r)));
  }
  return { source: SOURCE, roots: q.matches, inherited: q.inherited, trees, possible, missing: graph.index.callSitesMissing(), cut: graph.index.callSitesCut() };
}

/** The roots and their trees from the language server; `classes` when the class is known there but the method is not. */
async function viaServer(p: z.output<typeof params>, s: LspSession): Promise<{ roots: MethodEntry[]; trees: Partial<Record<Direction, CallTree>> } | { classes: TypeEntry[] } | undefined> {
  const spec = parseMethodSpec(p.method);
  let roots: MethodEntry[];
  if (spec.className) {
    const classes = await s.typesNamed(spec.className, undefined, spec.methodName);
    if (!classes) return undefined;
    const ctor = (owner: TypeEntry) => isConstructorName(spec.methodName, owner) || spec.methodName === 'constructor';
    roots = classes.flatMap((owner) =>
      owner.type.methods
        .filter((m) => (ctor(owner) ? m.kind === 'constructor' : m.kind === 'method' && m.name === spec.methodName))
        .filter((m) => !spec.params || paramsMatch(m, spec.params))
        .map((method) => ({ owner, method })),
    );
    if (!roots.length) return { classes };
  } else {
    roots = await s.findFunctions(spec.methodName);
    if (!roots.length) return undefined;
  }
  const trees: Partial<Record<Direction, CallTree>> = {};
  for (const dir of ['callees', 'callers'] as const) {
    if (!wants(p, dir)) continue;
    const t = await new LspCallTree(s).tree(roots, dir, p.depth);
    if (!t) return undefined;
    trees[dir] = t;
  }
  return { roots, trees };
}

async function answer(p: z.output<typeof params>, ws: Workspace, from: Found): Promise<{ result: string; structured: unknown }> {
  const { roots, inherited } = from;
  const server = from.source === LSP_SOURCE ? ws.languageIntel?.serverName : undefined;
  const how = from.source === SOURCE ? "static analysis of the project's sources" : server ? `the call hierarchy of ${server}` : "the editor's call hierarchy provider";
  const out = [
    t('## Call chain: {0}', p.method),
    '',
    `Source: ${from.source} (${how}) · direction ${p.direction} · depth ${p.depth}`,
    `Matched ${roots.length} declaration(s)${inherited ? ' (inherited)' : ''}: ${roots.map((m) => `\`${shortName(m)}\` — ${m.owner.path}:${m.method.line}`).join('; ')}`,
  ];
  const structured: Record<string, unknown> = { source: from.source, ...(server ? { languageServer: server } : {}), method: p.method, direction: p.direction, depth: p.depth, matches: roots.map(methodInfo) };
  const shown = new Map<string, MethodEntry>();
  let truncated = false;
  for (const dir of ['callees', 'callers'] as const) {
    const tree = from.trees[dir];
    if (!tree) continue;
    truncated ||= tree.truncated;
    out.push('', dir === 'callees' ? t('### Callees') : t('### Callers'));
    const count = tree.nodes.reduce((n, r) => n + r.children.length, 0);
    if (!count && !tree.nodes.some((n) => n.unresolved?.length)) out.push('', dir === 'callees' ? t('_No calls._') : t('_No callers found in the project._'));
    else for (const n of tree.nodes) render(n, dir, '', out);
    structured[dir] = tree.nodes.map(toJson);
    if (dir === 'callers') {
      const possible = from.possible;
      if (possible.length) {
        out.push('', `${possible.length} call(s) named ${roots[0]?.method.name} could not be resolved and might also call it:`);
        for (const x of possible.slice(0, 10)) out.push(`- \`${shortName(x.caller)}\` — ${x.caller.owner.path}:${x.site.line}: \`${callText(x.site)}\` (${x.reason})`);
        structured.possibleCallers = possible.slice(0, 50).map((x) => ({ ...methodInfo(x.caller), callLine: x.site.line, call: callText(x.site), reason: x.reason }));
      }
    }
    collect(tree.nodes, shown);
  }
  const named = (files: readonly string[]): string => files.slice(0, 5).join(', ') + (files.length > 5 ? `, and ${files.length - 5} more` : '');
  const missing = from.missing;
  if (missing.length) {
    out.push('', `_Calls made in ${missing.length} file(s) are not listed: their call sites could not be parsed (see the log): ${named(missing)}._`);
    structured.callSitesMissing = missing.slice(0, 50);
  }
  const cut = from.cut;
  if (cut.length) {
    out.push('', `_Calls made in ${cut.length} file(s) are listed only in part: past ${MAX_CALL_SITES.toLocaleString('en')} call sites in one file, past the ${QUERY_LIMITS.ms / 1000} s a file's call sites may take, or nested deeper than ${QUERY_LIMITS.depth.toLocaleString('en')} levels, the rest are left out: ${named(cut)}._`);
    structured.callSitesCut = cut.slice(0, 50);
  }
  if (truncated) out.push('', `_Tree cut at ${400} nodes; ask for a smaller depth or one overload._`);
  structured.truncated = truncated;
  if (p.includeSource) {
    const s = await sources(ws, shown.values());
    out.push('', '### Sources', ...s.markdown);
    if (s.cut) out.push('', `_Sources cut at ${MAX_SOURCE_LINES} lines in all (${MAX_LINES_PER_METHOD} per method); use read_method for the rest._`);
    if (s.longLines) out.push('', `_${s.longLines} source line(s) longer than ${MAX_SOURCE_LINE_CHARS} characters were cut._`);
    if (s.bytesCut) out.push('', `_Sources cut at ${MAX_SOURCE_BYTES / 1024} KB in all (${MAX_SOURCE_BYTES_PER_METHOD / 1024} KB per method); use read_method for the rest._`);
    structured.sources = s.json;
    if (s.cut || s.bytesCut || s.longLines) {
      structured.omitted = ['sources'];
      structured.note = 'Sources were cut to the bounds on lines and bytes; read_method or read_file shows the rest.';
    }
  }
  return { result: out.join('\n'), structured };
}
