/**
 * Opens a `path:line` reference clicked in the chat. The text is the agent's, so the path goes
 * through the core's access policy like any path a tool names: resolved to where it really leads
 * and refused outside the project; then it must be a regular file. A bare name the agent used
 * (`Main.java:12`) opens when exactly one file of the folder has it.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { accessPolicy, type AccessPolicy } from '../../core/policy/accessPolicy';
import { toRelative } from '../../core/workspace/paths';
import type { Workspace } from '../../core/workspace/workspace';

/** The characters the chat's link finder accepts: nothing a file search would take for a glob. */
const SAFE = /^[\w./-]+$/;

/** Opens the file at the line; returns why not (for the status bar) when it cannot. */
export async function openFileRef(ws: Workspace | undefined, rel: string, line: number | undefined): Promise<string | undefined> {
  const t = vscode.l10n.t;
  if (!ws) return t('Agent Bridge: no folder is served, so {0} cannot be opened.', rel);
  if (!SAFE.test(rel)) return t('Agent Bridge: {0} is not a path inside this workspace.', rel);
  const policy = accessPolicy(ws);
  let target = await regularFile(policy, rel);
  if (!target && !rel.includes('/')) {
    // A bare file name: the one file of the folder with that name, if there is exactly one.
    const found = await vscode.workspace.findFiles(new vscode.RelativePattern(vscode.Uri.file(ws.root), `**/${rel}`), undefined, 2);
    if (found.length === 1) target = await regularFile(policy, toRelative(ws.root, found[0].fsPath));
  }
  if (!target) return t('Agent Bridge: there is no file {0} in this workspace.', rel);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(target));
  const at = line ? Math.min(line, doc.lineCount) - 1 : 0;
  await vscode.window.showTextDocument(doc, { preview: true, selection: new vscode.Range(at, 0, at, 0) });
  return undefined;
}

/** Where `rel` really leads when the access policy lets it be in the project and it is a regular file. */
async function regularFile(policy: AccessPolicy, rel: string): Promise<string | undefined> {
  try {
    const access = await policy.resolve(rel);
    return fs.statSync(access.abs).isFile() ? access.abs : undefined;
  } catch {
    return undefined;
  }
}
