import * as vscode from 'vscode';
import type { ChangeGate, CommittedChange, GateHooks, ProposedChange, SecretChangeRequest } from '../../core/write/gate';
import { hasMixedEol } from '../../core/edit/eol';
import { applyKept, editRuns, runCounts, type EditRun } from '../../core/edit/editRuns';
import { patchOf } from '../../core/edit/patch';
import type { Logger } from '../../core/log';
import { ToolError } from '../../core/protocol/errors';
import { BACKEND_WAIT_MS } from '../../core/protocol/messages';
import { readApprovalMode, readFormatMode } from '../adapter/settings';
import type { ChangeQueue, PendingChangeView } from './changeQueue';
import { formatProposal, type FormatMode } from './formatProposal';
import { notifyPending } from './prompts';
import { SecretQuestions } from './secretQuestions';
import { ProposalStore } from './proposalFs';
import { ProposalDiffs, type Decision, type PendingProposal, type Refused } from './proposalDiff';
import { writeApproved, type Approved, type Written } from './writeApproved';
import { refuseUnsavedNotebook } from './writeChange';

/**
 * The VS Code gate: every proposed change is shown as a diff (current text left, proposal right)
 * with Approve / Reject in the title bar, in a notification and in the chat panel's cards, and
 * waits there until the developer decides. Several changes queue, each decided on its own.
 */
export class ApprovalGate implements ChangeGate, ChangeQueue, vscode.Disposable {
  private readonly pending = new Map<string, PendingProposal>();
  /** Questions asked before a secret file is read (no change exists yet to show). */
  private readonly questions: SecretQuestions;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changeEmitter.event;
  /** A change was written (approved, or in autoApprove mode): what the Agent Changes list records. */
  private readonly writeEmitter = new vscode.EventEmitter<Written>();
  readonly onDidWrite = this.writeEmitter.event;
  private readonly store = new ProposalStore();
  private readonly diffs = new ProposalDiffs(this.pending, this.store);
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly log: Logger) {
    this.questions = new SecretQuestions(log, () => this.refresh());
    this.disposables.push(
      ProposalStore.register(this.store),
      this.changeEmitter,
      this.writeEmitter,
      this.diffs,
    );
  }

  list(): readonly PendingChangeView[] {
    return [...this.questions.views, ...[...this.pending.values()].map((p) => p.view)];
  }

  /** The change whose diff is the active editor: the only one a keybinding or the title bar may approve. */
  current(): string | undefined {
    return this.diffs.current();
  }

  /** The change a side of its diff belongs to (the title bar passes whichever side has the focus). */
  idOf(side: vscode.Uri): string | undefined {
    return this.diffs.idOf(side);
  }

  /** The oldest waiting change (what Reject without a diff in front acts on: rejecting writes nothing). */
  oldest(): string | undefined {
    return this.questions.oldest() ?? this.pending.keys().next().value;
  }

  async commit(change: ProposedChange, signal: AbortSignal, hooks?: GateHooks): Promise<CommittedChange> {
    const uri = vscode.Uri.file(change.path.abs);
    // A VS Code document holds one kind of line ending: writing through it would rewrite every
    // line ending of the file, lines the diff never showed. Refused before anything is shown.
    if (change.original !== undefined && !change.notebookEdit && hasMixedEol(change.original)) {
      throw new ToolError('BAD_REQUEST', `${change.path.rel} has mixed line endings (CRLF and LF). The editor would rewrite every line ending when writing it, so Agent Bridge does not edit it in VS Code. Nothing was written. Ask the developer to normalize its line endings first.`);
    }
    if (change.notebookEdit) refuseUnsavedNotebook(uri, change.path.rel);
    // Formatted before it is shown, so the diff is exactly what lands (nothing is reformatted after).
    const formatMode: FormatMode = readFormatMode(uri);
    const shown = await formatProposal(this.store, change, formatMode, this.log, signal);
    if (signal.aborted) throw new ToolError('CANCELLED', 'The call was withdrawn while its proposal was being prepared; nothing was written.');
    // autoApprove (a user setting only) writes source code and prose unasked; anything else asks.
    const autoApprove = readApprovalMode() === 'autoApprove';
    let approved: Approved | undefined;
    if (!(autoApprove && change.judged.unaskedWrite().unasked)) {
      const asked = performance.now();
      try {
        approved = await this.ask(change, shown, signal, autoApprove);
      } finally {
        hooks?.approvalWait?.(performance.now() - asked);
      }
    } else if (signal.aborted) {
      throw new ToolError('CANCELLED', 'The call was withdrawn before the change was written; nothing was written.');
    }
    // What the developer approved (they may have edited it or dropped hunks); auto-approved, what the diff would have shown.
    return writeApproved(change, uri, shown, approved, this.log, (w) => this.writeEmitter.fire(w));
  }

  /** Before a writing tool opens a secret file: a question listed with the changes until answered. */
  allowSecretChange(request: SecretChangeRequest, signal: AbortSignal): Promise<void> {
    return this.questions.ask(request, signal);
  }

  /** Shows the change and waits for the developer: what they approved, or their refusal thrown. */
  private async ask(change: ProposedChange, shown: string, signal: AbortSignal, autoApprove: boolean): Promise<Approved> {
    if (signal.aborted) throw new ToolError('CANCELLED', 'The call was cancelled before the change was shown.');
    const { added, removed } = patchOf(change.original ?? '', shown);
    const counts = { added, removed };
    const runs = editRuns(change.original ?? '', shown);
    const view: PendingChangeView = {
      id: change.id,
      toolName: change.toolName,
      relativePath: change.path.rel,
      description: change.description,
      created: change.original === undefined,
      ...(change.path.kind !== 'normal' ? { guarded: { kind: change.path.kind, rule: change.path.rule ?? '?' } } : autoApprove ? { notSource: true as const } : {}),
      ...counts,
      askedAt: Date.now(),
    };
    const { left, right } = this.store.add(change.id, change.path.rel, change.original ?? '', shown);
    const decision = new Promise<Decision>((resolve) => {
      this.pending.set(change.id, { change, shown, view, runs, keep: runs.map(() => true), proposal: shown, left, right, decide: resolve, seen: false, edited: false });
    });
    const onAbort = () => void this.decide(change.id, { approved: false, error: new ToolError('CANCELLED', 'The call was withdrawn before the developer decided; nothing was written.') });
    signal.addEventListener('abort', onAbort, { once: true });
    // The rows and cards say when the backend has probably stopped waiting; the view object stays the same.
    const overdue = setTimeout(() => this.pending.has(change.id) && this.refresh(), BACKEND_WAIT_MS);
    this.refresh();
    this.log.info(`${change.toolName} ${change.id}: waiting for approval of ${change.path.rel} (+${counts.added} -${counts.removed})`);
    // Not awaited (a decision taken while the diff opens closes its tab, and the open may never
    // settle); in the background, so keys the developer is typing elsewhere stay there.
    void this.showDiff(change.id, { background: true });
    notifyPending(view, decision);
    const outcome = await decision;
    clearTimeout(overdue);
    signal.removeEventListener('abort', onAbort);
    if (!outcome.approved) throw outcome.error;
    return outcome.what;
  }

  /** Opens the change's diff: in front with the focus when the developer asks, `background` when a proposal arrives. */
  showDiff(id: string, how: { readonly background?: boolean; readonly line?: number } = {}): Promise<void> {
    return this.diffs.show(id, how);
  }

  /**
   * Approves a change whose diff the developer has seen. One not before them (its diff did not
   * open, or the Approve came from a notification before it did) is shown instead, and waits.
   * `fromItsDiff`: asked from a diff's title bar or the keybinding, which approve only the diff in front.
   */
  async approve(id: string, how: { readonly fromItsDiff?: boolean } = {}): Promise<void> {
    const p = this.pending.get(id);
    if (!this.reviewedInItsDiff(id, p, how.fromItsDiff === true)) {
      this.log.info(`${id}: approve requested before its diff was in front of the developer; showing it`);
      await this.showDiff(id);
      void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: review the change in its diff, then approve it there.'));
      return;
    }
    if (this.questions.answer(id, 'allowed')) return;
    if (!p) {
      this.log.info(`${id}: approve requested, but nothing is pending under that id`);
      return;
    }
    // A read-only proposal whose editor was changed anyway (an extension's edit, "Set Active
    // Editor Writeable in Session"): the diff no longer shows what would land. Not approved.
    // (A read-only document does not turn dirty when changed: compare with what it loaded.)
    const doc = this.diffs.proposalDocument(p);
    // A hunk was just dropped or kept and the diff has not caught up: what it shows is not what lands yet.
    if (doc && !this.store.isEditable(p.right) && doc.getText() !== p.proposal && this.diffs.reloading(p)) {
      this.log.info(`${id}: approve requested while its diff was updating to the kept hunks; not approved`);
      void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: the diff is still updating to the hunks you kept. Approve again in a moment.'));
      return;
    }
    if (doc && p.loaded !== undefined && doc.getText() !== p.loaded && !this.store.isEditable(p.right)) {
      this.log.warn(`${id}: not approved: its read-only proposal was changed in the editor without Edit Proposal`);
      void vscode.window.showWarningMessage(vscode.l10n.t('Agent Bridge: the proposal was changed in its editor without Edit Proposal, so the diff no longer shows what would be written. Choose Edit Proposal to keep those changes, or revert them, then approve.'));
      return;
    }
    this.log.info(`${id}: approved by the developer`);
    await this.decide(id, { approved: true });
  }

  /**
   * The rule "approve only the diff in front": from a diff's title bar or the keybinding, and for a
   * secret or protected file, only the change whose diff is the active editor; any other change
   * once its diff has been opened or is visible. A question about a secret file has no diff.
   */
  private reviewedInItsDiff(id: string, p: PendingProposal | undefined, fromItsDiff: boolean): boolean {
    if (fromItsDiff || p?.view.guarded) return this.current() === id;
    return !p || p.seen || this.diffs.onScreen(id);
  }

  /** Edit Proposal: the proposal side becomes editable (it is read-only until the developer asks), and its diff comes to the front. */
  async editProposal(id: string): Promise<void> {
    const p = this.pending.get(id);
    if (!p || !this.store.makeEditable(p.right)) return;
    this.log.info(`${id}: the developer chose to edit the proposal`);
    await this.showDiff(id);
  }

  /** The proposal's hunks and which are kept; `locked` once the developer edits the proposal by hand. */
  hunks(id: string): { readonly runs: readonly EditRun[]; readonly keep: readonly boolean[]; readonly locked: boolean } | undefined {
    const p = this.pending.get(id);
    return p && { runs: p.runs, keep: [...p.keep], locked: this.store.isEditable(p.right) };
  }

  /**
   * Drops a hunk of a proposal (or keeps it again): the diff then shows, and Approve writes, the
   * proposal with only the kept hunks. Not once the developer edits the proposal by hand (Edit
   * Proposal): the diff editor's own revert arrows do it there.
   */
  keepHunk(id: string, index: number, kept: boolean): boolean {
    const p = this.pending.get(id);
    if (!p || index < 0 || index >= p.runs.length || this.store.isEditable(p.right)) return false;
    if (p.keep[index] === kept) return true;
    p.keep[index] = kept;
    p.proposal = applyKept(p.change.original ?? '', p.runs, p.keep);
    p.toggledAt = performance.now();
    if (!this.store.replaceText(p.right, p.proposal)) return false;
    p.view = { ...p.view, ...runCounts(p.runs.filter((_, n) => p.keep[n])) };
    this.log.info(`${id}: the developer ${kept ? 'kept' : 'dropped'} hunk ${index + 1} of ${p.runs.length}`);
    this.refresh();
    return true;
  }

  /** Whether the change's diff has been on screen (Approve All says how many were not). */
  wasSeen(id: string): boolean {
    return this.pending.get(id)?.seen === true || this.diffs.onScreen(id);
  }

  /**
   * Approves a change the developer approved from a list (Approve All, after a modal naming every
   * file). Never a secret or protected file: those are approved only in front of their diff.
   */
  approveListed(view: PendingChangeView): void {
    const id = view.id;
    const p = this.pending.get(id);
    // Exactly the change the list showed (the same view object), never a secret or protected file.
    if (!p || p.view !== view || p.view.guarded) return;
    this.log.info(`${id}: approved by the developer from the list of pending changes${this.wasSeen(id) ? '' : ' (diff not opened)'}`);
    void this.decide(id, { approved: true });
  }

  async withdraw(id: string): Promise<void> {
    if (this.questions.answer(id, 'withdrawn')) return;
    if (!this.pending.has(id)) return;
    this.log.info(`${id}: withdrawn (the developer stopped the turn that asked for it)`);
    await this.decide(id, { approved: false, error: new ToolError('CANCELLED', 'The developer stopped the request; the change was withdrawn and nothing was written.') });
  }

  async reject(id: string, reason?: string): Promise<void> {
    if (this.questions.answer(id, 'refused')) return;
    const p = this.pending.get(id);
    if (!p) return;
    const because = reason?.trim() ? ` Reason: ${reason.trim()}` : '';
    this.log.info(`${id}: rejected by the developer`);
    await this.decide(id, { approved: false, error: new ToolError('USER_REJECTED', `The developer rejected the change to ${p.view.relativePath}.${because}`) });
  }

  /** Settles the change; resolves once its diff has closed (the caller may then put the focus back). */
  private decide(id: string, outcome: { readonly approved: true } | Refused): Promise<void> {
    const p = this.pending.get(id);
    if (!p) return Promise.resolve();
    // Read the proposal (with the developer's edits) before its editor goes away.
    const edited = p.edited && this.store.isEditable(p.right) ? this.store.currentText(p.right) : undefined;
    // Where its diff was: the changed file is shown there after the write.
    const column = outcome.approved ? this.diffs.column(p) : undefined;
    this.pending.delete(id);
    const closed = this.diffs.close(p);
    this.refresh();
    const what = { text: edited ?? p.proposal, dropped: p.keep.filter((k) => !k).length, ...(column !== undefined ? { column } : {}) };
    p.decide(outcome.approved ? { approved: true, what } : outcome);
    return closed;
  }

  private refresh(): void {
    void vscode.commands.executeCommand('setContext', 'agentBridge.hasPendingChanges', this.pending.size + this.questions.size > 0);
    this.changeEmitter.fire();
  }

  dispose(): void {
    this.questions.withdrawAll();
    for (const id of [...this.pending.keys()]) {
      void this.decide(id, { approved: false, error: new ToolError('CANCELLED', 'VS Code is closing; nothing was written.') });
    }
    for (const d of this.disposables) d.dispose();
  }
}
