import * as vscode from 'vscode';
import type { ConnectionState } from '../../core/link/connection';
import type { BridgeController } from './controller';

const t = vscode.l10n.t;
const LOOK: Record<ConnectionState, { icon: string; text: () => string; warn?: boolean }> = {
  connected: { icon: '$(plug)', text: () => 'Agent Bridge' },
  connecting: { icon: '$(sync~spin)', text: () => t('Agent Bridge: connecting') },
  reconnecting: { icon: '$(sync~spin)', text: () => t('Agent Bridge: reconnecting'), warn: true },
  disconnected: { icon: '$(debug-disconnect)', text: () => t('Agent Bridge: offline') },
};

/** The link's state in words of the display language (tooltip, screen readers, the status menu's title). */
export function stateText(state: ConnectionState): string {
  return state === 'connected' ? t('Agent Bridge: connected') : LOOK[state].text();
}

/** Shows the link's state; a click offers connect / disconnect / log. */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('agentBridge.status', vscode.StatusBarAlignment.Left, 50);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly controller: BridgeController) {
    this.item.name = 'Agent Bridge';
    this.item.command = 'agentBridge.statusMenu';
    this.subscription = vscode.Disposable.from(
      controller.onDidChangeState(() => this.render()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.render()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.render()),
    );
    this.render();
    this.item.show();
  }

  private render(): void {
    const state = this.controller.state;
    const look = LOOK[state];
    // The walkthrough's "dev backend" step completes once the link is up.
    void vscode.commands.executeCommand('setContext', 'agentBridge.connected', state === 'connected');
    // In Restricted Mode the agent may read but not write: say so where the developer looks.
    const readOnly = vscode.workspace.isTrusted ? '' : ` ${t('(read-only)')}`;
    this.item.text = `${look.icon} ${look.text()}${readOnly}`;
    this.item.backgroundColor = look.warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const lines = [stateText(state), this.controller.serverUrl ?? ''];
    if ((vscode.workspace.workspaceFolders?.length ?? 0) > 1) lines.push(t('Folder: {0}', this.controller.folders.current?.name ?? '—'));
    if (readOnly) lines.push(t('Workspace not trusted: the agent can read and search, but every change is refused.'));
    if (state !== 'connected' && this.controller.lastError) lines.push(t('Last error: {0}', this.controller.lastError));
    this.item.tooltip = lines.filter(Boolean).join('\n');
    this.item.accessibilityInformation = { label: stateText(state) + readOnly };
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
