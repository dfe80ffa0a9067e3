/**
 * What the developer does with a code block of an answer. Insert at Cursor is their own edit, in
 * the editor they last used: typed into the buffer, undoable, not saved. Apply replaces the
 * editor's selection (or, with none, the whole file) through the one write path every change of
 * the agent takes: the access policy, then the approval gate, which shows the diff and writes only
 * what is approved (a protected file always asks; a secret one is refused).
 */
import * as vscode from 'vscode';
import { readProjectText } from '../../core/policy/projectText';
import { accessPolicy } from '../../core/policy/accessPolicy';
import { ToolError } from '../../core/protocol/errors';
import type { ChangeGate } from '../../core/write/gate';
import type { Workspace } from '../../core/workspace/workspace';
import { splitLines } from '../../core/workspace/text';

let counter = 0;

/** The text editor the developer used last: the chat itself takes the focus when its button is clicked. */
export function lastTextEditor(remembered: vscode.TextEditor | undefined): vscode.TextEditor | undefined {
  const active = vscode.window.activeTextEditor;
  if (active) return active;
  return remembered && vscode.window.visibleTextEditors.includes(remembered) ? remembered : vscode.window.visibleTextEditors[0];
}

/** Inserts at the cursor (over the selection); returns why not. */
export async function insertAtCursor(editor: vscode.TextEditor | undefined, code: string): Promise<string | undefined> {
  const t = vscode.l10n.t;
  if (!editor) return t('Open the file to insert into, put the cursor where the code goes, then try again.');
  const ok = await editor.edit((b) => b.replace(editor.selection, code));
  if (!ok) return t('The editor did not take the insertion.');
  await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
  return undefined;
}

/** Proposes the code over the selection (or the whole file) and waits for the developer's decision; returns why not. */
export async function applyToEditor(ws: Workspace | undefined, gate: ChangeGate | undefined, editor: vscode.TextEditor | undefined, code: string): Promise<string | undefined> {
  const t = vscode.l10n.t;
  if (!ws || !gate) return t('No folder is served, so nothing can be applied.');
  if (!editor || editor.document.uri.scheme !== 'file') return t('Open the file to apply to (select the lines to replace, or none for the whole file), then try again.');
  const doc = editor.document;
  try {
    const access = await accessPolicy(ws).resolve(doc.uri.fsPath);
    if (access.kind === 'secret') throw accessPolicy(ws).denial(access);
    const current = await readProjectText(ws, access.rel, access);
    // The selection's offsets are the buffer's: they hold only while the text read is that buffer's.
    if (current.text !== doc.getText()) return t('{0} changed while the change was prepared; try again.', access.rel);
    const sel = editor.selection;
    const whole = sel.isEmpty;
    const start = whole ? 0 : doc.offsetAt(sel.start);
    const end = whole ? current.text.length : doc.offsetAt(sel.end);
    // A whole file keeps its final newline; a replaced selection takes the code as it is.
    const inserted = whole && current.text.endsWith('\n') && !code.endsWith('\n') ? `${code}\n` : code;
    const proposed = current.text.slice(0, start) + inserted + current.text.slice(end);
    if (proposed === current.text) return t('{0} already has this code there.', access.rel);
    const firstLine = whole ? 1 : sel.start.line + 1;
    await gate.commit(
      {
        id: `chat-apply-${Date.now().toString(36)}-${(++counter).toString(36)}`,
        toolName: 'Apply',
        path: access,
        original: current.text,
        proposed,
        encoding: current.encoding,
        description: whole ? t('A code block from the chat, as the whole file') : t('A code block from the chat, over lines {0}–{1}', firstLine, sel.end.line + 1),
        changedLines: { startLine: firstLine, endLine: Math.max(firstLine, firstLine + splitLines(inserted).length - 1) },
      },
      new AbortController().signal,
    );
    return undefined;
  } catch (e) {
    if (e instanceof ToolError && e.code === 'USER_REJECTED') return undefined;
    return e instanceof Error ? e.message : String(e);
  }
}
