import * as vscode from 'vscode';
import { useMessageBundle } from '../core/l10n';
import type { ConnectionState } from '../core/link/connection';
import { redactingLogger } from '../core/log';
import { registerCodeIntel } from './adapter/codeIntel';
import { ServedFolder } from './adapter/folders';
import { channelLogger } from './adapter/logger';
import { affectsConnection, readSettings, watchSecretSettings } from './adapter/settings';
import { TokenStore } from './connection/auth';
import { connectionCommands } from './connection/commands';
import { BridgeController } from './connection/controller';
import { SessionStore } from './connection/session';
import { StatusBar } from './connection/statusBar';
import { ApprovalGate } from './review/approvalGate';
import type { ChangeQueue } from './review/changeQueue';
import { reviewCommands } from './review/commands';
import { PendingChangesView } from './review/pendingView';
import { AgentChanges } from './changes/agentChanges';
import { AgentChangesView } from './changes/agentChangesView';
import { changesCommands } from './changes/commands';
import { chatCommands } from './chat/commands';
import type { ChatApi } from './chat/feature';
import { registerChat } from './chat/register';
import { registerCommands } from './commands';

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
  const statusBar = new StatusBar(controller);
  const pendingView = new PendingChangesView(approvals);
  const agentChangesView = new AgentChangesView(agentChanges);
  const probe = { folders, tokens, log: redactingLogger(log, () => [tokens.known()]), sessionId: () => sessions.id, linkActive: () => controller.isActive };
  context.subscriptions.push(
    watchSecretSettings(),
    channel,
    approvals,
    tokens,
    controller,
    statusBar,
    pendingView,
    agentChanges,
    approvals.onDidWrite((w) => agentChanges.record(w.change, w.finalText, w.notebook)),
    agentChangesView,
    sessions.onDidRenew(() => agentChanges.sessionChanged()),
    registerCodeIntel(context, log, () => controller.workspace),
    ...chat.disposables,
    ...registerCommands(
      connectionCommands(controller, channel, tokens, probe),
      reviewCommands(approvals, pendingView),
      changesCommands(agentChangesView),
      chatCommands(chat.chat),
    ),
    // The served folder was closed (or another became the first): follow it.
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      if (controller.isActive && controller.workspace?.folderUri !== folders.current?.uri.toString()) controller.connect();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsConnection(e) && controller.isActive && controller.settingsMoved()) controller.connect();
    }),
  );
  if (readSettings(folders.current).autoConnect && folders.current) {
    // Right after activation rather than in it: connecting loads the tools and their schemas (see connection/link.ts).
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
