import * as z from 'zod';
import { MAX_PATH_CHARS } from '../workspace/paths';
import { boundSearchResult, formatMarkdown, search, toStructured } from '../search';
import { boolParam, intParam } from './params';
import type { Access } from '../policy/accessPolicy';
import { defineTool, type ToolContext, type ToolOutput } from './tool';

/** `null` from a backend means "not given": the default applies. */
const orDefault = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === null ? undefined : v), schema);

/**
 * The params of grep_file (docs/protocol.md §5.2) and text_search (same engine). `projectKey` and
 * `webSocketSessionId` may ride along in params: the object drops them.
 */
export const searchParams = z.object({
  pattern: z.string().min(1, 'must not be empty'),
  relativePath: orDefault(z.string().max(MAX_PATH_CHARS).optional()),
  regex: orDefault(boolParam().default(false)),
  case_sensitive: orDefault(boolParam().default(false)),
  context_lines: orDefault(intParam().pipe(z.number().min(0)).default(0)),
  limit: orDefault(intParam().pipe(z.number().min(1)).default(20)),
  file_type: orDefault(z.string().max(1000).default('all')),
});

export type SearchParams = z.output<typeof searchParams>;

/** The handler both search tools share. */
export async function runSearch(p: SearchParams, ctx: ToolContext & { readonly paths: { readonly scope?: Access } }): Promise<ToolOutput> {
  const result = await search(
    ctx.workspace,
    {
      pattern: p.pattern,
      relativePath: ctx.paths.scope,
      regex: p.regex,
      caseSensitive: p.case_sensitive,
      contextLines: p.context_lines,
      limit: p.limit,
      fileType: p.file_type,
    },
    ctx.signal,
    ctx.log,
  );
  // Cut before either part is built: each repeats every line shown.
  const bounded = boundSearchResult(result);
  return { result: formatMarkdown(bounded), structured: toStructured(bounded) };
}

export const grepFileTool = defineTool({
  name: 'grep_file',
  description:
    'Search the contents of project files for a literal string or a regular expression (ripgrep syntax), ' +
    'in one file, one folder or the whole project. Honours .gitignore and the workspace exclusions, skips ' +
    'binary files. Returns matching lines (N:) with context lines (N-) as Markdown, sorted by path and line, ' +
    'at most `limit` of them, with the total count.',
  writes: false,
  params: searchParams,
  paths: (p) => ({ scope: p.relativePath }),
  handler: runSearch,
});
