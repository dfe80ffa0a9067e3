import * as z from 'zod';
import { MAX_PATH_CHARS } from '../workspace/paths';
import { t } from '../l10n';
import { ToolError } from '../protocol/errors';
import type { Access } from '../policy/accessPolicy';

/**
 * The edit tools (docs/protocol.md §5.8–§5.11) name their file `file_path` (often absolute, as the agent that wrote
 * them does); `relativePath`, as the other tools say, is accepted too. Containment applies either way.
 */
export const filePathFields = {
  file_path: z.string().min(1).max(MAX_PATH_CHARS).optional(),
  relativePath: z.string().min(1).max(MAX_PATH_CHARS).optional(),
};

/** The file an edit tool names, for its `paths()`: `file_path`, else `relativePath`. */
export const fileParam = (p: { file_path?: string; relativePath?: string }) => ({ file: p.file_path ?? p.relativePath });

/**
 * The file an edit tool writes: as the agent wrote it (what its messages quote) and as the
 * dispatcher judged it (what it writes). Refused when the call names none.
 */
export function targetOf(p: { file_path?: string; relativePath?: string }, judged: Access | undefined): { requested: string; file: Access } {
  const requested = p.file_path ?? p.relativePath;
  if (!requested || !judged) throw new ToolError('VALIDATION_FAILED', t('file_path: is required'));
  return { requested, file: judged };
}
