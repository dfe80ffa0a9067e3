import * as vscode from 'vscode';
import type { CommittedChange, NotebookCellEdit } from '../../core/edit/gate';
import { encodeText, type Encoding } from '../../core/text';

export type FormatMode = 'changedRange' | 'document' | 'off';

/** The smallest single replacement that turns `before` into `after`: keeps cursors, folds and undo tidy. */
function minimalReplace(before: string, after: string): { start: number; end: number; text: string } {
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let tail = 0;
  while (tail < max - start && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  return { start, end: before.length - tail, text: after.slice(start, after.length - tail) };
}

async function format(doc: vscode.TextDocument, mode: FormatMode, range: vscode.Range): Promise<boolean> {
  if (mode === 'off') return false;
  const editorConfig = vscode.workspace.getConfiguration('editor', doc);
  const options: vscode.FormattingOptions = {
    tabSize: editorConfig.get<number>('tabSize', 4),
    insertSpaces: editorConfig.get<boolean>('insertSpaces', true),
  };
  // A language without a formatter answers undefined: that is not an error, the change stays as is.
  const edits =
    mode === 'document'
      ? await vscode.commands.executeCommand<vscode.TextEdit[] | undefined>('vscode.executeFormatDocumentProvider', doc.uri, options)
      : await vscode.commands.executeCommand<vscode.TextEdit[] | undefined>('vscode.executeFormatRangeProvider', doc.uri, range, options);
  // Only edits inside the lines the change touched: a formatter that reaches beyond the range
  // (or 'document' mode) must not change lines the developer never saw in the diff.
  const inside = mode === 'document' ? edits : edits?.filter((e) => e.range.start.line >= range.start.line && e.range.end.line <= range.end.line);
  if (!inside?.length) return false;
  const we = new vscode.WorkspaceEdit();
  we.set(doc.uri, inside);
  return vscode.workspace.applyEdit(we);
}

/**
 * Writes an approved text into the workspace the way an edit by hand would be: a WorkspaceEdit on
 * the document (so Undo works), formatting of the changed lines, then save. A document that had
 * unsaved edits of the developer's is changed in place but not saved, so their work is not
 * written behind their back.
 */
export async function writeText(uri: vscode.Uri, text: string, encoding: Encoding, exists: boolean, formatMode: FormatMode): Promise<Omit<CommittedChange, 'modifiedByUser'>> {
  if (!exists) {
    const create = new vscode.WorkspaceEdit();
    create.createFile(uri, { overwrite: false, contents: encodeText(text, encoding) });
    if (!(await vscode.workspace.applyEdit(create))) throw new Error(`VS Code refused to create ${uri.fsPath}`);
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  const wasDirty = doc.isDirty;
  const before = doc.getText();
  let changed = new vscode.Range(0, 0, doc.lineCount, 0);
  if (exists && before !== text) {
    const r = minimalReplace(before, text);
    const we = new vscode.WorkspaceEdit();
    we.replace(uri, new vscode.Range(doc.positionAt(r.start), doc.positionAt(r.end)), r.text);
    if (!(await vscode.workspace.applyEdit(we))) throw new Error(`VS Code refused the edit to ${uri.fsPath}`);
    const startLine = doc.positionAt(r.start).line;
    const endLine = doc.positionAt(r.start + r.text.length).line;
    changed = new vscode.Range(startLine, 0, endLine, doc.lineAt(endLine).text.length);
  }
  const formatted = await format(doc, formatMode, changed);
  const saved = wasDirty ? false : await doc.save();
  return { finalText: doc.getText(), formatted, saved };
}

/** A cell edit applied through the notebook API, for a notebook that is open in a notebook editor. */
export async function writeNotebookCell(notebook: vscode.NotebookDocument, edit: NotebookCellEdit): Promise<Omit<CommittedChange, 'modifiedByUser' | 'finalText'>> {
  const kind = edit.cellType === 'markdown' ? vscode.NotebookCellKind.Markup : vscode.NotebookCellKind.Code;
  const cell = new vscode.NotebookCellData(kind, edit.source, edit.cellType === 'markdown' ? 'markdown' : edit.language);
  const range = edit.mode === 'insert' ? new vscode.NotebookRange(edit.index, edit.index) : new vscode.NotebookRange(edit.index, edit.index + 1);
  const wasDirty = notebook.isDirty;
  const we = new vscode.WorkspaceEdit();
  we.set(notebook.uri, [vscode.NotebookEdit.replaceCells(range, edit.mode === 'delete' ? [] : [cell])]);
  if (!(await vscode.workspace.applyEdit(we))) throw new Error(`VS Code refused the notebook edit to ${notebook.uri.fsPath}`);
  const saved = wasDirty ? false : await notebook.save();
  return { formatted: false, saved };
}
