import type * as vscode from 'vscode';
import type { EditRun } from '../../core/edit/editRuns';
import { BACKEND_WAIT_MS } from '../../core/protocol/messages';

/** A change the agent proposed that waits for the developer's decision, as the UI shows it. */
export interface PendingChangeView {
  /** The tool call's id. */
  readonly id: string;
  readonly toolName: string;
  readonly relativePath: string;
  readonly description?: string;
  readonly created: boolean;
  /** Set for a secret or protected file: asked about whatever the approval mode, with a warning. */
  readonly guarded?: { readonly kind: 'secret' | 'protected'; readonly rule: string };
  /** Set in autoApprove mode for a file that is not source code (a tool's configuration): asked, as autoApprove writes only source code unasked. */
  readonly notSource?: true;
  readonly added: number;
  readonly removed: number;
  /**
   * Not a change yet: the agent asks to prepare a change to a secret file, which nothing may read
   * until the developer allows it. Approve allows, Reject refuses; there is no diff to open.
   */
  readonly consent?: true;
  /** When it started waiting (Date.now()): past BACKEND_WAIT_MS the agent's backend may have stopped waiting for the answer. */
  readonly askedAt: number;
}

/** Whether the backend that sent the change has probably given up waiting for its answer (it still lands if approved). */
export function callerMayHaveGivenUp(view: Pick<PendingChangeView, 'askedAt'>, now = Date.now()): boolean {
  return now - view.askedAt >= BACKEND_WAIT_MS;
}

/** The queue of pending changes; the diff editor, notifications and the chat panel's cards all act through it. */
export interface ChangeQueue {
  readonly onDidChange: vscode.Event<void>;
  list(): readonly PendingChangeView[];
  approve(id: string): Promise<void>;
  reject(id: string, reason?: string): Promise<void>;
  /** Withdraws a waiting change (the developer stopped the turn that asked for it): answered CANCELLED, nothing written. */
  withdraw(id: string): Promise<void>;
  showDiff(id: string): Promise<void>;
  /** The proposal's hunks and which are kept (`locked` once the developer edits it by hand). */
  hunks(id: string): { readonly runs: readonly EditRun[]; readonly keep: readonly boolean[]; readonly locked: boolean } | undefined;
  /** Drops a hunk from what lands, or keeps it again; false when not possible (decided, or edited by hand). */
  keepHunk(id: string, index: number, kept: boolean): boolean;
}
