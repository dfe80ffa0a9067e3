/**
 * What the developer does with a code block of an answer. Insert at Cursor is their own edit, in
 * the editor they last used: typed into the buffer, undoable, not saved (refused in a secret or a
 * protected file, where Apply asks instead). Apply replaces the editor's selection (or, with none,
 * the whole file) through the one write path every change of the agent takes, which shows the diff
 * and writes only what is approved (a protected file always asks; a secret one is refused).
 */
import * as vscode from 'vscode';
import { accessPolicy } from '../../core/policy/accessPolicy';
import { ToolError } from '../../core/protocol/errors';
import type { ChangeGate } from '../../core/write/gate';
import { planAndWrite } from '../../core/write/write';
import { selectedLines } from './attachments';
import type { Workspace } from '../../core/workspace/workspace';
import { splitLines } from '../../core/workspace/text';

let counter = 0;

/**
 * The text editor the developer used last: the active one, or the one they left for the chat (the
 * chat in an editor tab takes the active editor's place) while it is still visible. Never a guess
 * among other visible editors: the code would land in a file the developer did not choose.
 */
export function lastTextEditor(remembered: vscode.TextEditor | undefined): vscode.TextEditor | undefined {
  const active = vscode.window.activeTextEditor;
  if (active) return active;
  return remembered && vscode.window.visibleTextEditors.includes(remembered) ? remembered : undefined;
}

/**
 * The editor's file as a project path, or why the code may not go into it: not the served
 * folder's, a secret file, a protected one (unless `allowProtected`).
 */
async function target(ws: Workspace, doc: vscode.TextDocument, allowProtected: boolean): Promise<{ readonly rel: string } | { readonly why: string }> {
  const t = vscode.l10n.t;
  const policy = accessPolicy(ws);
  const access = await policy.resolve(doc.uri.fsPath).catch((e: unknown) => e as Error);
  if (access instanceof Error) return { why: access.message };
  const linked = access.kind === 'normal' ? await policy.linkedKind(access.abs) : access.kind;
  if (access.kind === 'secret' || linked === 'secret') return { why: t('{0} is a secret file; Agent Bridge does not put code from the chat into it.', access.rel) };
  if (!allowProtected && (await policy.forWrite(access)).kind === 'protected') return { why: t('{0} is a protected file: use Apply, which shows the change for your approval.', access.rel) };
  return { rel: access.rel };
}

/** Inserts at the cursor (over the selection) of a file of the served folder; returns why not. */
export async function insertAtCursor(ws: Workspace | undefined, editor: vscode.TextEditor | undefined, code: string): Promise<string | undefined> {
  const t = vscode.l10n.t;
  if (!editor || editor.document.uri.scheme !== 'file') return t('Open the file to insert into, put the cursor where the code goes, then try again.');
  if (!ws) return t('No folder is served, so nothing can be applied.');
  const to = await target(ws, editor.document, false);
  if ('why' in to) return to.why;
  const ok = await editor.edit((b) => b.replace(editor.selection, code));
  if (!ok) return t('The editor did not take the insertion.');
  await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
  return undefined;
}

/**
 * Proposes the code over the selection (or the whole file) through the one write path every
 * agent change takes (core/write/write.ts: the file lock, the unwritable-file checks, a hard link
 * to a protected file treated as protected, the approval gate) and waits for the decision; returns why not.
 */
export async function applyToEditor(ws: Workspace | undefined, gate: ChangeGate | undefined, editor: vscode.TextEditor | undefined, code: string): Promise<string | undefined> {
  const t = vscode.l10n.t;
  if (!ws || !gate) return t('No folder is served, so nothing can be applied.');
  if (!vscode.workspace.isTrusted) return t('This workspace is not trusted, so nothing is written to it.');
  if (!editor || editor.document.uri.scheme !== 'file') return t('Open the file to apply to (select the lines to replace, or none for the whole file), then try again.');
  const doc = editor.document;
  const to = await target(ws, doc, true);
  if ('why' in to) return to.why;
  const rel = to.rel;
  const sel = editor.selection;
  const whole = sel.isEmpty;
  const lines = selectedLines(sel);
  try {
    const description = whole ? t('A code block from the chat, as the whole file') : t('A code block from the chat, over lines {0}–{1}', lines.start, lines.end);
    const ctx = { workspace: ws, callId: `chat-apply-${Date.now().toString(36)}-${(++counter).toString(36)}`, signal: new AbortController().signal, changes: gate };
    const out = await planAndWrite(ctx, 'Apply', rel, description, (current) => {
      // The selection's offsets are the buffer's: they hold only while the text read is that buffer's.
      if (!current || current.text !== doc.getText()) throw new ToolError('CONFLICT', t('{0} changed while the change was prepared; try again.', rel));
      const start = whole ? 0 : doc.offsetAt(sel.start);
      const end = whole ? current.text.length : doc.offsetAt(sel.end);
      // A whole file keeps its final newline. A code block always ends with one: over a selection
      // that does not (part of a line), it would split the line, so it is dropped.
      const selected = current.text.slice(start, end);
      const inserted = whole
        ? current.text.endsWith('\n') && !code.endsWith('\n') ? `${code}\n` : code
        : !selected.endsWith('\n') && code.endsWith('\n') ? code.slice(0, -1) : code;
      const proposed = current.text.slice(0, start) + inserted + current.text.slice(end);
      if (proposed === current.text) return { kind: 'unchanged', extra: undefined };
      const first = whole ? 1 : lines.start;
      return { kind: 'write', proposed, changedLines: { startLine: first, endLine: Math.max(first, first + splitLines(inserted).length - 1) }, extra: undefined };
    });
    return out.written ? undefined : t('{0} already has this code there.', rel);
  } catch (e) {
    if (e instanceof ToolError && e.code === 'USER_REJECTED') return undefined;
    return e instanceof Error ? e.message : String(e);
  }
}
