import * as vscode from 'vscode';
import type { Logger } from '../../core/log';
import { ToolError } from '../../core/protocol/errors';
import type { CommittedChange, ProposedChange } from '../../core/write/gate';
import { createText, currentText, showWritten, writeNotebookFile, writeText } from './writeChange';

/** What the developer approved: the text (with their edits, without dropped hunks) and where its diff was. */
export interface Approved {
  readonly text: string;
  readonly dropped: number;
  readonly column?: vscode.ViewColumn;
}

/** A change written to the developer's file: what the Agent Changes list records. */
export interface Written {
  readonly change: ProposedChange;
  readonly finalText: string;
  readonly notebook: boolean;
}

/**
 * Writes an approved change (or one auto-approved: `approved` undefined, the shown text lands)
 * after judging its path again and checking the file did not change meanwhile, and says what
 * really landed: exactly the approved text, its new lines in the file's line ending.
 */
export async function writeApproved(change: ProposedChange, uri: vscode.Uri, shown: string, approved: Approved | undefined, log: Logger, onWritten: (w: Written) => void): Promise<CommittedChange> {
  const finalProposal = approved?.text ?? shown;
  const modifiedByUser = finalProposal !== shown;
  const formatted = shown !== change.proposed;
  // Judged again before anything is read or written by name: a folder on the way swapped for a
  // link while the diff waited, or a path that became protected or secret, is refused.
  await change.judged.recheck('while the change waited for approval');
  // Never apply a proposal over text that changed after it was computed.
  if (currentText(uri) !== change.original) {
    throw new ToolError('CONFLICT', `${change.path.rel} changed while the proposal was waiting; nothing was written. Read it again and send a new change.`);
  }
  if (change.notebookEdit && change.original !== undefined) {
    const { notReloaded, ...r } = await writeNotebookFile(uri, finalProposal, change.encoding, change.original, change.path.rel, change.judged);
    if (notReloaded) log.info(`${change.id}: the open notebook ${change.path.rel} had not reloaded the written file after 3 s`);
    onWritten({ change, finalText: r.finalText, notebook: true });
    const rewritten = r.finalText !== finalProposal;
    log.info(`${change.toolName} ${change.id}: wrote ${change.path.rel} as approved${modifiedByUser ? ' (edited by the developer)' : ''}${rewritten ? '; it was saved anew since (the agent is told what is on disk)' : ''}`);
    return { ...r, formatted: formatted || rewritten, modifiedByUser };
  }
  const r = change.original === undefined ? await createText(uri, finalProposal, change.encoding, change.judged) : await writeText(uri, finalProposal, change.original, change.judged);
  onWritten({ change, finalText: r.finalText, notebook: false });
  const viewColumn = approved?.column;
  if (viewColumn !== undefined) await showWritten(uri, viewColumn).catch((e: unknown) => log.debug(`${change.id}: could not show ${uri.fsPath}: ${e instanceof Error ? e.message : String(e)}`));
  log.info(`${change.toolName} ${change.id}: wrote ${change.path.rel}${modifiedByUser ? ' (edited by the developer)' : ''}${formatted ? ', formatted' : ''}${r.saved ? ', saved' : ', left unsaved'}`);
  // New lines take the file's line ending: when the text on disk differs from the approved one
  // (that, or another writer since), the answer says what is on disk.
  const changedOnSave = r.saved && change.original !== undefined && r.finalText !== finalProposal;
  if (changedOnSave) log.info(`${change.id}: the text of ${change.path.rel} on disk differs from the approved one (the file's line ending applied to new lines, or a write since); the agent is told what is on disk`);
  return { ...r, formatted: formatted || changedOnSave, modifiedByUser, ...(approved?.dropped ? { droppedHunks: approved.dropped } : {}) };
}
