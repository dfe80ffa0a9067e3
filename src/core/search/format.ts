import { fenceFor, languageOf } from '../workspace/text';
import { isTranslated, t, type Translate } from '../l10n';
import { describeFileType } from './fileTypes';
import { AnswerBudget, wireCost } from '../protocol/answerBudget';
import { MAX_LIMIT, type FileMatches, type LineMatch, type SearchResult } from './types';

/**
 * The answer the agent reads (Markdown) and the same facts for machines (`structured`).
 *
 * ```
 * ## Search: `TODO` in core/src
 * **Matches**: 3 in 2 files (literal, case-insensitive)
 *
 * ### core/src/File.java
 * ```java
 * 12: // TODO fix
 * 13- next context line
 * --
 * 40: TODO again
 * ```
 * ```
 * A matching line is `N:`, a context line `N-` (grep's convention), `--` separates groups of lines
 * that are not adjacent; files and lines come sorted by path, then line number.
 */

/** Inline code that survives backticks inside. */
function inlineCode(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const ticks = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function where(r: SearchResult, t: Translate): string {
  return r.path === '.' ? t('the project') : r.path;
}

/** How a search matched: "literal, case-insensitive", with its file type when it had one. */
export function modeLine(r: Pick<SearchResult, 'regex' | 'caseSensitive' | 'fileType'>, t: Translate): string {
  const parts = [r.regex ? t('regex') : t('literal'), r.caseSensitive ? t('case-sensitive') : t('case-insensitive')];
  const type = describeFileType(r.fileType);
  if (type !== undefined) parts.push(t('file type: {0}', type));
  return parts.join(', ');
}

function fileBlock(f: FileMatches): string[] {
  const cutLines = new Set(f.matches.filter((m) => m.cut).map((m) => m.line));
  const rows = new Map<number, { text: string; match: boolean }>();
  const put = (line: number, text: string, match: boolean): void => {
    // The note under the heading explains the mark.
    if (match && cutLines.has(line)) text = `${text} [cut]`;
    const existing = rows.get(line);
    if (!existing || (match && !existing.match)) rows.set(line, { text, match });
  };
  for (const m of f.matches) {
    m.before.forEach((t, i) => put(m.line - m.before.length + i, t, false));
    put(m.line, m.text, true);
    m.after.forEach((t, i) => put(m.line + 1 + i, t, false));
  }
  const numbers = [...rows.keys()].sort((a, b) => a - b);
  const body: string[] = [];
  let previous: number | undefined;
  for (const n of numbers) {
    const row = rows.get(n) as { text: string; match: boolean };
    if (previous !== undefined && n !== previous + 1) body.push('--');
    body.push(`${n}${row.match ? ':' : '-'} ${row.text}`);
    previous = n;
  }
  const fence = fenceFor(body.join('\n'));
  const shown = f.matches.length < f.totalMatches ? ` (first ${f.matches.length} of ${f.totalMatches} matches)` : '';
  return [`### ${f.path}${shown}`, `${fence}${languageOf(f.path)}`, ...body, fence];
}

/** The Markdown result, in the developer's language (headings and counts; notes stay English). */
export function formatMarkdown(r: SearchResult): string {
  const out: string[] = [t('## Search: {0} in {1}', inlineCode(r.pattern), where(r, t))];
  if (r.totalMatches === 0) {
    if (r.binaryFile) {
      out.push(`No matches: ${r.path} is a binary file, and binary files are not searched.`);
    } else {
      out.push(t('No matches for {0} in {1} ({2}).', inlineCode(r.pattern), where(r, t), modeLine(r, t)));
    }
    for (const note of r.notes) out.push(`_Note: ${note}_`);
    return `${out.join('\n')}\n`;
  }
  out.push(
    !isTranslated('**Matches**: {0} lines in {1} files ({2})')
      ? `**Matches**: ${plural(r.totalMatches, 'line', 'lines')} in ${plural(r.totalFiles, 'file', 'files')} (${modeLine(r, t)})`
      : t('**Matches**: {0} lines in {1} files ({2})', r.totalMatches, r.totalFiles, modeLine(r, t)),
  );
  if (r.truncated) {
    const hidden = r.totalMatches - r.returnedMatches;
    const how =
      r.limit < MAX_LIMIT
        ? `raise \`limit\` (now ${r.limit}, at most ${MAX_LIMIT}) or narrow \`relativePath\``
        : 'narrow `relativePath`, `file_type` or the pattern';
    out.push(
      `**Showing**: the first ${r.returnedMatches} (sorted by path, then line); ${hidden} more not shown. To see them, ${how}.`,
    );
  }
  for (const note of r.notes) out.push(`_Note: ${note}_`);
  for (const f of r.files) {
    out.push('', ...fileBlock(f));
  }
  return `${out.join('\n')}\n`;
}

/**
 * The result cut, match by match, to what its Markdown and `structured` (each holding every line)
 * may cost on the wire together; the cut says how many matches it left out. Unchanged when it fits.
 */
export function boundSearchResult(r: SearchResult, budget: AnswerBudget = new AnswerBudget()): SearchResult {
  const lineCost = (text: string): number => wireCost(text) + 24;
  const files: FileMatches[] = [];
  let kept = 0;
  for (const f of r.files) {
    const matches: LineMatch[] = [];
    for (const m of f.matches) {
      let cost = lineCost(m.text);
      for (const line of m.before) cost += lineCost(line);
      for (const line of m.after) cost += lineCost(line);
      if (!budget.spend(2 * cost + 64)) break;
      matches.push(m);
    }
    if (matches.length) files.push(matches.length === f.matches.length ? f : { ...f, matches });
    kept += matches.length;
    if (matches.length < f.matches.length) break;
  }
  if (kept === r.returnedMatches) return r;
  const note = `Only the first ${kept} of ${r.returnedMatches} matches are shown: with their context lines the answer would be over ${Math.round(budget.bytes / (1024 * 1024))} MB. Ask for fewer context_lines, a smaller limit or a narrower relativePath.`;
  return { ...r, files, returnedMatches: kept, truncated: true, notes: [...r.notes, note] };
}

/** The machine-readable result: a SearchResult's fields, copied as plain JSON data in a fixed key order. */
export type StructuredSearchResult = SearchResult;

/** The machine-readable result (plain JSON data). */
export function toStructured(r: SearchResult): StructuredSearchResult {
  return {
    pattern: r.pattern,
    path: r.path,
    pathKind: r.pathKind,
    regex: r.regex,
    caseSensitive: r.caseSensitive,
    contextLines: r.contextLines,
    fileType: r.fileType,
    limit: r.limit,
    totalMatches: r.totalMatches,
    totalFiles: r.totalFiles,
    returnedMatches: r.returnedMatches,
    truncated: r.truncated,
    ...(r.binaryFile ? { binaryFile: true } : {}),
    notes: [...r.notes],
    files: r.files.map((f) => ({
      path: f.path,
      totalMatches: f.totalMatches,
      matches: f.matches.map((m) => ({
        line: m.line,
        column: m.column,
        text: m.text,
        before: [...m.before],
        after: [...m.after],
        ...(m.cut ? { cut: true as const } : {}),
      })),
    })),
  };
}
