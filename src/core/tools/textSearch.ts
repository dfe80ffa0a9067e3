import { defineTool } from './tool';
import { runSearch, searchParams } from './grepFile';

/** text_search: the backend's name for a project-wide grep (docs/protocol.md §5.3); the same params and engine as grep_file. */
export const textSearchTool = defineTool({
  name: 'text_search',
  description:
    'Search the whole project (or `relativePath`) for text or a regular expression; same parameters and ' +
    'result as grep_file.',
  writes: false,
  params: searchParams,
  paths: (p) => ({ scope: p.relativePath }),
  handler: runSearch,
});
