import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { hasMixedEol } from '../../core/edit/eol';
import { editRuns, runCounts, type EditRun } from '../../core/edit/editRuns';
import { planRevert, type RevertPlan } from '../../core/edit/revert';
import type { Logger } from '../../core/log';
import type { ProposedChange } from '../../core/write/gate';
import { stillLeadsTo } from '../../core/write/judgedPath';
import { currentText, writeText } from '../review/writeChange';

/** One change the agent made (approved by the developer, or written in autoApprove mode). */
export interface AgentChange {
  /** The tool call's id. */
  readonly id: string;
  /** The conversation it belongs to (the chat's session id). */
  readonly session: string;
  /** When it was written (ms since the epoch). */
  readonly at: number;
  readonly toolName: string;
  readonly relativePath: string;
  /** The real path it was written to: a revert writes there only if that is still a regular file. */
  readonly abs: string;
  readonly description?: string;
  readonly created: boolean;
  readonly added: number;
  readonly removed: number;
  /**
   * Why it cannot be reverted from here: a secret file's text is never stored (so its regions are
   * lost with a reload), a notebook cell edit is written to the file under the open notebook (so not in its Undo), a huge change is not kept.
   */
  readonly unrevertable?: 'secret' | 'notebook' | 'large';
  /** When the developer reverted it. */
  readonly reverted?: number;
}

/** What a revert did: done, or refused with the reason in the developer's words. */
/** `unsaved`: the revert is in the editor only, because the file had unsaved edits (`dirty`) or its save failed (`failed`). */
export type RevertOutcome = { readonly ok: true; readonly unsaved?: 'dirty' | 'failed' } | { readonly ok: false; readonly reason: string };

interface Stored extends AgentChange {
  /** The changed regions, to undo them; absent when unrevertable or secret (those live in memory only). */
  readonly runs?: readonly EditRun[];
  readonly secret?: true;
}

const KEY = 'agentBridge.agentChanges';
const MAX_ENTRIES = 200;
/** The regions of one change kept for its revert: a bigger change is listed but not revertible here. */
const MAX_CHANGE_BYTES = 1024 * 1024;
/** All stored regions together (workspace state is loaded at every start): the oldest lose theirs first. */
const MAX_TOTAL_BYTES = 4 * 1024 * 1024;

const runBytes = (runs: readonly EditRun[]) => runs.reduce((n, r) => n + [...r.before, ...r.after, ...r.above, ...r.below].reduce((m, l) => m + l.length * 2, 0), 0);

/**
 * The agent's changes, newest first, kept in the workspace's state so they survive a reload, each
 * revertible on its own or all at once. A revert undoes exactly the agent's regions and only where
 * the file still has the agent's lines (see planRevert): the developer's later work is never
 * overwritten, and a refusal says where the file changed.
 */
export class AgentChanges implements vscode.Disposable {
  private entries: Stored[];
  /** Regions of secret-file changes: in memory only, never written to the workspace state. */
  private readonly secretRuns = new Map<string, readonly EditRun[]>();
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changeEmitter.event;
  /** Reverts under way: a second one of the same change (Revert while Revert All runs) waits its turn by being refused. */
  private readonly reverting = new Set<string>();

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: Logger,
    private readonly session: () => string,
  ) {
    const saved = state.get<{ v: number; entries: Stored[] }>(KEY);
    this.entries = saved?.v === 1 && Array.isArray(saved.entries) ? saved.entries : [];
  }

  /** Newest first. */
  list(): readonly AgentChange[] {
    return this.entries.map(({ runs, secret, ...e }) => {
      if (e.unrevertable !== undefined || runs || this.secretRuns.has(e.id)) return e;
      return { ...e, unrevertable: secret ? ('secret' as const) : ('large' as const) };
    });
  }

  currentSession(): string {
    return this.session();
  }

  /** A new conversation began: the list shows it (the old one folds away). */
  sessionChanged(): void {
    this.changeEmitter.fire();
  }

  /** Records a change once it is written. `finalText` is the file's text right after it. */
  record(change: ProposedChange, finalText: string, notebook: boolean): void {
    const runs = notebook ? undefined : editRuns(change.original ?? '', finalText);
    // Every hunk dropped (or an empty file created): nothing of the agent's to undo.
    if (runs?.length === 0) return;
    const counts = runs ? runCounts(runs) : { added: 0, removed: 0 };
    const large = runs !== undefined && runBytes(runs) > MAX_CHANGE_BYTES;
    const secret = change.path.kind === 'secret';
    const unrevertable = notebook ? 'notebook' : large ? 'large' : undefined;
    const entry: Stored = {
      id: change.id,
      session: this.session(),
      at: Date.now(),
      toolName: change.toolName,
      relativePath: change.path.rel,
      abs: change.path.abs,
      ...(change.description ? { description: change.description.slice(0, 500) } : {}),
      created: change.original === undefined,
      ...counts,
      ...(unrevertable ? { unrevertable } : {}),
      ...(runs && !large && !secret ? { runs } : {}),
      ...(secret ? { secret: true as const } : {}),
    };
    if (secret && runs && !large) this.secretRuns.set(change.id, runs);
    this.entries = [entry, ...this.entries.filter((e) => e.id !== change.id)];
    this.save();
  }

  /** A change's regions: stored with it, or (a secret file's) in memory only; undefined when not kept. */
  private runsOf(id: string): readonly EditRun[] | undefined {
    return this.entries.find((e) => e.id === id)?.runs ?? this.secretRuns.get(id);
  }

  /** The text the file would have with the change undone, or why it cannot be. */
  plan(id: string): { readonly entry: AgentChange; readonly current: string | undefined; readonly plan?: RevertPlan; readonly refusal?: string } | undefined {
    const entry = this.list().find((e) => e.id === id);
    if (!entry) return undefined;
    const t = vscode.l10n.t;
    const runs = this.runsOf(id);
    if (entry.reverted) return { entry, current: undefined, refusal: t('It was already reverted.') };
    if (!runs) {
      const why = entry.unrevertable === 'notebook'
        ? t('It is a notebook cell edit, written to the file: use git, or edit the cell again.')
        : entry.unrevertable === 'secret'
          ? t('It changed a secret file, whose text Agent Bridge does not keep across a reload: use git or Undo.')
          : t('It is too large to keep for a revert: use git or Undo.');
      return { entry, current: undefined, refusal: why };
    }
    const current = this.currentText(entry);
    if (typeof current !== 'string') return { entry, current: undefined, refusal: current.refusal };
    if (hasMixedEol(current)) return { entry, current, refusal: t('The file now has mixed line endings; the editor would rewrite every one of them.') };
    const plan = planRevert(runs, current);
    if (!plan.ok) {
      const refusal = plan.reason === 'ambiguous'
        ? t('The agent\'s lines appear more than once near line {0}, so the change cannot be placed for sure.', plan.line)
        : t('The file was changed after the agent\'s edit, near line {0}: reverting would overwrite that work.', plan.line);
      return { entry, current, plan, refusal };
    }
    return { entry, current, plan };
  }

  /**
   * The file's text now, as the tools read it: an unsaved buffer wins, else the disk, read only if
   * the path is still a regular file that is not a link (a file swapped for a link to .git/config
   * after the agent's change is not written through).
   */
  private currentText(entry: AgentChange): string | { refusal: string } {
    const t = vscode.l10n.t;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(entry.abs);
    } catch {
      return { refusal: t('The file no longer exists.') };
    }
    if (!st.isFile()) return { refusal: t('The path is no longer a regular file (it was replaced by a link or a folder).') };
    let real: string;
    try {
      real = fs.realpathSync(entry.abs);
    } catch {
      return { refusal: t('The file no longer exists.') };
    }
    if (real !== entry.abs) return { refusal: t('A folder on the path was replaced by a link since the agent\'s edit.') };
    return currentText(vscode.Uri.file(entry.abs)) ?? { refusal: t('The file cannot be read.') };
  }

  /**
   * The two sides of "Open Diff": the file as it was before the change (the current file with the
   * change undone) against the file now; where the change can no longer be undone, only the agent's
   * lines, before and after.
   */
  sides(id: string): { readonly before: string; readonly after?: string } | undefined {
    const p = this.plan(id);
    if (!p) return undefined;
    if (p.plan?.ok && p.refusal === undefined) return { before: p.plan.text };
    const runs = this.runsOf(id);
    if (!runs) return undefined;
    const gap = '⋯\n';
    return { before: runs.map((r) => r.before.join('')).join(gap), after: runs.map((r) => r.after.join('')).join(gap) };
  }

  /** Undoes one change (an edit the developer can Undo in the file, like any other). */
  async revert(id: string): Promise<RevertOutcome> {
    if (this.reverting.has(id)) return { ok: false, reason: vscode.l10n.t('It is being reverted already.') };
    this.reverting.add(id);
    try {
      return await this.revertNow(id);
    } finally {
      this.reverting.delete(id);
    }
  }

  private async revertNow(id: string): Promise<RevertOutcome> {
    const p = this.plan(id);
    if (!p) return { ok: false, reason: vscode.l10n.t('There is no such change.') };
    if (p.refusal !== undefined || !p.plan?.ok || p.current === undefined) return { ok: false, reason: p.refusal ?? '' };
    const uri = vscode.Uri.file(p.entry.abs);
    let unsaved: 'dirty' | 'failed' | undefined;
    try {
      if (p.entry.created && p.plan.text === '') {
        // The agent created it and nothing else was written to it since: removed again (to the trash where there is one).
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === p.entry.abs);
        if (doc?.isDirty) return { ok: false, reason: vscode.l10n.t('The file has unsaved changes.') };
        const del = new vscode.WorkspaceEdit();
        del.deleteFile(uri, { ignoreIfNotExists: true });
        // VS Code deletes by name: not through a folder swapped for a link since the file was written.
        await stillLeadsTo(p.entry.abs).recheck('since it was written');
        if (!(await vscode.workspace.applyEdit(del))) return { ok: false, reason: vscode.l10n.t('VS Code refused to delete the file.') };
      } else {
        const dirty = vscode.workspace.textDocuments.some((d) => d.uri.scheme === 'file' && d.uri.fsPath === p.entry.abs && d.isDirty);
        const r = await writeText(uri, p.plan.text, p.current, stillLeadsTo(p.entry.abs));
        // In a file with unsaved edits the revert stays unsaved too, on purpose; otherwise a save that failed is said.
        unsaved = dirty ? 'dirty' : r.saved ? undefined : 'failed';
      }
    } catch (e) {
      return { ok: false, reason: e instanceof Error ? e.message : String(e) };
    }
    this.entries = this.entries.map((e) => (e.id === id ? { ...e, reverted: Date.now() } : e));
    this.save();
    this.log.info(`${id}: the developer reverted the agent's change to ${p.entry.relativePath}${unsaved ? ` (in the editor only: ${unsaved})` : ''}`);
    return unsaved ? { ok: true, unsaved } : { ok: true };
  }

  /** Reverts the session's changes, newest first; those that cannot be reverted are left and named. */
  async revertAll(session = this.session()): Promise<{ reverted: AgentChange[]; refused: { change: AgentChange; reason: string }[] }> {
    const reverted: AgentChange[] = [];
    const refused: { change: AgentChange; reason: string }[] = [];
    for (const e of this.list().filter((x) => x.session === session && !x.reverted)) {
      const r = await this.revert(e.id);
      if (r.ok) reverted.push(e);
      else refused.push({ change: e, reason: r.reason });
    }
    return { reverted, refused };
  }

  /** Forgets the listed changes of a session (nothing in the files changes). */
  clear(session?: string): void {
    this.entries = session === undefined ? [] : this.entries.filter((e) => e.session !== session);
    this.save();
  }

  private save(): void {
    // Bounded: at most MAX_ENTRIES, and the oldest give up their regions (stay listed) past MAX_TOTAL_BYTES.
    // A secret file's regions (in memory only) count too, and live only as long as their entry is listed.
    let total = 0;
    this.entries = this.entries.slice(0, MAX_ENTRIES).map((e) => {
      const secret = this.secretRuns.get(e.id);
      if (secret) {
        total += runBytes(secret);
        if (total > MAX_TOTAL_BYTES) this.secretRuns.delete(e.id);
      }
      if (!e.runs) return e;
      total += runBytes(e.runs);
      if (total <= MAX_TOTAL_BYTES) return e;
      const { runs: _dropped, ...rest } = e;
      return { ...rest, unrevertable: 'large' as const };
    });
    for (const id of [...this.secretRuns.keys()]) if (!this.entries.some((e) => e.id === id)) this.secretRuns.delete(id);
    void this.state.update(KEY, { v: 1, entries: this.entries });
    this.changeEmitter.fire();
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}
