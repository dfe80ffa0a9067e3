import * as vscode from 'vscode';
import { useMessageBundle } from '../core/l10n';
import type { ConnectionState } from '../core/link/connection';
import type { ChangeQueue } from './approval/changeQueue';
import { AgentChanges } from './approval/agentChanges';
import { AgentChangesView } from './approval/agentChangesView';
import { ApprovalGate } from './approval/approvalGate';
import { PendingChangesView } from './approval/pendingView';
import { TokenStore } from './auth';
import { registerCodeIntel } from './codeIntel';
import { registerCommands } from './commands';
import { registerChat } from './chat/register';
import type { ChatApi } from './chat/feature';
import { BridgeController } from './controller';
import { ServedFolder } from './folders';
import { channelLogger } from './logger';
import { SessionStore } from './session';
import { affectsConnection, readSettings, watchSecretSettings } from './settings';
import { StatusBar } from './statusBar';
import { registerTestConnection } from './testConnection';
import { redactingLogger } from '../core/log';

/** What the extension exports to other extensions and to its own integration tests. */
export interface AgentBridgeApi {
  readonly state: () => ConnectionState;
  readonly sessionId: () => string;
  readonly onDidChangeState: vscode.Event<ConnectionState>;
  /** Why the link last failed (what the status bar's tooltip and the chat header show). */
  readonly lastError: () => string | undefined;
  /** Changes waiting for the developer's decision. */
  readonly pendingChanges: ChangeQueue;
  /** What the agent changed (approved or auto-approved), revertible. */
  readonly agentChanges: AgentChanges;
  /** The chat panel's traffic, for the integration tests. */
  readonly chat: ChatApi;
}

/** Only wiring: the long-lived objects, their commands, and the settings that steer them. */
export function activate(context: vscode.ExtensionContext): AgentBridgeApi {
  // Tool results in VS Code's display language: the core reads the bundle VS Code loaded for it.
  useMessageBundle(vscode.l10n.bundle);
  const channel = vscode.window.createOutputChannel('Agent Bridge', { log: true });
  const sessions = new SessionStore(context.workspaceState);
  const log = channelLogger(channel);
  const approvals = new ApprovalGate(log);
  const agentChanges = new AgentChanges(context.workspaceState, log, () => sessions.id);
  const tokens = new TokenStore(context.secrets);
  const folders = new ServedFolder(context.workspaceState);
  const controller = new BridgeController(sessions, log, approvals, folders, tokens, context.globalStorageUri.fsPath);
  const chat = registerChat(context, controller, sessions, channel, approvals);
  context.subscriptions.push(
    watchSecretSettings(),
    channel,
    approvals,
    tokens,
    controller,
    new StatusBar(controller),
    new PendingChangesView(approvals),
    agentChanges,
    approvals.onDidWrite((w) => agentChanges.record(w.change, w.finalText, w.notebook)),
    new AgentChangesView(agentChanges),
    sessions.onDidRenew(() => agentChanges.sessionChanged()),
    registerCodeIntel(context, log, () => controller.workspace),
    ...registerCommands(controller, channel, approvals, tokens),
    registerTestConnection({ folders, tokens, log: redactingLogger(log, () => [tokens.known()]), sessionId: () => sessions.id, linkActive: () => controller.isActive }),
    ...chat.disposables,
    // The served folder was closed (or another became the first): follow it.
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      if (controller.isActive && controller.workspace?.folderUri !== folders.current?.uri.toString()) controller.connect();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsConnection(e) && controller.isActive && controller.settingsMoved()) controller.connect();
    }),
  );
  if (readSettings(folders.current).autoConnect && folders.current) {
    // Right after activation rather than in it: connecting loads the tools and their schemas (see link.ts).
    const timer = setTimeout(() => controller.connect(), 0);
    context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  }
  return {
    state: () => controller.state,
    sessionId: () => sessions.id,
    onDidChangeState: controller.onDidChangeState,
    lastError: () => controller.lastError,
    pendingChanges: approvals,
    agentChanges,
    chat: chat.api,
  };
}

export function deactivate(): void {
  // Everything is in context.subscriptions and disposed by VS Code.
}
