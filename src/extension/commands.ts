import * as vscode from 'vscode';
import type { ApprovalGate } from './review/approvalGate';
import { askReason } from './review/pendingView';
import { registerSetToken, type TokenStore } from './connection/auth';
import type { BridgeController } from './connection/controller';
import { openServerUrlSetting } from './adapter/settings';
import { stateText } from './connection/statusBar';

/** The commands of package.json, plus the status bar's menu. Each is a few lines over the controller. */
export function registerCommands(controller: BridgeController, channel: vscode.LogOutputChannel, approvals: ApprovalGate, tokens: TokenStore): vscode.Disposable[] {
  const connect = () => {
    const problem = controller.connect();
    if (problem) void vscode.window.showErrorMessage(`Agent Bridge: ${problem}`);
  };
  return [
    vscode.commands.registerCommand('agentBridge.connect', connect),
    vscode.commands.registerCommand('agentBridge.disconnect', () => controller.disconnect()),
    vscode.commands.registerCommand('agentBridge.showLog', () => channel.show(true)),
    vscode.commands.registerCommand('agentBridge.openSettings', () => openServerUrlSetting()),
    registerSetToken(tokens),
    // Approve acts only on the change whose diff is in front of the developer (the active editor; the
    // title bar passes that diff's URI). An id from elsewhere counts only when it is that change.
    vscode.commands.registerCommand('agentBridge.approveChange', async (arg?: unknown) => {
      const inFront = approvals.current();
      const asked = arg instanceof vscode.Uri ? approvals.idOf(arg) : typeof arg === 'string' ? arg : inFront;
      if (asked && asked === inFront) await approvals.approve(asked);
      else if (asked && approvals.list().some((c) => c.id === asked)) {
        await approvals.showDiff(asked);
        void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: review the change in its diff, then approve it there.'));
      } else if (approvals.list().some((c) => !c.consent)) {
        // The keyboard path: the first press brings the oldest waiting diff in front (with the
        // focus), the second approves what is now shown.
        const next = approvals.list().find((c) => !c.consent)!;
        await approvals.showDiff(next.id);
        void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: this is the change to {0}. Review it, then approve it with Ctrl+Alt+Enter or reject it with Ctrl+Alt+Backspace.', next.relativePath));
      } else if (approvals.list().length) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: the agent asks to change a secret file: allow or refuse it in Pending Changes or on the chat card.'));
      } else void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: no change is waiting for approval.'));
    }),
    // Rejecting writes nothing, so it may act on any waiting change (the oldest when none is in front).
    vscode.commands.registerCommand('agentBridge.rejectChange', async (id?: unknown, reason?: unknown) => {
      const target = id instanceof vscode.Uri ? approvals.idOf(id) : typeof id === 'string' ? id : (approvals.current() ?? approvals.oldest());
      if (!target) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: no change is waiting for approval.'));
        return;
      }
      // Escape in the reason box cancels the rejection; an empty reason rejects without one.
      const why = typeof reason === 'string' ? reason : await askReason();
      if (why !== undefined) await approvals.reject(target, why);
    }),
    // The proposal side is read-only until the developer asks to change it (from its diff's title bar).
    vscode.commands.registerCommand('agentBridge.editProposal', async (arg?: unknown) => {
      const id = arg instanceof vscode.Uri ? approvals.idOf(arg) : approvals.current();
      if (id) await approvals.editProposal(id);
    }),
    vscode.commands.registerCommand('agentBridge.chooseFolder', async () => {
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
    }),
    vscode.commands.registerCommand('agentBridge.statusMenu', async () => {
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
    }),
  ];
}
