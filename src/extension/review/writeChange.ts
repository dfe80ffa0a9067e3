import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { ToolError } from '../../core/protocol/errors';
import type { CommittedChange } from '../../core/write/gate';
import { encodeText, type Encoding } from '../../core/workspace/text';
import { dominantEol, minimalReplace, withEol } from '../../core/edit/eol';
import { readRegularFileSync } from '../../core/policy/safeRead';
import { decodeText } from '../../core/workspace/text';
import { confirmCreated, type JudgedPath, type WriteCheck } from '../../core/write/judgedPath';

/**
 * Replaces a file's bytes whole: written beside it under a short temporary name with its mode, then
 * renamed over it, so no reader (and no crash) ever sees it empty or half written. Synchronous from
 * the caller's last check to the rename, so nothing else runs in between.
 */
function replaceWhole(uri: vscode.Uri, bytes: Uint8Array): void {
  const target = uri.fsPath;
  const tmp = path.join(path.dirname(target), `.agent-bridge-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  const mode = fs.statSync(target).mode & 0o7777;
  try {
    fs.writeFileSync(tmp, bytes, { flag: 'wx', mode });
    fs.chmodSync(tmp, mode);
    fs.renameSync(tmp, target);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Creates a new file with an approved text through VS Code (so Undo works). VS Code creates by name:
 * the path is judged again right before, and the new file confirmed (or removed again) right after.
 */
export async function createText(uri: vscode.Uri, text: string, encoding: Encoding, judged: JudgedPath): Promise<Pick<CommittedChange, 'finalText' | 'saved'>> {
  const bytes = encodeText(text, encoding);
  const create = new vscode.WorkspaceEdit();
  create.createFile(uri, { overwrite: false, contents: bytes });
  await judged.recheck(APPROVED);
  if (!(await vscode.workspace.applyEdit(create))) throw new Error(`VS Code refused to create ${uri.fsPath}`);
  await confirmCreated(judged, bytes);
  // Created with exactly these bytes: nothing is left to edit or save.
  return { finalText: text, saved: true };
}

/**
 * Writes an approved text into an existing file as exactly its bytes: the text shown in the diff,
 * in the file's own encoding and line ending. Saving the document instead would run the save
 * participants (format on save, code actions, trimming whitespace, a final newline), which a
 * workspace's own settings can turn on and which may rewrite lines outside the change; VS Code has
 * no save that skips them. An open document without unsaved edits reloads the file from disk.
 * A document with unsaved edits of the developer's is changed in place but not saved, so their
 * work is neither lost nor written behind their back.
 *
 * `original` is the text the change was computed from. VS Code writes by name, so `check` runs
 * right before the write.
 */
export async function writeText(uri: vscode.Uri, text: string, original: string, check: WriteCheck): Promise<Pick<CommittedChange, 'finalText' | 'saved'>> {
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (doc?.isDirty) return editUnsaved(doc, text, original, check);
  // Read on a checked handle (a FIFO swapped in cannot hang the host): the file must still hold the
  // text the change was made for, and keeps its encoding.
  const onDisk = decodeText(readRegularFileSync(uri.fsPath, undefined, undefined, () => true));
  if (onDisk.text !== original) throw changedMeanwhile(uri);
  const landed = inOneLineEnding(text, original);
  const reloaded = doc && doc.getText() !== landed ? caughtUp(doc, landed, 3000) : undefined;
  await check.recheck(APPROVED);
  replaceWhole(uri, encodeText(landed, onDisk.encoding));
  // An open document shows the file once VS Code sees the change; wait for it briefly, so the
  // developer (and the next call) sees the text that landed.
  await reloaded;
  // What was written, not a read-back: a racer could swap the name meanwhile for a link to a
  // file the agent may not see, and a read-back would put that file's lines in the answer.
  return { finalText: landed, saved: true };
}

/** The developer's unsaved buffer gets the change as an edit (Undo works), and stays unsaved. */
async function editUnsaved(doc: vscode.TextDocument, text: string, original: string, check: WriteCheck): Promise<Pick<CommittedChange, 'finalText' | 'saved'>> {
  if (doc.getText() !== original) throw changedMeanwhile(doc.uri);
  await check.recheck(APPROVED);
  if (original !== text) {
    const r = minimalReplace(original, text);
    const we = new vscode.WorkspaceEdit();
    we.replace(doc.uri, new vscode.Range(doc.positionAt(r.start), doc.positionAt(r.end)), r.text);
    if (!(await vscode.workspace.applyEdit(we))) throw new Error(`VS Code refused the edit to ${vscode.workspace.asRelativePath(doc.uri)}`);
  }
  return { finalText: doc.getText(), saved: false };
}

function changedMeanwhile(uri: vscode.Uri): ToolError {
  return new ToolError('CONFLICT', `${vscode.workspace.asRelativePath(uri)} is not the text the change was made for (it changed meanwhile); nothing was written. Read it again and send a new change.`);
}

/**
 * New lines take the file's line ending, as they would typed into its editor (a file with mixed
 * line endings never gets here); a file without any keeps the change's most common one.
 */
function inOneLineEnding(text: string, original: string): string {
  const eol = dominantEol(original) ?? dominantEol(text);
  return eol ? withEol(text, eol) : text;
}

const APPROVED = 'after the change was approved';

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

/** The notebook open in a notebook editor for this file, if any. */
function openNotebook(uri: vscode.Uri): vscode.NotebookDocument | undefined {
  return vscode.workspace.notebookDocuments.find((n) => n.uri.toString() === uri.toString());
}

/**
 * A notebook whose notebook editor has unsaved changes is not changed: its cells are not the text
 * the change was computed from, and writing the file under it would set up a lost edit on its save.
 */
export function refuseUnsavedNotebook(uri: vscode.Uri, rel: string): void {
  if (openNotebook(uri)?.isDirty) {
    throw new ToolError('CONFLICT', `${rel} is open in a notebook editor with unsaved changes. Agent Bridge does not change a notebook under them; nothing was written. Ask the developer to save or revert the notebook, then read it again.`);
  }
}

/**
 * Writes an approved notebook change as exactly the bytes the diff showed. Saving through the
 * notebook API would have VS Code's serializer write the whole file anew (sorted keys, big
 * integers rounded, `1.0` as `1`). An open notebook editor then reloads the file; a notebook opened
 * as JSON text with unsaved edits gets the change like any text file (in its buffer, unsaved).
 */
export async function writeNotebookFile(uri: vscode.Uri, text: string, encoding: Encoding, original: string, rel: string, judged: JudgedPath): Promise<Pick<CommittedChange, 'finalText' | 'saved'> & { notReloaded?: true }> {
  if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString() && d.isDirty)) return writeText(uri, text, original, judged);
  refuseUnsavedNotebook(uri, rel);
  const notebook = openNotebook(uri);
  const reloaded = notebook ? notebookChanged(notebook, 3000) : undefined;
  await judged.recheck(APPROVED);
  replaceWhole(uri, encodeText(text, encoding));
  // A saved notebook reloads from disk when VS Code sees the change; wait for it briefly, so the
  // developer (and the next call) sees the cells that landed.
  const notReloaded = (await reloaded) === false;
  // What was written, not a read-back (see writeText).
  return { finalText: text, saved: true, ...(notReloaded ? { notReloaded } : {}) };
}

/** Resolves true when the notebook's content changes (it reloaded from disk), false after `ms`. */
function notebookChanged(notebook: vscode.NotebookDocument, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (changed: boolean) => {
      clearTimeout(timer);
      sub.dispose();
      resolve(changed);
    };
    const timer = setTimeout(() => done(false), ms);
    const sub = vscode.workspace.onDidChangeNotebookDocument((e) => {
      if (e.notebook === notebook && (e.contentChanges.length > 0 || e.cellChanges.length > 0)) done(true);
    });
  });
}

/**
 * The approved file takes the place of its diff (a preview tab in its column, the focus left where
 * it is): the developer sees what landed, and the language services analyse it (they report
 * problems only on files open in the editor), so the answer can say which problems the change brought.
 */
export async function showWritten(uri: vscode.Uri, viewColumn: vscode.ViewColumn): Promise<void> {
  const open = vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString()));
  if (!open) await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: true, viewColumn });
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

