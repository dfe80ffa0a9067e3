import * as vscode from 'vscode';
import type { ConnectionState } from '../core/connection';
import { registerCommands } from './commands';
import { BridgeController } from './controller';
import { channelLogger } from './logger';
import { SessionStore } from './session';
import { affectsConnection, readSettings } from './settings';
import { StatusBar } from './statusBar';

/** What the extension exports to other extensions and to its own integration tests. */
export interface AgentBridgeApi {
  readonly state: () => ConnectionState;
  readonly sessionId: () => string;
  readonly onDidChangeState: vscode.Event<ConnectionState>;
}

/** Only wiring: the long-lived objects, their commands, and the settings that steer them. */
export function activate(context: vscode.ExtensionContext): AgentBridgeApi {
  const channel = vscode.window.createOutputChannel('Agent Bridge', { log: true });
  const sessions = new SessionStore(context.workspaceState);
  const controller = new BridgeController(sessions, channelLogger(channel));
  context.subscriptions.push(
    channel,
    controller,
    new StatusBar(controller),
    ...registerCommands(controller, channel),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsConnection(e) && controller.isActive) controller.connect();
    }),
  );
  if (readSettings(vscode.workspace.workspaceFolders?.[0]).autoConnect && vscode.workspace.workspaceFolders?.length) {
    controller.connect();
  }
  return {
    state: () => controller.state,
    sessionId: () => sessions.id,
    onDidChangeState: controller.onDidChangeState,
  };
}

export function deactivate(): void {
  // Everything is in context.subscriptions and disposed by VS Code.
}
