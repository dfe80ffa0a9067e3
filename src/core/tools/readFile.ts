import * as z from 'zod';
import { readProjectText } from '../policy/projectText';
import { ToolError } from '../protocol/errors';
import { fenceFor, languageOf, splitLines } from '../workspace/text';
import { t } from '../l10n';
import { defineTool } from './tool';
import { ANSWER_BUDGET_BYTES, AnswerBudget, wireCost } from '../protocol/answerBudget';
import { intParam, pathParam } from './params';
import { MAX_SOURCE_LINE_CHARS, shownLine } from './boundedSource';

/** Larger reads are cut here, with a note saying how to read on. */
export const MAX_READ_LINES = 2000;

const params = z.object({
  relativePath: pathParam(),
  start_line: intParam().pipe(z.number().min(1)).optional(),
  end_line: intParam().pipe(z.number().min(1)).optional(),
  line: intParam().pipe(z.number().min(1)).optional(),
  context_lines: intParam().pipe(z.number().min(0)).default(20),
});

function chooseRange(p: z.output<typeof params>, total: number): { from: number; to: number } {
  if (p.line !== undefined) {
    if (p.line > Math.max(total, 1)) {
      throw new ToolError('VALIDATION_FAILED', `line: ${p.line} is past the end of the file (${total} lines).`);
    }
    return { from: Math.max(1, p.line - p.context_lines), to: Math.min(total, p.line + p.context_lines) };
  }
  const from = p.start_line ?? 1;
  const to = Math.min(p.end_line ?? total, total);
  if (p.start_line !== undefined && from > Math.max(total, 1)) {
    throw new ToolError('VALIDATION_FAILED', `start_line: ${from} is past the end of the file (${total} lines).`);
  }
  if (p.end_line !== undefined && p.end_line < from) {
    throw new ToolError('VALIDATION_FAILED', `end_line: ${p.end_line} is before start_line ${from}.`);
  }
  return { from, to };
}

export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a project file (whole, start_line..end_line, or line ± context_lines) as line-numbered Markdown.',
  writes: false,
  params,
  paths: (p) => ({ file: p.relativePath }),
  async handler(p, { workspace, paths }) {
    const file = await readProjectText(workspace, paths.file);
    const lines = splitLines(file.text);
    const total = lines.length;
    const range = chooseRange(p, total);
    const capped = range.to - range.from + 1 > MAX_READ_LINES;
    let to = capped ? range.from + MAX_READ_LINES - 1 : range.to;

    const width = String(Math.max(to, 1)).length;
    let longLines = 0;
    const shown: string[] = [];
    const content: string[] = [];
    // Bounded as it is built, in bytes on the wire: 2,000 lines of 2,000 control characters would be 24 MB twice.
    const budget = new AnswerBudget();
    let bytesCutAt: number | undefined;
    for (let n = range.from; n <= to; n++) {
      const line = lines[n - 1] ?? '';
      if (line.length > MAX_SOURCE_LINE_CHARS) longLines++;
      const text = shownLine(line);
      const kept = line.slice(0, MAX_SOURCE_LINE_CHARS);
      if (!budget.spend(wireCost(text) + wireCost(kept) + width + 8)) {
        bytesCutAt = n;
        break;
      }
      shown.push(`${String(n).padStart(width)} | ${text}`);
      content.push(kept);
    }
    if (bytesCutAt !== undefined) to = bytesCutAt - 1;
    const body = shown.join('\n');
    const language = languageOf(file.path.rel);
    const fence = fenceFor(body);

    const facts = [
      total === 0 ? t('Empty file') : t('Lines {0}–{1} of {2}', range.from, to, total),
      language || undefined,
      file.source === 'buffer' ? t('unsaved editor buffer') : undefined,
    ].filter(Boolean);
    const out = [t('## File: {0}', file.path.rel), '', facts.join(' · ')];
    if (total > 0) out.push('', `${fence}${language}`, body, fence);
    if (capped) {
      out.push('', range.to < total || p.end_line !== undefined
        ? t('**Output capped at {0} lines.** Read the rest with start_line={1} and end_line={2}.', MAX_READ_LINES, to + 1, range.to)
        : t('**Output capped at {0} lines.** Read the rest with start_line={1}.', MAX_READ_LINES, to + 1));
    }
    if (bytesCutAt !== undefined) {
      out.push('', t('**Output cut at {0} MB.** Read the rest with start_line={1}.', ANSWER_BUDGET_BYTES / (1024 * 1024), bytesCutAt));
    }
    if (longLines) out.push('', t('{0} line(s) longer than {1} characters were cut.', longLines, MAX_SOURCE_LINE_CHARS));

    return {
      result: out.join('\n'),
      structured: {
        path: file.path.rel,
        startLine: total === 0 ? 0 : range.from,
        endLine: to,
        totalLines: total,
        truncated: capped || bytesCutAt !== undefined,
        source: file.source,
        language,
        content: content.join('\n'),
        ...(longLines || bytesCutAt !== undefined
          ? { omitted: ['content'], note: `content holds the lines shown, each cut at ${MAX_SOURCE_LINE_CHARS} characters${bytesCutAt !== undefined ? `, up to line ${to}` : ''}.` }
          : {}),
      },
    };
  },
});
