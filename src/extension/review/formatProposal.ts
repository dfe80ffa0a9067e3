/** Formatting an agent's proposal before its diff is shown, so the developer approves the text that lands (the formatter itself runs in formatter.ts). */
import * as vscode from 'vscode';
import type { ProposedChange } from '../../core/write/gate';
import { minimalReplace } from '../../core/edit/eol';
import type { Logger } from '../../core/log';
import { withinDeadline } from '../../core/deadline';
import { formatText } from './formatter';
import type { ProposalStore } from './proposalFs';

export type FormatMode = 'changedRange' | 'document' | 'off';

/** Proposals larger than this are shown (and written) as the agent sent them: formatting them would hold the diff back. */
const MAX_FORMAT_CHARS = 2_000_000;
/** A formatter gets this long in all; a slow or hung one must not hold the proposal back. */
const FORMAT_DEADLINE_MS = 6000;

/**
 * The proposal as it will be written: the language's formatter run over the lines the change
 * touched (or the whole file in 'document' mode) *before* the diff is shown, so the developer
 * approves exactly the text that lands and nothing is reformatted behind the diff afterwards.
 *
 * The formatter reads a read-only copy of the proposal under the file's own path (so the language,
 * `files.associations` and per-language settings apply); the real file is not opened or touched.
 * No formatter, a formatter that fails or takes too long, a secret file, a notebook or a huge
 * proposal: the agent's text is shown as it is.
 */
export async function formatProposal(store: ProposalStore, change: ProposedChange, mode: FormatMode, log: Logger, signal?: AbortSignal): Promise<string> {
  const proposed = change.proposed;
  if (signal?.aborted || mode === 'off' || change.path.kind === 'secret' || change.notebookEdit || proposed.length > MAX_FORMAT_CHARS || proposed === change.original) return proposed;
  const scratch = store.scratch(change.path.rel, proposed);
  try {
    const outcome = await withinDeadline(formatIn(scratch.uri, change, mode), FORMAT_DEADLINE_MS, signal);
    if (outcome.kind === 'late') log.warn(`${change.id}: the formatter of ${change.path.rel} did not answer within ${FORMAT_DEADLINE_MS} ms; the proposal is shown as the agent sent it`);
    return outcome.kind === 'done' && outcome.value !== undefined ? outcome.value : proposed;
  } catch (err) {
    log.warn(`${change.id}: formatting ${change.path.rel} failed (${err instanceof Error ? err.message : String(err)}); the proposal is shown as the agent sent it`);
    return proposed;
  } finally {
    scratch.dispose();
  }
}

async function formatIn(uri: vscode.Uri, change: ProposedChange, mode: FormatMode): Promise<string | undefined> {
  const doc = await vscode.workspace.openTextDocument(uri);
  // A document normalizes mixed line endings; edits computed on that text would rewrite every line.
  if (doc.languageId === 'plaintext' || doc.getText() !== change.proposed) return undefined;
  const target = vscode.Uri.file(change.path.abs);
  const editorConfig = vscode.workspace.getConfiguration('editor', { uri: target, languageId: doc.languageId });
  const options: vscode.FormattingOptions = { tabSize: editorConfig.get<number>('tabSize', 4), insertSpaces: editorConfig.get<boolean>('insertSpaces', true) };
  const range = mode === 'document' ? undefined : changedRange(doc, change);
  if (mode !== 'document' && !range) return undefined;
  return formatText(doc, range, options);
}

/** The lines of the proposal the change touched: as the tool reported them, else the text that differs from the original. */
function changedRange(doc: vscode.TextDocument, change: ProposedChange): vscode.Range | undefined {
  const last = doc.lineCount - 1;
  const lineRange = (start: number, end: number) => {
    const s = Math.max(0, Math.min(start, last));
    const e = Math.max(s, Math.min(end, last));
    return new vscode.Range(s, 0, e, doc.lineAt(e).text.length);
  };
  if (change.original === undefined) return lineRange(0, last);
  if (change.changedLines) return lineRange(change.changedLines.startLine - 1, change.changedLines.endLine - 1);
  const r = minimalReplace(change.original, change.proposed);
  if (r.text.length === 0 && r.start === r.end) return undefined;
  return lineRange(doc.positionAt(r.start).line, doc.positionAt(r.start + r.text.length).line);
}
