/** The changes waiting for a decision, as the chat shows them: cards with Approve, Reject and Open Diff. */
import * as vscode from 'vscode';
import type { Logger } from '../../core/log';
import { callerMayHaveGivenUp, type ChangeQueue, type PendingChangeView } from '../review/changeQueue';
import { inert } from '../adapter/inert';
import { askReason } from '../review/prompts';
import type { ChangeCard, FromWebview } from './contract';

export function changeCards(changes: ChangeQueue | undefined): ChangeCard[] {
  return (changes?.list() ?? []).map((c) => ({
    id: c.id,
    toolName: c.toolName,
    relativePath: c.relativePath,
    description: c.description,
    created: c.created,
    added: c.added,
    removed: c.removed,
    ...(callerMayHaveGivenUp(c) ? { late: true } : {}),
    ...(c.consent ? { consent: true } : {}),
  }));
}

type CardMessage = Extract<FromWebview, { type: 'approve' | 'reject' | 'openDiff' }>;

/** A card's button, decided through the same queue as the diff and Pending Changes; `refocus` brings the chat back after. */
export function actOnCard(changes: ChangeQueue | undefined, m: CardMessage, refocus: () => Promise<void>, log: Logger): void {
  if (!changes) return;
  const act = (q: ChangeQueue): Promise<void> => {
    switch (m.type) {
      case 'approve':
        return (async () => {
          await q.approve(m.id);
          // Not approved yet (its diff was brought forward to be seen first): the focus stays on that diff.
          if (!q.list().some((c) => c.id === m.id)) await refocus();
        })();
      case 'reject':
        // The card asks for the reason too (optional); Escape keeps the change waiting.
        return (async () => {
          const reason = await askReason();
          if (reason !== undefined) await q.reject(m.id, reason);
          await refocus();
        })();
      case 'openDiff':
        return q.showDiff(m.id);
    }
  };
  act(changes).catch((e: unknown) => {
    const reason = e instanceof Error ? e.message : String(e);
    log.error(`chat: change ${m.id}: ${reason}`);
    void vscode.window.showErrorMessage(`Agent Bridge: ${inert(reason)}`);
  });
}

/**
 * Stop while changes the turn proposed still wait: they are not withdrawn unasked. Returns whether
 * to withdraw them, or undefined when the developer cancelled (nothing stops).
 */
export async function askWithdrawOnStop(waiting: readonly PendingChangeView[]): Promise<boolean | undefined> {
  const t = vscode.l10n.t;
  const withdraw = t('Stop and Withdraw Them');
  const keep = t('Stop, Keep Them Waiting');
  const files = waiting.map((c) => inert(c.relativePath)).join(', ');
  const question =
    waiting.length === 1
      ? t('Stop waiting for the agent? A change it proposed still waits for your decision: {0}', files)
      : t('Stop waiting for the agent? {0} changes it proposed still wait for your decision: {1}', waiting.length, files);
  // Keeping them is the first (default) answer: Enter must not throw away what waits.
  const picked = await vscode.window.showWarningMessage(question, { modal: true, detail: t('Withdrawn changes are not written, and the agent is told so.') }, keep, withdraw);
  return picked === undefined ? undefined : picked === withdraw;
}
