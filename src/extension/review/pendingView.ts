import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ApprovalGate } from './approvalGate';
import { askReason, guardedWarning, lateWarning, notSourceNote } from './prompts';
import { callerMayHaveGivenUp, type PendingChangeView } from './changeQueue';
import type { EditRun } from '../../core/edit/editRuns';

const PENDING_VIEW_ID = 'agentBridge.pendingChanges';

/**
 * One row of the view. Commands invoked from the view get this object back; only rows this view
 * made are acted on, so another extension cannot approve a change by passing an id of its own.
 */
class PendingRow {
  constructor(readonly change: PendingChangeView) {}
}

/** One changed region of a pending proposal, with a checkbox: unchecked, it is dropped from what lands. */
class HunkRow {
  constructor(
    readonly change: PendingChangeView,
    readonly index: number,
    readonly run: EditRun,
    readonly kept: boolean,
    readonly locked: boolean,
  ) {}
}

type Row = PendingRow | HunkRow;

/**
 * "Pending Changes": every proposal that waits for the developer, with +/− counts and the agent's
 * description, in one place. Click opens the diff; the row's buttons approve or reject; the title
 * bar approves or rejects all. A status bar item counts them.
 */
export class PendingChangesView implements vscode.TreeDataProvider<Row>, vscode.Disposable {
  private readonly rows = new WeakSet<Row>();
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly count = vscode.window.createStatusBarItem('agentBridge.pendingCount', vscode.StatusBarAlignment.Left, 49);
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly approvals: ApprovalGate) {
    this.count.name = vscode.l10n.t('Agent Bridge: pending changes');
    this.count.command = `${PENDING_VIEW_ID}.focus`;
    // Checkboxes only on hunks; a change's row has none (checking it must not toggle its hunks).
    const view = vscode.window.createTreeView(PENDING_VIEW_ID, { treeDataProvider: this, manageCheckboxStateManually: true });
    this.disposables = [
      view,
      view.onDidChangeCheckboxState((e) => this.toggled(e.items)),
      this.count,
      this.changeEmitter,
      approvals.onDidChange(() => {
        this.changeEmitter.fire();
        this.renderCount(view);
      }),
    ];
    this.renderCount(view);
  }

  getChildren(row?: Row): Row[] {
    const made = <R extends Row>(r: R): R => {
      this.rows.add(r);
      return r;
    };
    if (row instanceof HunkRow) return [];
    if (row) {
      const h = this.approvals.hunks(row.change.id);
      return h ? h.runs.map((run, n) => made(new HunkRow(row.change, n, run, h.keep[n], h.locked))) : [];
    }
    return this.approvals.list().map((change) => made(new PendingRow(change)));
  }

  getTreeItem(row: Row): vscode.TreeItem {
    if (row instanceof HunkRow) return hunkItem(row);
    const c = row.change;
    const t = vscode.l10n.t;
    // A change of several hunks unfolds into them, each with a checkbox to drop it.
    const hunks = this.approvals.hunks(c.id)?.runs.length ?? 0;
    const fold = hunks < 2 ? vscode.TreeItemCollapsibleState.None : hunks <= 8 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
    const item = new vscode.TreeItem(path.posix.basename(c.relativePath), fold);
    item.id = `change:${c.id}`;
    const folder = path.posix.dirname(c.relativePath);
    const overdue = callerMayHaveGivenUp(c);
    if (c.consent) return consentItem(item, c, folder);
    item.description = `+${c.added} −${c.removed}${folder !== '.' ? ` · ${folder}` : ''}${overdue ? ` · ${t('the agent may have stopped waiting')}` : ''}`;
    item.iconPath = new vscode.ThemeIcon(c.guarded ? 'warning' : c.created ? 'diff-added' : 'diff-modified');
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendText(c.created ? t('New file {0} (+{1})', c.relativePath, c.added) : t('{0} (+{1} −{2})', c.relativePath, c.added, c.removed));
    if (c.description) tip.appendMarkdown('\n\n').appendText(t('The agent says: “{0}”', c.description));
    if (c.guarded) tip.appendMarkdown('\n\n').appendText(guardedWarning(c.guarded));
    if (c.notSource) tip.appendMarkdown('\n\n').appendText(notSourceNote());
    if (overdue) tip.appendMarkdown('\n\n').appendText(lateWarning());
    item.tooltip = tip;
    item.contextValue = c.guarded ? 'pendingChange.guarded' : 'pendingChange';
    item.command = { command: 'agentBridge.openPendingDiff', title: t('Open Diff'), arguments: [row] };
    item.accessibilityInformation = { label: `${c.relativePath}, +${c.added} −${c.removed}${c.guarded ? `, ${guardedWarning(c.guarded)}` : ''}${overdue ? `, ${lateWarning()}` : ''}` };
    return item;
  }

  /** Open Diff on a row of this view; on a hunk's row, at that hunk (review/commands.ts). */
  openDiffOfRow(row: unknown): Promise<void> {
    return this.act(row, (id) => this.approvals.showDiff(id, row instanceof HunkRow ? { line: Math.max(0, row.run.newAt) } : {}));
  }

  /** Approve on a row of this view; once decided, the focus goes back to the list. */
  approveRow(row: unknown): Promise<void> {
    return this.act(row, async (id) => {
      await this.approvals.approve(id);
      if (!this.approvals.list().some((c) => c.id === id)) await backToList();
    });
  }

  /** Reject on a row of this view, with the optional reason; the focus goes back to the list. */
  rejectRow(row: unknown): Promise<void> {
    return this.act(row, async (id) => {
      const reason = await askReason();
      if (reason !== undefined) await this.approvals.reject(id, reason);
      await backToList();
    });
  }

  private async act(row: unknown, run: (id: string) => Promise<void>): Promise<void> {
    if (!(row instanceof PendingRow || row instanceof HunkRow) || !this.rows.has(row)) return;
    await run(row.change.id);
  }

  /** A hunk's checkbox was toggled: dropped from (or put back into) what the diff shows and what lands. */
  private toggled(items: readonly (readonly [Row, vscode.TreeItemCheckboxState])[]): void {
    for (const [row, state] of items) {
      if (!(row instanceof HunkRow) || !this.rows.has(row)) continue;
      if (!this.approvals.keepHunk(row.change.id, row.index, state === vscode.TreeItemCheckboxState.Checked)) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Agent Bridge: you are editing this proposal by hand; drop a hunk there with the diff editor\'s revert arrow.'));
        this.changeEmitter.fire();
      }
    }
  }

  private renderCount(view: vscode.TreeView<Row>): void {
    const n = this.approvals.list().length;
    view.badge = n ? { value: n, tooltip: vscode.l10n.t('{0} changes wait for your approval', n) } : undefined;
    view.message = n ? undefined : vscode.l10n.t('No change is waiting for your approval.');
    if (!n) {
      this.count.hide();
      return;
    }
    this.count.text = `$(diff) ${n}`;
    this.count.tooltip = vscode.l10n.t('{0} changes wait for your approval', n);
    this.count.accessibilityInformation = { label: vscode.l10n.t('{0} changes wait for your approval', n) };
    this.count.show();
  }

  /**
   * Approves every waiting change except secret and protected files (those are decided one by
   * one, in front of their diff), after a modal that lists them and says which diffs were never
   * opened: the developer consents to exactly that list.
   */
  async approveAll(): Promise<void> {
    const t = vscode.l10n.t;
    const all = this.approvals.list();
    const plain = all.filter((c) => !c.guarded);
    if (!plain.length) {
      void vscode.window.showInformationMessage(all.length ? t('Agent Bridge: the waiting changes touch secret or protected files; decide each in its diff.') : t('Agent Bridge: no change is waiting for approval.'));
      return;
    }
    const unseen = plain.filter((c) => !this.approvals.wasSeen(c.id)).length;
    const lines = plain.map((c) => `${c.relativePath} (+${c.added} −${c.removed})`).join('\n');
    const notes = [unseen ? t('You have not opened the diff of {0} of them.', unseen) : '', all.length > plain.length ? t('{0} changes to secret or protected files stay waiting.', all.length - plain.length) : ''].filter(Boolean).join(' ');
    const approve = t('Approve {0}', plain.length);
    const picked = await vscode.window.showWarningMessage(t('Approve these {0} changes?', plain.length), { modal: true, detail: `${lines}${notes ? `\n\n${notes}` : ''}` }, approve);
    if (picked !== approve) return;
    for (const c of plain) this.approvals.approveListed(c);
  }

  /** Rejects every waiting change (and refuses every secret-file question), after a modal that lists them. */
  async rejectAll(): Promise<void> {
    const t = vscode.l10n.t;
    // The changes listed when the developer chose Reject All; one arriving meanwhile waits.
    const listed = this.approvals.list();
    if (!listed.length) return void vscode.window.showInformationMessage(t('Agent Bridge: no change is waiting for approval.'));
    const lines = listed.map((c) => (c.consent ? `${c.relativePath} (${t('asks to change a secret file')})` : `${c.relativePath} (+${c.added} −${c.removed})`)).join('\n');
    const reject = t('Reject {0}', listed.length);
    const picked = await vscode.window.showWarningMessage(t('Reject these {0} changes?', listed.length), { modal: true, detail: lines }, reject);
    if (picked !== reject) return;
    const reason = await askReason(t('Reject {0} changes', listed.length));
    if (reason === undefined) return;
    for (const c of listed) await this.approvals.reject(c.id, reason);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** A hunk's row: where it is in the proposal, its counts and first changed line; the checkbox keeps or drops it. */
function hunkItem(row: HunkRow): vscode.TreeItem {
  const t = vscode.l10n.t;
  const { run } = row;
  const first = run.newAt + 1;
  const label = run.after.length === 0 ? t('Removes lines after line {0}', run.newAt) : run.after.length === 1 ? t('Line {0}', first) : t('Lines {0}–{1}', first, first + run.after.length - 1);
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  item.id = `hunk:${row.change.id}:${row.index}`;
  const sample = (run.after.find((l) => l.trim()) ?? run.before.find((l) => l.trim()) ?? '').trim();
  item.description = `+${run.after.length} −${run.before.length}${sample ? ` · ${sample.length > 48 ? `${sample.slice(0, 48)}…` : sample}` : ''}`;
  item.checkboxState = row.locked
    ? undefined
    : { state: row.kept ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked, tooltip: row.kept ? t('Kept: uncheck to drop this hunk from the change') : t('Dropped: check to keep this hunk') };
  const tip = new vscode.MarkdownString(undefined, true);
  tip.appendText(row.locked ? t('You are editing this proposal by hand: drop hunks there with the diff editor\'s revert arrows.') : row.kept ? t('This hunk is kept. Uncheck it to drop it: the diff shows, and Approve writes, only the kept hunks.') : t('This hunk is dropped: it will not be written. Check it to keep it.'));
  item.tooltip = tip;
  item.contextValue = 'pendingHunk';
  item.command = { command: 'agentBridge.openPendingDiff', title: t('Open Diff'), arguments: [row] };
  item.accessibilityInformation = { label: `${label}, +${run.after.length} −${run.before.length}, ${row.kept ? t('kept') : t('dropped')}` };
  return item;
}

/** A question before a secret file is read: Allow (the approve button) or Refuse; there is no diff yet. */
function consentItem(item: vscode.TreeItem, c: PendingChangeView, folder: string): vscode.TreeItem {
  const t = vscode.l10n.t;
  item.description = `${t('asks to change a secret file')}${folder !== '.' ? ` · ${folder}` : ''}`;
  item.iconPath = new vscode.ThemeIcon('key');
  const tip = new vscode.MarkdownString(undefined, true);
  tip.appendText(t('The agent wants to change {0}. Nothing of it has been read: ✓ lets the agent prepare a change, which you then review in its diff; ✕ refuses.', c.relativePath));
  if (c.description) tip.appendMarkdown('\n\n').appendText(t('The agent says: “{0}”', c.description));
  if (c.guarded) tip.appendMarkdown('\n\n').appendText(guardedWarning(c.guarded));
  item.tooltip = tip;
  item.contextValue = 'pendingConsent';
  item.accessibilityInformation = { label: `${c.relativePath}, ${t('asks to change a secret file')}` };
  return item;
}

/** After a decision made in the list, the focus goes back to the list (the closing diff would leave it in an editor). */
async function backToList(): Promise<void> {
  await vscode.commands.executeCommand('agentBridge.pendingChanges.focus');
}
