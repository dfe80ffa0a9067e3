import * as vscode from 'vscode';
import type { ApprovalGate } from './approvalGate';
import type { PendingChangesView } from './pendingView';
import { inert } from '../adapter/inert';
import { askReason } from './prompts';

/** Deciding a proposed change: from its diff's title bar, the keyboard, and the Pending Changes view. */
export function reviewCommands(approvals: ApprovalGate, pending: PendingChangesView) {
  return {
    // Approve acts only on the change whose diff is in front of the developer (the active editor; the
    // title bar passes that diff's URI). An id from elsewhere counts only when it is that change.
    'agentBridge.approveChange': async (arg?: unknown) => {
      const inFront = approvals.current();
      const asked = arg instanceof vscode.Uri ? approvals.idOf(arg) : typeof arg === 'string' ? arg : inFront;
      // The gate approves it only when its diff is in front, else brings that diff in front.
      if (asked && approvals.list().some((c) => c.id === asked)) await approvals.approve(asked, { fromItsDiff: true });
      else if (approvals.list().some((c) => !c.consent)) {
        // The keyboard path: the first press brings the oldest waiting diff in front (with the
        // focus), the second approves what is now shown.
        const next = approvals.list().find((c) => !c.consent)!;
        await approvals.showDiff(next.id);
        void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: this is the change to {0}. Review it, then approve it with Ctrl+Alt+Enter or reject it with Ctrl+Alt+Backspace.', inert(next.relativePath)));
      } else if (approvals.list().length) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: the agent asks to change a secret file: allow or refuse it in Pending Changes or on the chat card.'));
      } else void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: no change is waiting for approval.'));
    },
    // Rejecting writes nothing, so it may act on any waiting change (the oldest when none is in front).
    'agentBridge.rejectChange': async (id?: unknown, reason?: unknown) => {
      const target = id instanceof vscode.Uri ? approvals.idOf(id) : typeof id === 'string' ? id : (approvals.current() ?? approvals.oldest());
      if (!target) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: no change is waiting for approval.'));
        return;
      }
      // Escape in the reason box cancels the rejection; an empty reason rejects without one.
      const why = typeof reason === 'string' ? reason : await askReason();
      if (why !== undefined) await approvals.reject(target, why);
    },
    // The proposal side is read-only until the developer asks to change it (from its diff's title bar).
    'agentBridge.editProposal': async (arg?: unknown) => {
      const id = arg instanceof vscode.Uri ? approvals.idOf(arg) : approvals.current();
      if (id) await approvals.editProposal(id);
    },
    // The view's rows: only rows the view made are acted on, so another extension cannot pass an id of its own.
    'agentBridge.openPendingDiff': (row: unknown) => pending.openDiffOfRow(row),
    'agentBridge.approvePending': (row: unknown) => pending.approveRow(row),
    'agentBridge.rejectPending': (row: unknown) => pending.rejectRow(row),
    'agentBridge.approveAll': () => pending.approveAll(),
    'agentBridge.rejectAll': () => pending.rejectAll(),
  };
}
