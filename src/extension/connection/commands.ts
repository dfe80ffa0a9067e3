import * as vscode from 'vscode';
import { openServerUrlSetting } from '../adapter/settings';
import { setToken, type TokenStore } from './auth';
import type { BridgeController } from './controller';
import { stateText } from './statusBar';
import { testConnection, type TestConnectionDeps } from './testConnection';

/** The link's commands and the status bar's menu; each is a few lines over the controller. */
export function connectionCommands(controller: BridgeController, channel: vscode.LogOutputChannel, tokens: TokenStore, probe: TestConnectionDeps) {
  const connect = () => {
    const problem = controller.connect();
    if (problem) void vscode.window.showErrorMessage(`Agent Bridge: ${problem}`);
  };
  return {
    'agentBridge.connect': connect,
    'agentBridge.disconnect': () => controller.disconnect(),
    'agentBridge.showLog': () => channel.show(true),
    'agentBridge.openSettings': () => openServerUrlSetting(),
    'agentBridge.setToken': (value?: unknown) => setToken(tokens, value),
    'agentBridge.testConnection': () => testConnection(probe),
    'agentBridge.chooseFolder': async () => {
      const folders = vscode.workspace.workspaceFolders ?? [];
      if (folders.length < 2) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge serves the one open folder, {0}.', folders[0]?.name ?? '—'));
        return;
      }
      const served = controller.folders.current?.uri.toString();
      const picked = await vscode.window.showQuickPick(
        folders.map((folder) => ({ label: folder.name, description: folder.uri.fsPath, ...(folder.uri.toString() === served ? { detail: vscode.l10n.t('$(check) served now') } : {}), folder })),
        { title: vscode.l10n.t('Agent Bridge: the folder the agent works in') },
      );
      if (!picked || picked.folder.uri.toString() === served) return;
      await controller.folders.choose(picked.folder);
      if (controller.isActive) connect();
    },
    // Not in package.json: the status bar item's click.
    'agentBridge.statusMenu': async () => {
      const items = [
        controller.isActive
          ? { label: vscode.l10n.t('$(debug-disconnect) Disconnect'), run: () => controller.disconnect() }
          : { label: vscode.l10n.t('$(plug) Connect'), run: connect },
        { label: vscode.l10n.t('$(refresh) Reconnect'), run: connect },
        { label: vscode.l10n.t('$(pulse) Test Connection'), run: () => void vscode.commands.executeCommand('agentBridge.testConnection') },
        { label: vscode.l10n.t('$(settings-gear) Open Settings'), run: () => openServerUrlSetting() },
        { label: vscode.l10n.t('$(output) Show Log'), run: () => channel.show(true) },
        { label: vscode.l10n.t('$(key) Set Backend Token…'), run: () => void vscode.commands.executeCommand('agentBridge.setToken') },
        { label: vscode.l10n.t('$(comment-discussion) Open Chat'), run: () => void vscode.commands.executeCommand('agentBridge.openChat') },
        ...((vscode.workspace.workspaceFolders?.length ?? 0) > 1
          ? [{ label: vscode.l10n.t('$(root-folder) Serve Another Folder…'), run: () => void vscode.commands.executeCommand('agentBridge.chooseFolder') }]
          : []),
      ];
      const picked = await vscode.window.showQuickPick(items, { title: stateText(controller.state) });
      picked?.run();
    },
  };
}
