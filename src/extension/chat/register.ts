/**
 * Registers the chat: the docked view in the Agent Bridge side bar, its commands, and the
 * serializer that brings the editor tab back after a reload.
 */
import * as vscode from 'vscode';
import type { ChangeQueue } from '../review/changeQueue';
import type { ChangeGate } from '../../core/write/gate';
import type { BridgeController } from '../connection/controller';
import { channelLogger } from '../adapter/logger';
import type { SessionStore } from '../connection/session';
import { ChatFeature, type ChatApi } from './feature';
import { CHAT_SIDEBAR_VIEW_ID, CHAT_VIEW_TYPE } from './panel';

export function registerChat(
  context: vscode.ExtensionContext,
  controller: BridgeController,
  sessions: SessionStore,
  log: vscode.LogOutputChannel,
  changes?: ChangeQueue & ChangeGate,
): { disposables: vscode.Disposable[]; api: ChatApi } {
  const chat = new ChatFeature(context, controller, sessions, channelLogger(log), changes);
  const disposables = [
    chat,
    vscode.window.registerWebviewViewProvider(CHAT_SIDEBAR_VIEW_ID, chat.panel),
    vscode.commands.registerCommand('agentBridge.openChat', () => chat.panel.showDocked()),
    vscode.commands.registerCommand('agentBridge.openChatInEditor', () => chat.panel.showInEditor()),
    vscode.commands.registerCommand('agentBridge.showHistory', () => chat.showHistory()),
    vscode.commands.registerCommand('agentBridge.addSelectionToChat', () => chat.addSelection()),
    // From the explorer: the clicked file and, with several selected, all of them.
    vscode.commands.registerCommand('agentBridge.addFileToChat', (uri?: vscode.Uri, uris?: vscode.Uri[]) =>
      chat.addFiles(Array.isArray(uris) && uris.length ? uris : uri instanceof vscode.Uri ? [uri] : []),
    ),
    // Nothing to confirm: the conversation left is kept in History (older callers may still pass `{ confirmed: true }`).
    vscode.commands.registerCommand('agentBridge.newSession', async () => {
      if (await chat.newSession()) await chat.panel.showDocked();
    }),
    vscode.window.registerWebviewPanelSerializer(CHAT_VIEW_TYPE, {
      // One chat tab per window: a second restored one (from an older layout) is closed.
      deserializeWebviewPanel: async (panel) => (chat.panel.isOpenInEditor ? panel.dispose() : chat.panel.attach(panel)),
    }),
  ];
  return { disposables, api: chat.api };
}
