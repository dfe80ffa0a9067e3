import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentChange, AgentChanges } from './agentChanges';
import { inert } from '../adapter/inert';

const AGENT_CHANGES_VIEW_ID = 'agentBridge.agentChanges';
const BEFORE_SCHEME = 'agent-bridge-before';

/** A row the view made (commands act only on those, never on an id passed by someone else). */
class ChangeRow {
  constructor(readonly change: AgentChange) {}
}

/** An earlier conversation's changes, folded away. */
class SessionGroup {
  constructor(
    readonly session: string,
    readonly changes: readonly AgentChange[],
  ) {}
}

type Node = ChangeRow | SessionGroup;

const timeOf = (ms: number) => new Date(ms).toLocaleTimeString(vscode.env.language, { hour: '2-digit', minute: '2-digit' });
const dateOf = (ms: number) => new Date(ms).toLocaleString(vscode.env.language, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/**
 * "Agent Changes": what the agent changed in this conversation, newest first, each with Open Diff
 * (the file before the change against the file now) and Revert; Revert All in the title bar.
 * Earlier conversations are folded below, still revertible.
 */
export class AgentChangesView implements vscode.TreeDataProvider<Node>, vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly rows = new WeakSet<ChangeRow>();
  private readonly treeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.treeEmitter.event;
  private readonly docEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.docEmitter.event;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly changes: AgentChanges) {
    const view = vscode.window.createTreeView(AGENT_CHANGES_VIEW_ID, { treeDataProvider: this });
    const refresh = () => {
      this.treeEmitter.fire();
      const mine = changes.list().filter((c) => c.session === changes.currentSession());
      view.message = mine.length ? undefined : vscode.l10n.t('The agent has not changed any file in this conversation yet.');
      void vscode.commands.executeCommand('setContext', 'agentBridge.hasRevertibleChanges', mine.some((c) => !c.reverted && !c.unrevertable));
    };
    this.disposables = [
      view,
      this.treeEmitter,
      this.docEmitter,
      vscode.workspace.registerTextDocumentContentProvider(BEFORE_SCHEME, this),
      changes.onDidChange(refresh),
    ];
    refresh();
  }

  getChildren(node?: Node): Node[] {
    const all = this.changes.list();
    const made = (c: AgentChange) => {
      const r = new ChangeRow(c);
      this.rows.add(r);
      return r;
    };
    if (node instanceof SessionGroup) return node.changes.map(made);
    if (node) return [];
    const current = this.changes.currentSession();
    const earlier = new Map<string, AgentChange[]>();
    for (const c of all) if (c.session !== current) earlier.set(c.session, [...(earlier.get(c.session) ?? []), c]);
    return [...all.filter((c) => c.session === current).map(made), ...[...earlier].map(([s, cs]) => new SessionGroup(s, cs))];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const t = vscode.l10n.t;
    if (node instanceof SessionGroup) {
      const item = new vscode.TreeItem(t('Earlier conversation · {0}', dateOf(node.changes[node.changes.length - 1].at)), vscode.TreeItemCollapsibleState.Collapsed);
      item.description = t('{0} changes', node.changes.length);
      item.iconPath = new vscode.ThemeIcon('history');
      item.contextValue = 'agentChangeSession';
      return item;
    }
    const c = node.change;
    const item = new vscode.TreeItem(path.posix.basename(c.relativePath), vscode.TreeItemCollapsibleState.None);
    const folder = path.posix.dirname(c.relativePath);
    const state = c.reverted ? t('reverted') : `+${c.added} −${c.removed}`;
    item.description = [state, folder !== '.' ? folder : '', timeOf(c.at)].filter(Boolean).join(' · ');
    item.iconPath = new vscode.ThemeIcon(c.reverted ? 'discard' : c.created ? 'diff-added' : 'diff-modified');
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendText(`${c.relativePath} (+${c.added} −${c.removed}) · ${c.toolName} · ${dateOf(c.at)}`);
    if (c.description) tip.appendMarkdown('\n\n').appendText(t('The agent says: “{0}”', c.description));
    if (c.reverted) tip.appendMarkdown('\n\n').appendText(t('You reverted it at {0}.', timeOf(c.reverted)));
    else if (c.unrevertable) tip.appendMarkdown('\n\n').appendText(t('It cannot be reverted from here.'));
    item.tooltip = tip;
    item.contextValue = c.reverted ? 'agentChange.reverted' : c.unrevertable ? 'agentChange.fixed' : 'agentChange';
    if (!c.reverted) item.command = { command: 'agentBridge.openAgentChangeDiff', title: t('Open Diff'), arguments: [node] };
    item.accessibilityInformation = { label: `${c.relativePath}, ${state}, ${dateOf(c.at)}` };
    return item;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const sides = this.changes.sides(uri.query);
    if (!sides) return '';
    return uri.fragment === 'after' ? (sides.after ?? '') : sides.before;
  }

  /** Open Diff on a row of this view (changes/commands.ts). */
  openDiffOfRow(row: unknown): Promise<void> {
    return this.act(row, (c) => this.openDiff(c));
  }

  /** Revert on a row of this view (changes/commands.ts). */
  revertRow(row: unknown): Promise<void> {
    return this.act(row, (c) => this.revert(c));
  }

  private async act(row: unknown, run: (c: AgentChange) => Promise<void>): Promise<void> {
    if (!(row instanceof ChangeRow) || !this.rows.has(row)) return;
    await run(row.change);
  }

  private async openDiff(c: AgentChange): Promise<void> {
    const t = vscode.l10n.t;
    const sides = this.changes.sides(c.id);
    if (!sides) {
      const p = this.changes.plan(c.id);
      void vscode.window.showInformationMessage(t('Agent Bridge: there is no diff to show for {0}. {1}', inert(c.relativePath), inert(p?.refusal ?? '')));
      return;
    }
    const left = vscode.Uri.from({ scheme: BEFORE_SCHEME, path: `/${c.relativePath}`, query: c.id });
    this.docEmitter.fire(left);
    if (sides.after === undefined) {
      await vscode.commands.executeCommand('vscode.diff', left, vscode.Uri.file(c.abs), t('{0} before the agent\'s change ↔ now', c.relativePath), { preview: true });
      return;
    }
    const right = left.with({ fragment: 'after' });
    this.docEmitter.fire(right);
    await vscode.commands.executeCommand('vscode.diff', left, right, t('{0}: the agent\'s lines (the file changed since)', c.relativePath), { preview: true });
  }

  private async revert(c: AgentChange): Promise<void> {
    const t = vscode.l10n.t;
    const r = await this.changes.revert(c.id);
    if (r.ok && r.unsaved === 'failed') {
      void vscode.window.showWarningMessage(t('Agent Bridge: the change to {0} was reverted in the editor, but VS Code could not save the file. Save it yourself.', inert(c.relativePath)));
      return;
    }
    if (r.ok && r.unsaved === 'dirty') {
      void vscode.window.showInformationMessage(t('Agent Bridge: the change to {0} was reverted in the editor, where the file has unsaved edits of yours; it is on disk once you save.', inert(c.relativePath)));
      return;
    }
    if (r.ok) {
      vscode.window.setStatusBarMessage(t('$(discard) Reverted the agent\'s change to {0}', c.relativePath), 5000);
      return;
    }
    const open = t('Open Diff');
    const picked = await vscode.window.showWarningMessage(t('Agent Bridge: the change to {0} was not reverted. {1} Nothing was changed.', inert(c.relativePath), inert(r.reason)), open);
    if (picked === open) await this.openDiff(c);
  }

  /** Reverts this conversation's changes after a modal naming them; says which could not be. */
  async revertAll(): Promise<void> {
    const t = vscode.l10n.t;
    const todo = this.changes.list().filter((c) => c.session === this.changes.currentSession() && !c.reverted && !c.unrevertable);
    if (!todo.length) {
      void vscode.window.showInformationMessage(t('Agent Bridge: nothing to revert in this conversation.'));
      return;
    }
    const go = t('Revert {0}', todo.length);
    const detail = todo.map((c) => `${inert(c.relativePath)} (+${c.added} −${c.removed}) ${timeOf(c.at)}`).join('\n');
    const picked = await vscode.window.showWarningMessage(t('Revert the agent\'s {0} changes in this conversation?', todo.length), { modal: true, detail: `${detail}\n\n${t('Each is undone only where the file still has the agent\'s lines; your later work is kept.')}` }, go);
    if (picked !== go) return;
    const { reverted, refused } = await this.changes.revertAll();
    if (!refused.length) {
      void vscode.window.showInformationMessage(t('Agent Bridge: reverted {0} changes.', reverted.length));
      return;
    }
    const lines = refused.map((x) => `${inert(x.change.relativePath)}: ${inert(x.reason)}`).join('\n');
    void vscode.window.showWarningMessage(t('Agent Bridge: reverted {0} of {1} changes; the others were left as they are.', reverted.length, reverted.length + refused.length), { modal: true, detail: lines });
  }

  async clear(): Promise<void> {
    const t = vscode.l10n.t;
    const forget = t('Clear List');
    const picked = await vscode.window.showWarningMessage(t('Clear the list of the agent\'s changes? No file is changed, but they can no longer be reverted from here.'), { modal: true }, forget);
    if (picked === forget) this.changes.clear();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
