import * as z from 'zod';
import { MAX_PATH_CHARS } from '../workspace/paths';
import { t } from '../l10n';
import { ToolError } from '../protocol/errors';

/**
 * The edit tools (docs/protocol.md §5.8–§5.11) name their file `file_path` (often absolute, as the agent that wrote
 * them does); `relativePath`, as the other tools say, is accepted too. Containment applies either way.
 */
export const filePathFields = {
  file_path: z.string().min(1).max(MAX_PATH_CHARS).optional(),
  relativePath: z.string().min(1).max(MAX_PATH_CHARS).optional(),
};

export function targetOf(p: { file_path?: string; relativePath?: string }): string {
  const target = p.file_path ?? p.relativePath;
  if (!target) throw new ToolError('VALIDATION_FAILED', t('file_path: is required'));
  return target;
}
