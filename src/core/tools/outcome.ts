/**
 * A tool answer's outcome in one plain line ("Lines 1–8 of 8 · java", "Matches: 3 lines in 2
 * files"), read from its `structured` data, in the developer's language. The chat shows it on the
 * collapsed row of a tool call. One reader per tool that has something to say; the writing tools
 * have none, as the chat shows their change as a diff.
 */
import * as z from 'zod';
import { isTranslated, t } from '../l10n';
import { modeLine } from '../search/format';
import { lines } from './codeAnswers';

const readFile = z.object({
  startLine: z.number(),
  endLine: z.number(),
  totalLines: z.number(),
  language: z.string(),
  source: z.string(),
});

const search = z.object({
  pattern: z.string(),
  path: z.string(),
  regex: z.boolean(),
  caseSensitive: z.boolean(),
  fileType: z.string(),
  totalMatches: z.number(),
  totalFiles: z.number(),
  binaryFile: z.boolean().optional(),
});

/** read_class, read_method and call_chain answer a name that several classes carry with the candidates. */
const ambiguous = z.object({ ambiguous: z.literal(true), candidates: z.array(z.object({ className: z.string() })) });

const classStructure = z.object({ source: z.string(), path: z.string(), package: z.string(), line: z.number(), endLine: z.number(), signature: z.string() });
const classSource = z.object({ source: z.string(), path: z.string(), startLine: z.number(), totalLines: z.number(), content: z.string() });

const methods = z.object({
  source: z.string(),
  inherited: z.boolean(),
  methods: z.array(z.object({ className: z.string() })),
});

const callTrees = z.array(z.object({ children: z.array(z.unknown()) }));
const callChain = z.object({ callers: callTrees.optional(), callees: callTrees.optional() });

const diagnostics = z.union([
  z.object({ available: z.literal(false) }),
  z.object({ available: z.literal(true), path: z.string(), errors: z.number(), warnings: z.number() }),
]);

function searchOutcome(structured: unknown): string | undefined {
  const s = search.safeParse(structured).data;
  if (!s) return undefined;
  const where = s.path === '.' ? t('the project') : s.path;
  if (s.totalMatches === 0) {
    return s.binaryFile ? `No matches: ${s.path} is a binary file, and binary files are not searched.` : t('No matches for {0} in {1} ({2}).', s.pattern, where, modeLine(s, t));
  }
  // English says "1 line" but "2 lines"; the translation's wording needs no plural.
  if (isTranslated('Matches: {0} lines in {1} files ({2})')) return t('Matches: {0} lines in {1} files ({2})', s.totalMatches, s.totalFiles, modeLine(s, t));
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return `Matches: ${count(s.totalMatches, 'line', 'lines')} in ${count(s.totalFiles, 'file', 'files')} (${modeLine(s, t)})`;
}

function ambiguityOutcome(structured: unknown): string | undefined {
  const a = ambiguous.safeParse(structured).data;
  return a && t('Several classes match: {0}', a.candidates.map((c) => c.className).join(', '));
}

const OUTCOMES: Readonly<Partial<Record<string, (structured: unknown) => string | undefined>>> = {
  read_file(structured) {
    const r = readFile.safeParse(structured).data;
    if (!r) return undefined;
    const facts = [
      r.totalLines === 0 ? t('Empty file') : t('Lines {0}–{1} of {2}', r.startLine, r.endLine, r.totalLines),
      r.language || undefined,
      r.source === 'buffer' ? t('unsaved editor buffer') : undefined,
    ];
    return facts.filter(Boolean).join(' · ');
  },
  grep_file: searchOutcome,
  text_search: searchOutcome,
  read_class(structured) {
    const whole = classStructure.safeParse(structured).data;
    if (whole) return t('File: {0} · {1} · package {2} · source: {3}', whole.path, lines(whole.line, whole.endLine, t), whole.package || t('(default)'), whole.source);
    const source = classSource.safeParse(structured).data;
    if (source) return t('File: {0} · {1} · source: {2}', source.path, lines(source.startLine, source.startLine + source.totalLines - 1, t), source.source);
    return ambiguityOutcome(structured);
  },
  read_method(structured) {
    const m = methods.safeParse(structured).data;
    if (!m) return ambiguityOutcome(structured);
    const from = m.inherited ? ` · inherited from ${[...new Set(m.methods.map((x) => x.className))].join(', ')}` : '';
    return t('{0} declaration(s) · source: {1}', m.methods.length, m.source) + from;
  },
  call_chain(structured) {
    const c = callChain.safeParse(structured).data;
    if (!c || (!c.callers && !c.callees)) return ambiguityOutcome(structured);
    // The direct callers and callees of the roots; deeper levels are in the tree.
    const direct = (trees: z.output<typeof callTrees>) => trees.reduce((n, root) => n + root.children.length, 0);
    return [c.callers && t('{0} caller(s)', direct(c.callers)), c.callees && t('{0} callee(s)', direct(c.callees))].filter(Boolean).join(' · ');
  },
  get_diagnostics(structured) {
    const d = diagnostics.safeParse(structured).data;
    if (!d) return undefined;
    if (!d.available) return t('This host has no language services, so there are no diagnostics to report.');
    return t('Problems in {0}: {1} errors, {2} warnings', d.path, d.errors, d.warnings);
  },
};

/** The outcome of a successful answer of `toolName`, or undefined when its data says nothing worth a line. */
export function toolOutcome(toolName: string, structured: unknown): string | undefined {
  const outcome = Object.hasOwn(OUTCOMES, toolName) ? OUTCOMES[toolName] : undefined;
  return outcome?.(structured) || undefined;
}
