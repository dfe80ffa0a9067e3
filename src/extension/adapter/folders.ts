import * as vscode from 'vscode';

const KEY = 'agentBridge.servedFolder';

/**
 * Which workspace folder the link serves. A connection is one project (spec: one projectKey and
 * projectPath), so in a multi-root workspace the developer picks the folder
 * (`agentBridge.chooseFolder`); the choice is kept per workspace, and the first folder is served
 * until one is chosen, or when the chosen one is closed.
 */
export class ServedFolder {
  constructor(private readonly state: vscode.Memento) {}

  get current(): vscode.WorkspaceFolder | undefined {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const chosen = this.state.get<string>(KEY);
    return folders.find((f) => f.uri.toString() === chosen) ?? folders[0];
  }

  async choose(folder: vscode.WorkspaceFolder): Promise<void> {
    await this.state.update(KEY, folder.uri.toString());
  }
}
