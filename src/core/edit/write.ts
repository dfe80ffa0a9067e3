import { readProjectText, type ProjectText } from '../files';
import { translator } from '../l10n';
import { resolveInProject, type ProjectPath } from '../paths';
import { ToolError } from '../protocol/errors';
import type { ToolContext } from '../tools/tool';
import type { CommittedChange, NotebookCellEdit } from './gate';
import { withFileLock } from './lock';
import { patchCounts, structuredPatchOf } from './patch';
import type { Hunk, LineRange } from './types';

/** What a writing tool decided, given the file's current text (undefined: the file does not exist). */
export type WritePlan<X> =
  | { readonly kind: 'write'; readonly proposed: string; readonly changedLines?: LineRange; readonly notebookEdit?: NotebookCellEdit; readonly extra: X }
  /** Nothing to write (already applied, or identical): answered without asking anyone. */
  | { readonly kind: 'unchanged'; readonly extra: X };

export interface WriteOutcome<X> {
  readonly path: ProjectPath;
  readonly original: string | undefined;
  readonly created: boolean;
  readonly written: boolean;
  readonly committed?: CommittedChange;
  /** The text now in the file (or buffer). */
  readonly finalText: string;
  readonly structuredPatch: Hunk[];
  readonly added: number;
  readonly removed: number;
  readonly extra: X;
}

async function currentText(ctx: ToolContext, relativePath: string): Promise<ProjectText | undefined> {
  try {
    return await readProjectText(ctx.workspace, relativePath);
  } catch (e) {
    if (e instanceof ToolError && e.code === 'NOT_FOUND') return undefined;
    throw e;
  }
}

/**
 * The one path every writing tool takes: contain the path, lock the file, read what the developer
 * currently has, let the tool plan the change, then hand it to the host's gate for approval and
 * writing. The patch is computed against what was really written.
 */
export async function planAndWrite<X>(
  ctx: ToolContext,
  toolName: string,
  relativePath: string,
  description: string | undefined,
  plan: (current: ProjectText | undefined) => WritePlan<X>,
): Promise<WriteOutcome<X>> {
  const target = await resolveInProject(ctx.workspace, relativePath);
  return withFileLock(target.abs, async () => {
    const current = await currentText(ctx, relativePath);
    const decided = plan(current);
    const original = current?.text;
    if (decided.kind === 'unchanged') {
      return { path: target, original, created: false, written: false, finalText: original ?? '', structuredPatch: [], added: 0, removed: 0, extra: decided.extra };
    }
    if (!ctx.changes) {
      throw new ToolError('PERMISSION_DENIED', translator(ctx.workspace.locale)('This host has no way to ask for approval, so it cannot write files.'));
    }
    const committed = await ctx.changes.commit(
      {
        id: ctx.callId,
        toolName,
        path: target,
        original,
        proposed: decided.proposed,
        encoding: current?.encoding ?? 'utf8',
        description,
        changedLines: decided.changedLines,
        notebookEdit: decided.notebookEdit,
      },
      ctx.signal,
    );
    const structuredPatch = structuredPatchOf(original ?? '', committed.finalText);
    return {
      path: target,
      original,
      created: current === undefined,
      written: true,
      committed,
      finalText: committed.finalText,
      structuredPatch,
      ...patchCounts(structuredPatch),
      extra: decided.extra,
    };
  });
}
