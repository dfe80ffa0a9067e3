import * as vscode from 'vscode';
import type { EditRun } from '../../core/edit/editRuns';
import type { ToolError } from '../../core/protocol/errors';
import type { ProposedChange } from '../../core/write/gate';
import type { PendingChangeView } from './changeQueue';
import type { ProposalStore } from './proposalFs';
import { reviewColumn } from './reviewGroup';
import type { Approved } from './writeApproved';

/** How long after a hunk was dropped or kept its editor's reload is expected (and Approve waits for it). */
const RELOAD_MS = 2000;

export type Refused = { readonly approved: false; readonly error: ToolError };
/** How the developer decided a change: approved, with what they approved (it is written from this alone), or refused. */
export type Decision = { readonly approved: true; readonly what: Approved } | Refused;

/** A proposed change waiting for the developer, with its diff's two sides. */
export interface PendingProposal {
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
  readonly decide: (d: Decision) => void;
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
 * The diff editors of the pending proposals: opening and closing them, which one is in front, and
 * what happened in a proposal's editor (the developer's typing, or the reload after a hunk was
 * dropped). The approval gate decides; this only watches and shows.
 */
export class ProposalDiffs implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly pending: ReadonlyMap<string, PendingProposal>,
    private readonly store: ProposalStore,
  ) {
    this.disposables = [
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length === 0) return;
        const p = this.byProposal(e.document.uri);
        if (!p) return;
        // The editor reloading the proposal after a hunk was dropped or kept is not the developer's typing.
        const text = e.document.getText();
        if (!this.store.isEditable(p.right) && (text === p.proposal || this.reloading(p))) p.loaded = text;
        else p.edited = true;
      }),
      vscode.workspace.onDidOpenTextDocument((d) => {
        const p = this.byProposal(d.uri);
        if (p && p.loaded === undefined) p.loaded = d.getText();
      }),
    ];
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

  private byProposal(proposal: vscode.Uri): PendingProposal | undefined {
    const uri = proposal.toString();
    for (const p of this.pending.values()) if (p.right.toString() === uri) return p;
    return undefined;
  }

  /** Whether the change's diff is visible now: the active tab of some editor group (a tab buried behind others is not). */
  onScreen(id: string): boolean {
    const right = this.pending.get(id)?.right.toString();
    return right !== undefined && vscode.window.tabGroups.all.some((g) => g.activeTab?.input instanceof vscode.TabInputTextDiff && g.activeTab.input.modified.toString() === right);
  }

  /** A hunk was just dropped or kept, and its editor may still be reloading the proposal. */
  reloading(p: PendingProposal): boolean {
    return p.toggledAt !== undefined && performance.now() - p.toggledAt < RELOAD_MS;
  }

  /** The open document of the proposal side, if its diff was opened. */
  proposalDocument(p: PendingProposal): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === p.right.toString());
  }

  /** The editor group the proposal's diff is in (the changed file is shown there after the write). */
  column(p: PendingProposal): vscode.ViewColumn | undefined {
    const tab = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === p.right.toString());
    return tab?.group.viewColumn;
  }

  /**
   * Opens the change's diff. Asked for by the developer (Open Diff), it takes focus; opened because
   * a proposal arrived (`background`), it opens beside what they work in and leaves the focus there.
   */
  async show(id: string, how: { readonly background?: boolean; readonly line?: number } = {}): Promise<void> {
    const p = this.pending.get(id);
    if (!p) return;
    const t = vscode.l10n.t;
    const title = p.view.created ? t('{0} ↔ Agent proposal (new file)', p.view.relativePath) : t('{0} ↔ Agent proposal', p.view.relativePath);
    const viewColumn = reviewColumn(p.right.scheme, how.background === true);
    const options: vscode.TextDocumentShowOptions = { preview: false, preserveFocus: how.background === true, ...(viewColumn !== undefined ? { viewColumn } : {}) };
    await vscode.commands.executeCommand('vscode.diff', p.left, p.right, title, options);
    // Decided while the diff was opening: its closing came before the tab did.
    if (!this.pending.has(id)) return void this.close(p);
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

  /** Closes the decided proposal's diff (saving what the developer typed first) and forgets its text. */
  async close(p: PendingProposal): Promise<void> {
    const doc = this.proposalDocument(p);
    if (doc?.isDirty) await doc.save();
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === p.right.toString());
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
    this.store.remove(p.right);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
