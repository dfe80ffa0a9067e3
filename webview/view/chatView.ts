/** The whole panel: header, transcript, approval cards, composer. Built once `init` brings the strings. */
import type { ChangeCard, ConnectionView, ContextChip, Entry, SlashCommand, Strings, Suggestion } from '../../src/extension/chat/contract';
import type { RenderMarkdown } from '../render/markdown';
import { Changes } from './changes';
import { Composer } from './composer';
import { button, h, icon } from './dom';
import { renderEntry } from './entries';
import { Header } from './header';
import { handleFileRefClicks } from './fileLinks';
import { readOnlyNotice } from './readOnly';
import { saveState } from '../vscodeApi';

export class ChatView {
  private readonly header: Header;
  private readonly readOnly: HTMLElement;
  private readonly list: HTMLElement;
  private readonly emptyState: HTMLElement;
  private readonly changes: Changes;
  private readonly composer: Composer;
  private readonly working: HTMLElement;
  private readonly nodes = new Map<string, HTMLElement>();
  private readonly transcript: HTMLElement;
  private busy = false;
  private connected = false;
  /** Whether the view follows new output: true while the developer is at the bottom. */
  private stick = true;
  /** Shown when new output arrived below while the developer reads further up. */
  private readonly jump: HTMLButtonElement;

  constructor(
    root: HTMLElement,
    private readonly strings: Strings,
    private readonly markdown: RenderMarkdown,
    docked: boolean,
  ) {
    document.title = strings.title;
    this.header = new Header(strings, docked);
    this.readOnly = readOnlyNotice(strings);
    this.emptyState = h('div', { class: 'empty-state' }, [icon('comment-discussion'), h('p', { text: strings.empty })]);
    this.list = h('div', { class: 'entries' });
    this.working = h('div', { class: 'working', attrs: { role: 'status' } }, [icon('loading', 'codicon-modifier-spin'), h('span', { text: strings.busy })]);
    // One tab stop for the whole transcript (tabindex 0); inside it the arrow keys move between its
    // controls, whose own tabindex is -1, so Tab goes on to the composer instead of through every Copy button.
    const transcript = h('main', { class: 'transcript', attrs: { role: 'log', 'aria-label': strings.transcriptLabel, tabindex: '0' } }, [this.emptyState, this.list, this.working]);
    this.transcript = transcript;
    this.jump = button({ icon: 'arrow-down', label: strings.jumpToLatest, showLabel: true, class: 'jump-to-latest', onClick: () => this.toLatest() });
    this.jump.hidden = true;
    transcript.addEventListener(
      'scroll',
      () => {
        this.stick = this.nearEnd();
        if (this.stick) this.jump.hidden = true;
        this.saveScroll();
      },
      { passive: true },
    );
    // A narrower panel makes everything taller: stay at the bottom if that is where the developer was.
    window.addEventListener('resize', () => this.follow());
    handleFileRefClicks(transcript);
    transcript.addEventListener('keydown', (e) => this.moveFocus(e));
    this.changes = new Changes(strings);
    this.composer = new Composer(strings);
    // The button floats over the transcript's bottom edge, so the wrapper is its positioning box.
    const wrap = h('div', { class: 'transcript-wrap' }, [transcript, this.jump]);
    root.replaceChildren(this.header.el, this.readOnly, wrap, this.changes.el, this.composer.el);
  }

  setConnection(c: ConnectionView): void {
    this.header.render(c);
    this.connected = c.state === 'connected';
    this.showWorking();
  }

  /** Shows or hides the notice that the workspace is untrusted, so the agent only reads. */
  setReadOnly(readOnly: boolean): void {
    this.readOnly.hidden = !readOnly;
  }

  setEntries(entries: readonly Entry[]): void {
    this.nodes.clear();
    this.list.replaceChildren();
    for (const e of entries) this.upsert(e, false);
    this.updateEmpty();
    this.stick = true;
    this.follow();
  }

  upsert(entry: Entry, scroll = true): void {
    const el = renderEntry(entry, { strings: this.strings, markdown: this.markdown });
    el.dataset.entryId = entry.id;
    const old = this.nodes.get(entry.id);
    // Keep a tool row open across its update if the developer opened it.
    if (old instanceof HTMLDetailsElement && el instanceof HTMLDetailsElement && old.open) el.open = true;
    if (old) old.replaceWith(el);
    else this.list.append(el);
    // The developer's own new message takes them to the latest output, wherever they were reading.
    if (!old && entry.kind === 'user') {
      this.stick = true;
      this.jump.hidden = true;
    }
    for (const c of controls(el)) c.tabIndex = -1;
    this.nodes.set(entry.id, el);
    this.updateEmpty();
    if (scroll) this.follow();
  }

  setBusy(busy: boolean): void {
    this.composer.setBusy(busy);
    this.busy = busy;
    this.showWorking();
    this.follow();
  }

  /** "The agent is working…" only while it can be: offline, a queued message says it waits instead. */
  private showWorking(): void {
    this.working.hidden = !(this.busy && this.connected);
  }

  setChanges(changes: readonly ChangeCard[]): void {
    this.changes.render(changes);
    this.follow();
  }

  focus(): void {
    this.composer.focus();
  }

  setContext(chips: readonly ContextChip[]): void {
    this.composer.setContext(chips);
  }

  setActiveFile(path: string | undefined): void {
    this.composer.setActiveFile(path);
  }

  setCommands(commands: readonly SlashCommand[]): void {
    this.composer.setCommands(commands);
  }

  setSuggestions(requestId: number, items: readonly Suggestion[]): void {
    this.composer.setSuggestions(requestId, items);
  }

  restoreDraft(text: string, replace = false): void {
    this.composer.restoreDraft(text, replace);
  }

  /** Back where the developer was reading before the view was hidden or the window reloaded. */
  restoreScroll(top: number): void {
    this.transcript.scrollTop = top;
    this.stick = this.nearEnd();
    if (!this.stick && this.transcript.scrollHeight > this.transcript.clientHeight) this.jump.hidden = false;
  }

  private scrollSaving = false;

  /** Saved once a frame at most: scrolling fires far more often than that. */
  private saveScroll(): void {
    if (this.scrollSaving) return;
    this.scrollSaving = true;
    requestAnimationFrame(() => {
      this.scrollSaving = false;
      saveState({ scrollTop: this.stick ? undefined : this.transcript.scrollTop });
    });
  }

  /** Arrow keys (and Home/End) inside the transcript: to the next or previous control; Escape back to the transcript. */
  private moveFocus(e: KeyboardEvent): void {
    const all = controls(this.transcript);
    if (e.key === 'Escape' && document.activeElement !== this.transcript && all.includes(document.activeElement as HTMLElement)) {
      e.preventDefault();
      e.stopPropagation();
      this.transcript.focus();
      return;
    }
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key) || !all.length) return;
    e.preventDefault();
    const at = all.indexOf(document.activeElement as HTMLElement);
    const next =
      e.key === 'Home' ? 0 : e.key === 'End' ? all.length - 1 : at < 0 ? (e.key === 'ArrowDown' ? 0 : all.length - 1) : Math.max(0, Math.min(all.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1)));
    all[next].focus();
    all[next].scrollIntoView({ block: 'nearest' });
  }

  private updateEmpty(): void {
    this.emptyState.hidden = this.nodes.size > 0;
  }

  private nearEnd(): boolean {
    const t = this.transcript;
    return t.scrollHeight - t.scrollTop - t.clientHeight < 80;
  }

  /**
   * Follows new output only while the developer is at the bottom; reading further up is not
   * interrupted, and a "Jump to latest" button says there is more below.
   */
  private follow(): void {
    if (this.stick) this.transcript.scrollTop = this.transcript.scrollHeight;
    else if (this.transcript.scrollHeight > this.transcript.clientHeight) this.jump.hidden = false;
  }

  private toLatest(): void {
    this.stick = true;
    this.jump.hidden = true;
    this.transcript.scrollTop = this.transcript.scrollHeight;
  }
}

/**
 * The parts of the transcript a keyboard can act on: tool rows, buttons, links, and code blocks
 * (Chromium makes a scrolling block focusable; it is one more stop for the arrows, not for Tab).
 */
function controls(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>('summary, button, a[href], pre, .tool-output')).filter((el) => !el.closest('[hidden]'));
}
