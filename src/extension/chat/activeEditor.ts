import * as vscode from 'vscode';
import { accessPolicy } from '../../core/policy/accessPolicy';
import type { Workspace } from '../../core/workspace/workspace';
import { lastTextEditor } from './codeActions';
import type { ToWebview } from './contract';

/**
 * The editor the chat works with: the active editor's file, offered as a one-click attachment
 * unless it is secret or not the served folder's, and the text editor used last (Insert at Cursor
 * and Apply go there; the chat in an editor tab takes the active editor's place).
 */
export class ActiveEditor implements vscode.Disposable {
  /** The active editor's file, when it is one the agent may be given. */
  private activeFile: string | undefined;
  private lastEditor: vscode.TextEditor | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly workspace: () => Workspace | undefined,
    private readonly post: (message: ToWebview) => void,
  ) {
    this.subscription = vscode.window.onDidChangeActiveTextEditor(() => void this.update());
    void this.update();
  }

  get file(): string | undefined {
    return this.activeFile;
  }

  /** The text editor code from the chat goes to. */
  target(): vscode.TextEditor | undefined {
    return lastTextEditor(this.lastEditor);
  }

  private async update(): Promise<void> {
    if (vscode.window.activeTextEditor) this.lastEditor = vscode.window.activeTextEditor;
    const doc = vscode.window.activeTextEditor?.document;
    const ws = this.workspace();
    let rel: string | undefined;
    if (doc?.uri.scheme === 'file' && ws) {
      const access = await accessPolicy(ws).resolve(doc.uri.fsPath).catch(() => undefined);
      rel = access && access.kind !== 'secret' ? access.rel : undefined;
    }
    // The editor may have changed again while this one resolved.
    if (doc !== vscode.window.activeTextEditor?.document || rel === this.activeFile) return;
    this.activeFile = rel;
    this.post({ type: 'activeFile', ...(rel ? { path: rel } : {}) });
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
