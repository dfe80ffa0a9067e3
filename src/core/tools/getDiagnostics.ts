import * as z from 'zod';
import { MAX_PATH_CHARS } from '../workspace/paths';
import { t } from '../l10n';
import type { DiagnosticInfo } from '../workspace/workspace';
import { MAX_DIAGNOSTICS, viewOf } from '../write/problems';
import { defineTool } from './tool';

const params = z.object({
  /** A file or folder of the project; the whole project when absent. */
  relativePath: z.preprocess((v) => (v === null || v === '' ? undefined : v), z.string().max(MAX_PATH_CHARS).optional()),
  /** `error`: errors only; `warning` (default): errors and warnings; `all`: also information and hints. */
  severity: z.preprocess((v) => (v === null ? undefined : v), z.enum(['error', 'warning', 'all']).default('warning')),
});

const WANTED = {
  error: new Set(['error']),
  warning: new Set(['error', 'warning']),
  all: new Set(['error', 'warning', 'information', 'hint']),
} as const;

/**
 * get_diagnostics: the editor's Problems (errors and warnings of the language services) in a
 * file, a folder or the whole project, so the agent can check its work the cheapest way. Never a
 * secret file's (their messages can quote the file), never a file outside the project. A host
 * without language services (headless) says so.
 */
export const getDiagnosticsTool = defineTool({
  name: 'get_diagnostics',
  description: "The editor's problems (errors, warnings) in a file, a folder or the whole project.",
  writes: false,
  params,
  paths: (p) => ({ scope: p.relativePath }),
  async handler(p, { workspace, paths }) {
    if (!workspace.diagnostics) {
      return { result: t('This host has no language services, so there are no diagnostics to report.'), structured: { available: false } };
    }
    const within = paths.scope && paths.scope.rel !== '.' ? paths.scope.rel : undefined;
    const all = await workspace.diagnostics(undefined);
    const wanted = WANTED[p.severity];
    const inScope = (rel: string, d: DiagnosticInfo) => wanted.has(d.severity) && (!within || rel === within || rel.startsWith(`${within}/`));
    const { shown, omitted, errors, warnings } = await viewOf(workspace, all, MAX_DIAGNOSTICS, inScope);
    const where = within ?? t('the project');
    const lines = [
      `## ${t('Problems in {0}: {1} errors, {2} warnings', where, errors, warnings)}`,
      ...(shown.length === 0 ? ['', t('No problems reported. (Language services report on the files they have analysed, usually the open ones.)')] : ['']),
      ...shown.map((d) => `- \`${d.path}:${d.line}:${d.column}\` **${d.severity}** ${d.message}${d.source ? ` (${d.source}${d.code ? ` ${d.code}` : ''})` : ''}`),
      ...(omitted > 0 ? ['', t('{0} more not shown: narrow relativePath or severity.', omitted)] : []),
    ];
    return { result: lines.join('\n'), structured: { available: true, path: where, errors, warnings, problems: shown, omitted } };
  },
});
