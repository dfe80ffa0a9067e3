/**
 * What the developer attaches to the next message: chips above the message box, one list behind
 * both chat surfaces. An attachment is checked when it is added (a secret file or one outside the
 * served folder never becomes a chip; the reason is shown, never the content) and read again when
 * the message is sent, through the core's one door (core/chat/attachments.ts).
 */
import * as vscode from 'vscode';
import { MAX_CONTEXT_ITEMS, readContext, type ContextRef } from '../../core/chat/attachments';
import type { ContextItem } from '../../core/protocol/messages';
import { contextLabel } from '../../core/chat/contextMessage';
import { accessPolicy } from '../../core/policy/accessPolicy';
import type { Workspace } from '../../core/workspace/workspace';
import { inert } from '../adapter/inert';
import type { ContextChip } from './contract';

let counter = 0;

export class ChatAttachments {
  private chips: ContextChip[] = [];
  private adding = 0;

  constructor(
    private readonly workspace: () => Workspace | undefined,
    private readonly changed: (chips: readonly ContextChip[]) => void,
  ) {}

  get list(): readonly ContextChip[] {
    return this.chips;
  }

  /**
   * Adds a file (the whole of it), some of its lines, or a symbol's lines. `where` is a path of the
   * served folder (project-relative, or absolute from an editor). Returns why not, when refused.
   */
  async add(kind: ContextChip['kind'], where: string, range?: { startLine: number; endLine: number }, label?: string): Promise<string | undefined> {
    const t = vscode.l10n.t;
    const ws = this.workspace();
    if (!ws) return t('No folder is served, so nothing can be attached.');
    // Counting the adds still being checked, so several at once cannot pass the limit together.
    if (this.chips.length + this.adding >= MAX_CONTEXT_ITEMS) return t('At most {0} attachments can go with one message.', MAX_CONTEXT_ITEMS);
    this.adding++;
    try {
      return await this.check(kind, ws, where, range, label);
    } finally {
      this.adding--;
    }
  }

  private async check(kind: ContextChip['kind'], ws: Workspace, where: string, range: { startLine: number; endLine: number } | undefined, label: string | undefined): Promise<string | undefined> {
    let rel: string;
    try {
      rel = (await accessPolicy(ws).resolve(where)).rel;
      // Read now as it would be read on send: refused here rather than when the message goes.
      await readContext(ws, [{ path: rel, ...(range ?? {}) }]);
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
    const same = this.chips.find((c) => c.path === rel && c.startLine === range?.startLine && c.endLine === range?.endLine);
    if (same) return undefined;
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    const shown = label ?? (range ? contextLabel({ path: name, ...range }) : name);
    this.chips = [...this.chips, { id: `ctx-${Date.now().toString(36)}-${(++counter).toString(36)}`, kind, path: rel, label: shown, ...(range ?? {}) }];
    this.changed(this.chips);
    return undefined;
  }

  remove(id: string): void {
    const before = this.chips.length;
    this.chips = this.chips.filter((c) => c.id !== id);
    if (this.chips.length !== before) this.changed(this.chips);
  }

  /**
   * The attachments read for sending, with the labels the transcript keeps; the chips are cleared
   * only once the read succeeded. Rejects with the reason (a file became secret, was removed, …).
   */
  async take(): Promise<{ items: ContextItem[]; labels: { path: string; label: string; startLine?: number; endLine?: number }[] }> {
    const chips = this.chips;
    if (!chips.length) return { items: [], labels: [] };
    const ws = this.workspace();
    if (!ws) throw new Error(vscode.l10n.t('No folder is served, so nothing can be attached.'));
    const items = await readContext(ws, chips.map(refOf));
    // While the files were read the developer may have removed a chip (it is not sent) or added
    // one (it stays, for the next message).
    const sent = chips.flatMap((c, i) => (this.chips.some((x) => x.id === c.id) ? [{ chip: c, item: items[i] as ContextItem }] : []));
    this.chips = this.chips.filter((c) => !chips.some((x) => x.id === c.id));
    this.changed(this.chips);
    return {
      items: sent.map((s) => s.item),
      labels: sent.map(({ chip: c }) => ({ path: c.path, label: c.label, ...(c.startLine ? { startLine: c.startLine, endLine: c.endLine } : {}) })),
    };
  }

  /** Reads attachments by reference again (a message queued before a window reload). */
  reread(refs: readonly ContextRef[]): Promise<ContextItem[]> {
    const ws = this.workspace();
    return ws ? readContext(ws, refs) : Promise.reject(new Error(vscode.l10n.t('No folder is served, so nothing can be attached.')));
  }

  clear(): void {
    if (!this.chips.length) return;
    this.chips = [];
    this.changed(this.chips);
  }
}

const refOf = (c: ContextChip): ContextRef => ({ path: c.path, ...(c.startLine ? { startLine: c.startLine, endLine: c.endLine } : {}) });

/** The editor's selection as a line range (the whole lines it touches); undefined for an empty selection. */
export function selectionRange(editor: vscode.TextEditor): { startLine: number; endLine: number } | undefined {
  if (editor.selection.isEmpty) return undefined;
  const { start, end } = selectedLines(editor.selection);
  return { startLine: start, endLine: end };
}

/** Lines `[start, end]` (1-based) a selection covers; one ending at column 0 of a line does not take that line. */
export function selectedLines(sel: vscode.Selection): { start: number; end: number } {
  const end = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line - 1 : sel.end.line;
  return { start: sel.start.line + 1, end: end + 1 };
}

/** A refusal as the developer sees it: in the status bar, inert (an agent-chosen path cannot be a link). */
export function showRefusal(reason: string): void {
  void vscode.window.showWarningMessage(`Agent Bridge: ${inert(reason)}`);
}
