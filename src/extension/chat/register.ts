/**
 * Registers the chat: its commands, the serializer that brings the tab back after a reload, and
 * the activity-bar launcher (an empty view whose welcome content offers Open Chat).
 */
import * as vscode from 'vscode';
import type { ChangeQueue } from '../approval/changeQueue';
import type { BridgeController } from '../controller';
import type { SessionStore } from '../session';
import { ChatFeature, type ChatApi } from './feature';
import { CHAT_VIEW_TYPE } from './panel';

export const LAUNCHER_VIEW_ID = 'agentBridge.chatLauncher';

/** An empty tree: VS Code then shows the view's welcome content (package.json viewsWelcome). */
class EmptyTree implements vscode.TreeDataProvider<never> {
  getTreeItem(element: never): vscode.TreeItem {
    return element;
  }
  getChildren(): never[] {
    return [];
  }
}

export function registerChat(
  context: vscode.ExtensionContext,
  controller: BridgeController,
  sessions: SessionStore,
  log: vscode.LogOutputChannel,
  changes?: ChangeQueue,
): { disposables: vscode.Disposable[]; api: ChatApi } {
  const chat = new ChatFeature(context, controller, sessions, log, changes);
  const disposables = [
    chat,
    vscode.commands.registerCommand('agentBridge.openChat', () => chat.panel.show()),
    vscode.commands.registerCommand('agentBridge.newSession', async () => {
      await chat.newSession();
      chat.panel.show();
    }),
    vscode.window.registerWebviewPanelSerializer(CHAT_VIEW_TYPE, {
      // One chat tab per window: a second restored one (from an older layout) is closed.
      deserializeWebviewPanel: async (panel) => (chat.panel.isOpen ? panel.dispose() : chat.panel.attach(panel)),
    }),
    vscode.window.registerTreeDataProvider(LAUNCHER_VIEW_ID, new EmptyTree()),
  ];
  return { disposables, api: chat.api };
}
