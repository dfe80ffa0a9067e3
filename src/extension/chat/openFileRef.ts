/**
 * Opens a `path:line` reference clicked in the chat. The text is the agent's, so the path is
 * checked again here: relative, inside the served folder once links are resolved, a regular file.
 * A bare name the agent used (`Main.java:12`) opens when exactly one file of the folder has it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** The characters the chat's link finder accepts: nothing that could be a glob or leave the folder by itself. */
const SAFE = /^[\w./-]+$/;

/** Opens the file at the line; returns why not (for the status bar) when it cannot. */
export async function openFileRef(folder: vscode.Uri | undefined, rel: string, line: number | undefined): Promise<string | undefined> {
  const t = vscode.l10n.t;
  if (!folder || folder.scheme !== 'file') return t('Agent Bridge: no folder is served, so {0} cannot be opened.', rel);
  const clean = rel.replace(/^\.\//, '');
  if (!SAFE.test(clean) || path.posix.isAbsolute(clean) || clean.split('/').includes('..')) return t('Agent Bridge: {0} is not a path inside this workspace.', rel);
  const root = fs.realpathSync.native(folder.fsPath);
  let target = inside(root, path.join(root, clean));
  if (!target && !clean.includes('/')) {
    // A bare file name: the one file of the folder with that name, if there is exactly one.
    const found = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, `**/${clean}`), undefined, 2);
    if (found.length === 1) target = inside(root, found[0].fsPath);
  }
  if (!target) return t('Agent Bridge: there is no file {0} in this workspace.', rel);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(target));
  const at = line ? Math.min(line, doc.lineCount) - 1 : 0;
  await vscode.window.showTextDocument(doc, { preview: true, selection: new vscode.Range(at, 0, at, 0) });
  return undefined;
}

/** The real path of `candidate` when it is a regular file inside `root` (links resolved), else undefined. */
function inside(root: string, candidate: string): string | undefined {
  try {
    const real = fs.realpathSync.native(candidate);
    if (!real.startsWith(root + path.sep) || !fs.statSync(real).isFile()) return undefined;
    return real;
  } catch {
    return undefined;
  }
}
