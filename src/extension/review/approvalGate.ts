import * as vscode from 'vscode';
import type { ChangeGate, CommittedChange, GateHooks, ProposedChange, SecretChangeRequest } from '../../core/write/gate';
import { hasMixedEol } from '../../core/edit/eol';
import { applyKept, editRuns, runCounts, type EditRun } from '../../core/edit/editRuns';
import { patchCounts, structuredPatchOf } from '../../core/edit/patch';
import type { Logger } from '../../core/log';
import { ToolError } from '../../core/protocol/errors';
import { BACKEND_WAIT_MS } from '../../core/protocol/messages';
import { readApprovalMode, SECTION, Setting } from '../adapter/settings';
import type { ChangeQueue, PendingChangeView } from './changeQueue';
import { formatProposal, type FormatMode } from './formatProposal';
import { notifyPending } from './prompts';
import { SecretQuestions } from './secretQuestions';
import { ProposalStore } from './proposalFs';
import { reviewColumn } from './reviewGroup';
import { createText, currentText, refuseUnsavedNotebook, showWritten, writeNotebookFile, writeText } from './writeChange';

/** How long after a hunk was dropped or kept its editor's reload is expected (and Approve waits for it). */
const RELOAD_MS = 2000;

interface Pending {
  readonly change: ProposedChange;
  /** The text the diff shows: the agent's proposal, formatted. */
  readonly shown: string;
  /** Replaced (a new object) when the developer drops or keeps a hunk: Approve All acts only on the view it listed. */
  view: PendingChangeView;
  /** The proposal's changed regions (hunks), and which of them the developer keeps. */
  readonly runs: readonly EditRun[];
  readonly keep: boolean[];
  /** The text with only the kept hunks: what the diff shows and what lands. */
  proposal: string;
  /** When a hunk was last dropped or kept (performance.now()): its editor reloads shortly after. */
  toggledAt?: number;
  readonly left: vscode.Uri;
  readonly right: vscode.Uri;
  readonly decide: (d: { approved: true } | { approved: false; error: ToolError }) => void;
  /** Its diff was opened by the developer (not only in the background): it may be approved. */
  seen: boolean;
  /**
   * The developer typed into it. Only then is it read back from its editor, and only after they
   * chose Edit Proposal: a document normalizes what it loads (mixed line endings, a leading BOM),
   * and a change that reached a read-only proposal otherwise is not theirs.
   */
  edited: boolean;
  /** Its text as its editor loaded it (normalized by the editor), to tell a later change of it. */
  loaded?: string;
}

/**
 * The VS Code gate: every proposed change is shown as a diff (current text left, proposal right)
 * with Approve / Reject in the title bar, in a notification and in the chat panel's cards, and
 * waits there until the developer decides. Several changes queue, each decided on its own.
 */
export class ApprovalGate implements ChangeGate, ChangeQueue, vscode.Disposable {
  private readonly pending = new Map<string, Pending>();
  /** Questions asked before a secret file is read (no change exists yet to show). */
  private readonly questions: SecretQuestions;
  /** The approved text of each approved proposal (the developer may have edited it or dropped hunks), until written. */
  private readonly decided = new Map<string, { readonly text: string; readonly dropped: number }>();
  /** Where an approved change's diff was: the changed file is shown there after the write. */
  private readonly diffColumn = new Map<string, vscode.ViewColumn>();
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changeEmitter.event;
  /** A change was written (approved, or in autoApprove mode): what the Agent Changes list records. */
  private readonly writeEmitter = new vscode.EventEmitter<{ readonly change: ProposedChange; readonly finalText: string; readonly notebook: boolean }>();
  readonly onDidWrite = this.writeEmitter.event;
  private readonly store = new ProposalStore();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly log: Logger) {
    this.questions = new SecretQuestions(log, () => this.refresh());
    this.disposables.push(
      ProposalStore.register(this.store),
      this.changeEmitter,
      this.writeEmitter,
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length === 0) return;
        const p = this.byProposal(e.document.uri);
        if (!p) return;
        // The editor reloading the proposal after a hunk was dropped or kept is not the developer's typing.
        const text = e.document.getText();
        const reloading = p.toggledAt !== undefined && performance.now() - p.toggledAt < RELOAD_MS;
        if (!this.store.isEditable(p.right) && (text === p.proposal || reloading)) p.loaded = text;
        else p.edited = true;
      }),
      vscode.workspace.onDidOpenTextDocument((d) => {
        const p = this.byProposal(d.uri);
        if (p && p.loaded === undefined) p.loaded = d.getText();
      }),
    );
  }

  list(): readonly PendingChangeView[] {
    return [...this.questions.views, ...[...this.pending.values()].map((p) => p.view)];
  }

  /** The change whose diff is the active editor: the only one a keybinding or the title bar may approve. */
  current(): string | undefined {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    return tab?.input instanceof vscode.TabInputTextDiff ? this.idOf(tab.input.modified) : undefined;
  }

  /** The change a side of its diff belongs to (the title bar passes whichever side has the focus). */
  idOf(side: vscode.Uri): string | undefined {
    const uri = side.toString();
    for (const p of this.pending.values()) if (p.right.toString() === uri || p.left.toString() === uri) return p.change.id;
    return undefined;
  }

  private byProposal(proposal: vscode.Uri): Pending | undefined {
    const uri = proposal.toString();
    for (const p of this.pending.values()) if (p.right.toString() === uri) return p;
    return undefined;
  }

  /** Whether the change's diff is visible now: the active tab of some editor group (a tab buried behind others is not). */
  private onScreen(id: string): boolean {
    const right = this.pending.get(id)?.right.toString();
    return right !== undefined && vscode.window.tabGroups.all.some((g) => g.activeTab?.input instanceof vscode.TabInputTextDiff && g.activeTab.input.modified.toString() === right);
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
    const formatMode = vscode.workspace.getConfiguration(SECTION, uri).get<FormatMode>(Setting.format, 'changedRange');
    const shown = await formatProposal(this.store, change, formatMode, this.log, signal);
    if (signal.aborted) throw new ToolError('CANCELLED', 'The call was withdrawn while its proposal was being prepared; nothing was written.');
    // A secret or protected file (.git, .vscode, CI configuration) is never written without asking,
    // whatever the mode; the mode itself comes from the user's own settings only.
    if (readApprovalMode() !== 'autoApprove' || change.path.kind !== 'normal') {
      const asked = performance.now();
      try {
        await this.ask(change, shown, signal);
      } finally {
        hooks?.approvalWait?.(performance.now() - asked);
      }
    } else if (signal.aborted) {
      throw new ToolError('CANCELLED', 'The call was withdrawn before the change was written; nothing was written.');
    }
    return this.write(change, uri, shown);
  }

  /** Before a writing tool opens a secret file: a question listed with the changes until answered. */
  allowSecretChange(request: SecretChangeRequest, signal: AbortSignal): Promise<void> {
    return this.questions.ask(request, signal);
  }

  private async ask(change: ProposedChange, shown: string, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw new ToolError('CANCELLED', 'The call was cancelled before the change was shown.');
    const counts = patchCounts(structuredPatchOf(change.original ?? '', shown));
    const runs = editRuns(change.original ?? '', shown);
    const view: PendingChangeView = {
      id: change.id,
      toolName: change.toolName,
      relativePath: change.path.rel,
      description: change.description,
      created: change.original === undefined,
      ...(change.path.kind !== 'normal' ? { guarded: { kind: change.path.kind, rule: change.path.rule ?? '?' } } : {}),
      ...counts,
      askedAt: Date.now(),
    };
    const { left, right } = this.store.add(change.id, change.path.rel, change.original ?? '', shown);
    const decision = new Promise<{ approved: true } | { approved: false; error: ToolError }>((resolve) => {
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
  }

  /**
   * Opens the change's diff. Asked for by the developer (Open Diff), it takes focus; opened because
   * a proposal arrived (`background`), it opens beside what they work in and leaves the focus there.
   */
  async showDiff(id: string, how: { readonly background?: boolean; readonly line?: number } = {}): Promise<void> {
    const p = this.pending.get(id);
    if (!p) return;
    const t = vscode.l10n.t;
    const title = p.view.created ? t('{0} ↔ Agent proposal (new file)', p.view.relativePath) : t('{0} ↔ Agent proposal', p.view.relativePath);
    const viewColumn = reviewColumn(p.right.scheme, how.background === true);
    const options: vscode.TextDocumentShowOptions = { preview: false, preserveFocus: how.background === true, ...(viewColumn !== undefined ? { viewColumn } : {}) };
    await vscode.commands.executeCommand('vscode.diff', p.left, p.right, title, options);
    // Decided while the diff was opening: its closing came before the tab did.
    if (!this.pending.has(id)) return void this.closeDiff(p);
    // Opened because the developer asked: seen. Opened in the background, it counts only while
    // it is visible (onScreen), not after another proposal has covered it.
    const shownNow = this.pending.get(id);
    if (shownNow && how.background !== true) shownNow.seen = true;
    // From a hunk's row: that hunk in the middle of the proposal side.
    const editor = vscode.window.activeTextEditor;
    if (how.line !== undefined && editor?.document.uri.toString() === p.right.toString()) {
      const at = new vscode.Range(how.line, 0, how.line, 0);
      editor.selection = new vscode.Selection(at.start, at.start);
      editor.revealRange(at, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  }

  /**
   * Approves a change whose diff the developer has seen. One never shown (its diff did not open, or
   * the Approve came from a notification before it did) is shown instead, and waits.
   */
  async approve(id: string): Promise<void> {
    if (this.questions.answer(id, 'allowed')) return;
    if (!this.pending.has(id)) {
      this.log.info(`${id}: approve requested, but nothing is pending under that id`);
      return;
    }
    const p = this.pending.get(id)!;
    // A secret or protected file is approved only in front of its diff; any other change once its
    // diff has been opened or is visible.
    const inFront = this.current() === id;
    if (p.view.guarded ? !inFront : !p.seen && !this.onScreen(id)) {
      this.log.info(`${id}: approve requested before its diff was in front of the developer; showing it`);
      await this.showDiff(id);
      void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: review the change in its diff, then approve it there.'));
      return;
    }
    // A read-only proposal whose editor was changed anyway (an extension's edit, "Set Active
    // Editor Writeable in Session"): the diff no longer shows what would land. Not approved.
    // (A read-only document does not turn dirty when changed: compare with what it loaded.)
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === p.right.toString());
    // A hunk was just dropped or kept and the diff has not caught up: what it shows is not what lands yet.
    if (doc && !this.store.isEditable(p.right) && doc.getText() !== p.proposal && p.toggledAt !== undefined && performance.now() - p.toggledAt < RELOAD_MS) {
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
    return this.pending.get(id)?.seen === true || this.onScreen(id);
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
  private decide(id: string, outcome: { approved: true } | { approved: false; error: ToolError }): Promise<void> {
    const p = this.pending.get(id);
    if (!p) return Promise.resolve();
    // Read the proposal (with the developer's edits) before its editor goes away.
    const edited = p.edited && this.store.isEditable(p.right) ? this.store.currentText(p.right) : undefined;
    this.pending.delete(id);
    if (outcome.approved) {
      this.decided.set(id, { text: edited ?? p.proposal, dropped: p.keep.filter((k) => !k).length });
      const tab = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === p.right.toString());
      if (tab) this.diffColumn.set(id, tab.group.viewColumn);
    }
    const closed = this.closeDiff(p);
    this.refresh();
    p.decide(outcome);
    return closed;
  }

  private async closeDiff(p: Pending): Promise<void> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === p.right.toString());
    if (doc?.isDirty) await doc.save();
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === p.right.toString());
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
    this.store.remove(p.right);
  }

  private async write(change: ProposedChange, uri: vscode.Uri, shown: string): Promise<CommittedChange> {
    const decided = this.decided.get(change.id);
    const finalProposal = decided?.text ?? shown;
    this.decided.delete(change.id);
    const modifiedByUser = finalProposal !== shown;
    const formatted = shown !== change.proposed;
    // Judged again before anything is read or written by name: a folder on the way swapped for a
    // link while the diff waited, or a path that became protected or secret, is refused.
    await change.judged.recheck('while the change waited for approval');
    // Never apply a proposal over text that changed after it was computed.
    if (currentText(uri) !== change.original) {
      throw new ToolError('CONFLICT', `${change.path.rel} changed while the proposal was waiting; nothing was written. Read it again and send a new change.`);
    }
    if (change.notebookEdit && change.original !== undefined) {
      const { notReloaded, ...r } = await writeNotebookFile(uri, finalProposal, change.encoding, change.original, change.path.rel, change.judged);
      if (notReloaded) this.log.info(`${change.id}: the open notebook ${change.path.rel} had not reloaded the written file after 3 s`);
      this.writeEmitter.fire({ change, finalText: r.finalText, notebook: true });
      const rewritten = r.finalText !== finalProposal;
      this.log.info(`${change.toolName} ${change.id}: wrote ${change.path.rel} as approved${modifiedByUser ? ' (edited by the developer)' : ''}${rewritten ? '; it was saved anew since (the agent is told what is on disk)' : ''}`);
      return { ...r, formatted: formatted || rewritten, modifiedByUser };
    }
    const r = change.original === undefined ? await createText(uri, finalProposal, change.encoding, change.judged) : await writeText(uri, finalProposal, change.original, change.judged);
    this.writeEmitter.fire({ change, finalText: r.finalText, notebook: false });
    const viewColumn = this.diffColumn.get(change.id);
    this.diffColumn.delete(change.id);
    if (viewColumn !== undefined) await showWritten(uri, viewColumn).catch((e: unknown) => this.log.debug(`${change.id}: could not show ${uri.fsPath}: ${e instanceof Error ? e.message : String(e)}`));
    this.log.info(`${change.toolName} ${change.id}: wrote ${change.path.rel}${modifiedByUser ? ' (edited by the developer)' : ''}${formatted ? ', formatted' : ''}${r.saved ? ', saved' : ', left unsaved'}`);
    // The developer's own save actions run as on any save of theirs, and new lines take the document's
    // line ending: when the saved text differs from the approved one, the answer says what was saved.
    const changedOnSave = r.saved && change.original !== undefined && r.finalText !== finalProposal;
    if (changedOnSave) this.log.info(`${change.id}: the saved text of ${change.path.rel} differs from the approved one (your save actions, or the file's line ending applied to new lines); the agent is told the saved text`);
    return { ...r, formatted: formatted || changedOnSave, modifiedByUser, ...(decided?.dropped ? { droppedHunks: decided.dropped } : {}) };
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
