import * as vscode from 'vscode';
import { BACKEND_WAIT_MS } from '../../core/protocol/messages';
import type { PendingChangeView } from './changeQueue';
import { inert } from '../adapter/inert';

/** What the approval gate says to the developer outside the diff: notifications and warnings. */

const clip = (text: string, max: number): string => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
};


/** Why a change to a protected or secret file is asked about even in autoApprove mode. */
export function guardedWarning(guarded: NonNullable<PendingChangeView['guarded']>): string {
  const t = vscode.l10n.t;
  return guarded.kind === 'secret'
    ? t('⚠ This is a secret file (it matches "{0}" in agentBridge.excludeGlobs).', guarded.rule)
    : t('⚠ This file configures your tools (it matches "{0}"): a change to it can make git, the editor or CI run commands. Review it carefully.', guarded.rule);
}

/** Why a change waits in autoApprove mode although it is neither secret nor protected. */
export function notSourceNote(): string {
  return vscode.l10n.t('autoApprove writes only source code and prose without asking; this file is not source code (tools may load it by themselves), so it waits for your review in its diff.');
}

/** A change whose backend has probably stopped waiting: approving it still writes it, and the late answer says so. */
export function lateWarning(): string {
  return vscode.l10n.t('The agent may have stopped waiting for this answer (backends give up after {0} s). Approving still writes the change; the late answer tells the agent what landed.', BACKEND_WAIT_MS / 1000);
}

/**
 * Before a writing tool opens a secret file: a notification that points to the question in
 * Pending Changes and on the chat's card (Allow / Refuse live there, where later notifications
 * cannot push them out of sight), and closes itself once it is answered. Nothing of the file has
 * been read yet; allowing lets the tool compute its change, which is then shown as a diff and
 * approved like any other (the agent's answer never quotes the file either way).
 */
export function askSecretChange(view: PendingChangeView, answered: Promise<unknown>): void {
  const t = vscode.l10n.t;
  const title = t('Agent Bridge: the agent wants to change {0}, a secret file (it matches "{1}" in agentBridge.excludeGlobs). Allow or refuse it in Pending Changes or on the chat card: you will see the diff before anything is written; the agent never sees the file.', inert(view.relativePath), inert(view.guarded?.rule ?? '?'));
  void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: false }, () => answered.catch(() => undefined));
}

/**
 * A notification that says a change waits, and closes itself when the change is decided (from
 * the diff, the chat card, the Pending Changes view or the keyboard): no stale buttons pile up in
 * the Notification Center. Deciding happens where the diff is; the notification only points there.
 */
export function notifyPending(view: PendingChangeView, decided: Promise<unknown>): void {
  const t = vscode.l10n.t;
  const counts = `(+${view.added} −${view.removed})`;
  const message = view.created
    ? t('Agent Bridge: the agent wants to create {0} {1}', inert(view.relativePath), counts)
    : t('Agent Bridge: the agent wants to change {0} {1}', inert(view.relativePath), counts);
  // The description is the agent's text: quoted and named as such, never as Agent Bridge's own words.
  const full = view.description ? t('{0}. The agent says: “{1}”', message, inert(clip(view.description, 300))) : message;
  // Protected files configure tools that run code (git hooks, fsmonitor, editor settings): say so.
  const title = view.guarded
    ? `${full} ${guardedWarning(view.guarded)}`
    : view.notSource
      ? `${full} ${notSourceNote()}`
      : `${full} ${t('Review it in its diff.')}`;
  void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: false }, () => decided.catch(() => undefined));
}

/** The optional reason a rejection tells the agent; undefined when the developer cancelled (nothing is rejected). */
export async function askReason(title = vscode.l10n.t('Reject change')): Promise<string | undefined> {
  return vscode.window.showInputBox({ title, prompt: vscode.l10n.t('Tell the agent why (optional)'), ignoreFocusOut: true });
}
