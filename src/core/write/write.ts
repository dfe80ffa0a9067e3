import { readProjectText, type ProjectText } from '../policy/projectText';
import { t } from '../l10n';
import { ToolError } from '../protocol/errors';
import { encodeText } from '../workspace/text';
import { accessPolicy, type Access } from '../policy/accessPolicy';
import { JudgedPath } from './judgedPath';
import { EXCLUDE_GLOBS_SETTING } from '../policy/secrets';
import type { Workspace } from '../workspace/workspace';
import type { ChangeGate, CommittedChange } from './gate';
import type { NotebookCellEdit } from '../edit/types';
import { problemsBefore, reportAfterWrite, type DiagnosticsReport } from './diagnostics';
import { withFileLock } from './lock';
import { enterWrite, holdProposal, preparingSlot } from './writeLoad';
import { patchSliced, type Patch } from '../edit/patch';
import { runSliced, STALE } from '../code/index/slices';
import type { Hunk, LineRange } from '../edit/types';

/** What the write path needs of a call (a tool's context is one). */
export interface WriteContext {
  readonly workspace: Workspace;
  readonly callId: string;
  /** Aborted when the call is cancelled or times out; long work should stop when it fires. */
  readonly signal: AbortSignal;
  /** Where writing tools send their changes for approval and writing; absent where nothing may be written. */
  readonly changes?: ChangeGate;
  /** Told how long a change waited for the developer, so the answer's time counts only the work. */
  readonly onApprovalWait?: (ms: number) => void;
}

/** What a writing tool decided, given the file's current text (undefined: the file does not exist). */
export type WritePlan<X> =
  | { readonly kind: 'write'; readonly proposed: string; readonly changedLines?: LineRange; readonly notebookEdit?: NotebookCellEdit; readonly extra: X }
  /** Nothing to write (already applied, or identical): answered without asking anyone. */
  | { readonly kind: 'unchanged'; readonly extra: X };

export interface WriteOutcome<X> {
  readonly path: Access;
  readonly original: string | undefined;
  readonly created: boolean;
  readonly written: boolean;
  readonly committed?: CommittedChange;
  /** The text now in the file (or buffer). */
  readonly finalText: string;
  readonly structuredPatch: Hunk[];
  readonly added: number;
  readonly removed: number;
  /** True when the change was too large to list: the hunks give line numbers and counts, no lines. */
  readonly linesOmitted: boolean;
  /** New errors and warnings in the file once the change landed (absent when nothing was written). */
  readonly diagnostics?: DiagnosticsReport;
  readonly extra: X;
}

async function currentText(ctx: WriteContext, target: Access): Promise<ProjectText | undefined> {
  try {
    // A secret target is read only here, after a person allowed the change (see planAndWrite).
    return await readProjectText(ctx.workspace, target, target.kind === 'secret');
  } catch (e) {
    if (e instanceof ToolError && e.code === 'NOT_FOUND') return undefined;
    throw e;
  }
}

/**
 * A file that cannot be written back as it is, except for the edit, is refused before anything
 * is planned: a read-only file, and bytes that do not survive decoding and encoding again (a
 * Latin-1 or Shift-JIS file read as UTF-8 would have every other non-ASCII byte replaced).
 */
async function refuseUnwritable(ctx: WriteContext, current: ProjectText): Promise<void> {
  if (current.bytes && !Buffer.from(encodeText(current.text, current.encoding)).equals(Buffer.from(current.bytes.buffer, current.bytes.byteOffset, current.bytes.byteLength))) {
    throw new ToolError(
      'BAD_REQUEST',
      t('{0} is not valid {1} (it may be in a legacy encoding such as Latin-1 or Shift-JIS). Agent Bridge does not edit it: writing it back would change bytes outside the edit. Nothing was written.', current.path.rel, current.encoding === 'utf16le' || current.encoding === 'utf16be' ? 'UTF-16' : 'UTF-8'),
    );
  }
  if (current.source === 'disk' && (await ctx.workspace.stat(current.path.abs))?.readonly) {
    throw new ToolError('PERMISSION_DENIED', t('{0} is read-only; Agent Bridge does not change read-only files. Nothing was written.', current.path.rel));
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The one path every writing tool takes: the path through the access policy (`file` as named, or
 * the dispatcher's judgement of it, which must still lead to the same file), a person's consent
 * first when the file is secret, then lock the file, read what the developer currently has, let
 * the tool plan the change, and hand it to the host's gate for approval and writing. The patch is computed against what was really written.
 * `paramChars` is the text an agent's params carry (none for the developer's own changes): calls
 * waiting for their file are bounded by it.
 */
export async function planAndWrite<X>(
  ctx: WriteContext,
  toolName: string,
  file: string | Access,
  description: string | undefined,
  plan: (current: ProjectText | undefined) => WritePlan<X> | Promise<WritePlan<X>>,
  paramChars = 0,
): Promise<WriteOutcome<X>> {
  const policy = accessPolicy(ctx.workspace);
  // Judged with every folder on the way, so the host can tell right before writing that nothing changed.
  const [requested, earlier] = typeof file === 'string' ? [file, undefined] : [file.rel, file];
  const target = (await JudgedPath.judge(policy, ctx.workspace.root, requested, earlier)).access;
  if (target.kind === 'secret') {
    if (!ctx.changes?.allowSecretChange) {
      throw new ToolError(
        'PERMISSION_DENIED',
        t('{0} is a secret file ("{1}" in {2}): a change to it needs a person\'s consent, and this host has nobody to ask. Nothing was read or written.', target.rel, target.rule ?? '?', EXCLUDE_GLOBS_SETTING),
      );
    }
    const asked = performance.now();
    try {
      await ctx.changes.allowSecretChange({ id: ctx.callId, toolName, path: target, description }, ctx.signal);
    } finally {
      ctx.onApprovalWait?.(performance.now() - asked);
    }
  }
  // Counted from before the lock: calls queued on one file's lock would otherwise hold their params unbounded.
  const leaveWaiting = enterWrite(paramChars);
  try {
    return await withFileLock(target.abs, lockedWrite);
  } finally {
    leaveWaiting();
  }

  async function lockedWrite(): Promise<WriteOutcome<X>> {
    const prepared = await preparingSlot(ctx.signal);
    let releaseHeld: (() => void) | undefined;
    try {
      return await readPlanCommit();
    } finally {
      prepared();
      releaseHeld?.();
    }

    async function readPlanCommit(): Promise<WriteOutcome<X>> {
      const current = await currentText(ctx, target);
      if (current) await refuseUnwritable(ctx, current);
      const decided = await plan(current);
      const original = current?.text;
      if (decided.kind === 'unchanged') {
        return { path: target, original, created: false, written: false, finalText: original ?? '', structuredPatch: [], added: 0, removed: 0, linesOmitted: false, extra: decided.extra };
      }
      // UTF-8 cannot hold half a surrogate pair: it would be written as U+FFFD, not what was approved.
      if ((current?.encoding ?? 'utf8').startsWith('utf8') && LONE_SURROGATE.test(decided.proposed)) {
        throw new ToolError('BAD_REQUEST', t('The new text holds half of a UTF-16 surrogate pair, which UTF-8 cannot store. Nothing was written. Send the character whole.'));
      }
      if (!ctx.changes) {
        throw new ToolError('PERMISSION_DENIED', t('This host has no way to ask for approval, so it cannot write files.'));
      }
      // Judged again now: a HEAD may have landed beside the file while this call waited for the consent or the lock.
      const judged = await JudgedPath.judge(policy, ctx.workspace.root, target.rel, target);
      // The file's problems now, to tell the agent after the write which ones its change brought.
      const problems = await problemsBefore(ctx.workspace, target.abs, target.kind === 'secret');
      // From here the proposal waits on a person: it gives up its slot but its text stays counted.
      releaseHeld = holdProposal((original?.length ?? 0) + decided.proposed.length);
      prepared();
      leaveWaiting();
      const committed = await ctx.changes.commit(
        {
          id: ctx.callId,
          toolName,
          path: judged.access,
          judged,
          original,
          proposed: decided.proposed,
          encoding: current?.encoding ?? 'utf8',
          description,
          changedLines: decided.changedLines,
          notebookEdit: decided.notebookEdit,
        },
        ctx.signal,
        ctx.onApprovalWait ? { approvalWait: ctx.onApprovalWait } : undefined,
      );
      const patch = await patchOfWritten(original ?? '', committed.finalText);
      // A secret file's problems are never quoted (their messages can show its lines).
      const diagnostics = target.kind === 'secret' ? undefined : await reportAfterWrite(ctx.workspace, target.abs, problems, ctx.signal);
      return {
        ...(diagnostics ? { diagnostics } : {}),
        path: target,
        original,
        created: current === undefined,
        written: true,
        committed,
        finalText: committed.finalText,
        structuredPatch: patch.hunks,
        added: patch.added,
        removed: patch.removed,
        linesOmitted: patch.linesOmitted,
        extra: decided.extra,
      };
    }
  }
}

/** The patch of a change already written, in slices; not cancelled, as the answer must say what landed. */
async function patchOfWritten(before: string, after: string): Promise<Patch> {
  const patch = await runSliced(patchSliced(before, after));
  // Without a stale check the run always finishes.
  if (patch === STALE) throw new Error('patch reported stale without a stale check');
  return patch;
}

/** A writing tool's answer with the diagnostics of its outcome added (when there are any to report). */
export function withDiagnostics<T extends object>(answer: T, out: Pick<WriteOutcome<unknown>, 'diagnostics'>): T & { diagnostics?: DiagnosticsReport } {
  return out.diagnostics ? { ...answer, diagnostics: out.diagnostics } : answer;
}
