import * as vscode from 'vscode';
import type { NotebookCellEdit } from '../../core/edit/types';
import type { CommittedChange } from '../../core/write/gate';
import { encodeText, type Encoding } from '../../core/workspace/text';
import { minimalReplace } from '../../core/edit/eol';
import { readRegularFileSync } from '../../core/policy/safeRead';
import { decodeText } from '../../core/workspace/text';

/**
 * Writes an approved text into the workspace the way an edit by hand would be: a WorkspaceEdit on
 * the document (so Undo works), then save. The text is exactly what the diff showed (formatting
 * happened before it was shown). A document that had unsaved edits of the developer's is changed
 * in place but not saved, so their work is not written behind their back.
 *
 * `original` is the text the change was computed from (undefined: the file is created).
 */
export async function writeText(uri: vscode.Uri, text: string, encoding: Encoding, original: string | undefined): Promise<Pick<CommittedChange, 'finalText' | 'saved'>> {
  const exists = original !== undefined;
  if (!exists) {
    const create = new vscode.WorkspaceEdit();
    create.createFile(uri, { overwrite: false, contents: encodeText(text, encoding) });
    if (!(await vscode.workspace.applyEdit(create))) throw new Error(`VS Code refused to create ${uri.fsPath}`);
    // Created with exactly these bytes: nothing is left to edit or save.
    return { finalText: text, saved: true };
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  // An open, saved document catches up with a change on disk only when the file watcher tells it:
  // editing it before then would compute the edit on stale text and fail to save ("file modified
  // since"). Wait for it briefly; never edit a copy that is not the text the change was made for.
  if (!doc.isDirty && doc.getText() !== original) await caughtUp(doc, original, 3000);
  if (doc.getText() !== original) {
    throw new Error(`${vscode.workspace.asRelativePath(uri)}: the editor's copy of the file is not the text the change was made for (it changed meanwhile); nothing was written`);
  }
  const wasDirty = doc.isDirty;
  const before = doc.getText();
  if (before !== text) {
    const r = minimalReplace(before, text);
    const we = new vscode.WorkspaceEdit();
    we.replace(uri, new vscode.Range(doc.positionAt(r.start), doc.positionAt(r.end)), r.text);
    if (!(await vscode.workspace.applyEdit(we))) throw new Error(`VS Code refused the edit to ${uri.fsPath}`);
  }
  const saved = wasDirty ? false : await doc.save();
  return { finalText: doc.getText(), saved };
}

/** Resolves once the document's text is `text` (it reloaded from disk), or after `ms`. */
function caughtUp(doc: vscode.TextDocument, text: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      sub.dispose();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const sub = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document === doc && doc.getText() === text) done();
    });
  });
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

/**
 * The text the developer has now, read as the tools read it: an unsaved buffer wins; otherwise the
 * disk (a saved buffer may not have caught up with a change on disk yet, and normalizes mixed line
 * endings). Read on a checked handle: a file swapped for a FIFO while the diff was open cannot hang
 * the extension host.
 */
export function currentText(uri: vscode.Uri): string | undefined {
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (doc?.isDirty) return doc.getText();
  try {
    // A hard-linked target's names were judged when the change was planned; this read only compares.
    return decodeText(readRegularFileSync(uri.fsPath, undefined, undefined, () => true)).text;
  } catch {
    return undefined;
  }
}

