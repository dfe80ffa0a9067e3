/**
 * Registers the chat: the docked view in the Agent Bridge side bar and the serializer that brings
 * the editor tab back after a reload. Its commands are in commands.ts.
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
): { disposables: vscode.Disposable[]; api: ChatApi; chat: ChatFeature } {
  const chat = new ChatFeature(context, controller, sessions, channelLogger(log), changes);
  const disposables = [
    chat,
    vscode.window.registerWebviewViewProvider(CHAT_SIDEBAR_VIEW_ID, chat.panel),
    vscode.window.registerWebviewPanelSerializer(CHAT_VIEW_TYPE, {
      // One chat tab per window: a second restored one (from an older layout) is closed.
      deserializeWebviewPanel: async (panel) => (chat.panel.isOpenInEditor ? panel.dispose() : chat.panel.attach(panel)),
    }),
  ];
  return { disposables, api: chat.api, chat };
}
