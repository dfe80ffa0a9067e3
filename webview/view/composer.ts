/**
 * The message box: Enter sends, Shift+Enter is a new line, Escape closes a list and nothing else
 * (stopping, which may withdraw waiting changes, is the Stop button's alone).
 * Above it, the attachments as chips; `@` opens a list of the folder's files and the code index's
 * symbols (answered by the extension), `/` at the start a list of the backend's commands.
 */
import type { ContextChip, SlashCommand, Strings, Suggestion } from '../../src/extension/chat/contract';
import { post, saveState } from '../vscodeApi';
import { Chips } from './chips';
import { button, h } from './dom';
import { Picker, type PickerItem } from './picker';

type Mention = PickerItem & { readonly suggestion: Suggestion };
type Command = PickerItem & { readonly command: SlashCommand };

/** The `@word` or leading `/word` the caret is in, if any. */
interface Token {
  readonly kind: '@' | '/';
  readonly query: string;
  readonly start: number;
  readonly end: number;
}

const SUGGEST_DELAY_MS = 60;

export class Composer {
  readonly el: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly chips: Chips;
  private readonly mentions: Picker<Mention>;
  private readonly slash: Picker<Command>;
  private busy = false;
  private commands: readonly SlashCommand[] = [];
  private token: Token | undefined;
  private requestId = 0;
  private suggestTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly s: Strings) {
    this.input = h('textarea', {
      class: 'input',
      attrs: { rows: '3', placeholder: s.placeholder, 'aria-label': s.inputLabel, 'aria-autocomplete': 'list', 'aria-expanded': 'false', role: 'combobox' },
    });
    this.sendButton = button({ icon: 'send', label: s.send, class: 'primary send', onClick: () => this.send() });
    this.stopButton = button({ icon: 'debug-stop', label: s.stop, showLabel: true, class: 'stop', onClick: () => post({ type: 'stop' }) });
    this.chips = new Chips(s);
    this.mentions = new Picker<Mention>(this.input, (m) => this.pickMention(m));
    this.slash = new Picker<Command>(this.input, (c) => this.pickCommand(c));
    const field = h('div', { class: 'input-wrap' }, [this.mentions.el, this.slash.el, this.input]);
    this.el = h('form', { class: 'composer', attrs: { 'aria-label': s.inputLabel } }, [this.chips.el, field, h('div', { class: 'composer-buttons' }, [this.stopButton, this.sendButton])]);
    this.el.addEventListener('submit', (e) => e.preventDefault());
    this.input.addEventListener('keydown', (e) => this.onKey(e));
    this.input.addEventListener('input', () => {
      this.update();
      this.saveDraft();
    });
    this.input.addEventListener('click', () => this.update());
    this.input.addEventListener('blur', () => this.close());
    this.setBusy(false);
  }

  setBusy(busy: boolean): void {
    this.busy = busy;
    this.sendButton.disabled = busy;
    this.stopButton.hidden = !busy;
    this.el.classList.toggle('busy', busy);
  }

  setContext(chips: readonly ContextChip[]): void {
    this.chips.setChips(chips);
    saveState({ chips: chips.map((c) => ({ kind: c.kind, path: c.path, label: c.label, ...(c.startLine ? { startLine: c.startLine, endLine: c.endLine } : {}) })) });
  }

  setActiveFile(path: string | undefined): void {
    this.chips.setActiveFile(path);
  }

  setCommands(commands: readonly SlashCommand[]): void {
    this.commands = commands;
  }

  /** The `@` completions the extension found for request `requestId` (older answers are dropped). */
  setSuggestions(requestId: number, items: readonly Suggestion[]): void {
    if (requestId !== this.requestId || this.token?.kind !== '@') return;
    this.mentions.show(
      items.map((suggestion) => ({ suggestion, icon: suggestion.kind === 'file' ? 'file' : 'symbol-method', label: suggestion.label, detail: suggestion.detail })),
      this.s.mentionsLabel,
      this.s.noMatches,
    );
  }

  /** A message that could not go comes back, unless the developer already typed a new one; one to edit replaces the box. */
  restoreDraft(text: string, replace = false): void {
    if (!replace && this.input.value.trim()) return;
    this.input.value = text;
    this.saveDraft();
    this.focus();
    this.input.setSelectionRange(text.length, text.length);
  }

  private saveDraft(): void {
    saveState({ draft: this.input.value || undefined });
  }

  focus(): void {
    this.input.focus();
  }

  private onKey(e: KeyboardEvent): void {
    // `/help` typed out in full: Enter sends it, as it would without the list.
    if (e.key === 'Enter' && this.slash.isOpen && this.token?.kind === '/' && this.commands.some((c) => c.name === this.token?.query)) this.close();
    const picker = this.mentions.isOpen ? this.mentions : this.slash.isOpen ? this.slash : undefined;
    if (picker?.key(e)) {
      e.preventDefault();
      e.stopPropagation();
      return;
    }
    // isComposing: Enter that confirms an IME candidate (Chinese input) must not send.
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.send();
    } else if (e.key === 'Backspace' && this.input.value === '' && this.chips.removeLast()) {
      e.preventDefault();
    }
  }

  /** What the caret is in: `@query` after a space or at the start, or `/query` as the whole message so far. */
  private current(): Token | undefined {
    const caret = this.input.selectionStart ?? this.input.value.length;
    if (caret !== (this.input.selectionEnd ?? caret)) return undefined;
    const before = this.input.value.slice(0, caret);
    const at = /(?:^|\s)@([^\s@]{0,100})$/.exec(before);
    if (at) return { kind: '@', query: at[1], start: caret - at[1].length - 1, end: caret };
    const slash = /^\/([\w-]{0,64})$/.exec(before);
    if (slash && this.commands.length) return { kind: '/', query: slash[1], start: 0, end: caret };
    return undefined;
  }

  private update(): void {
    const token = this.current();
    const same = token && this.token && token.kind === this.token.kind && token.query === this.token.query;
    this.token = token;
    if (same) return;
    clearTimeout(this.suggestTimer);
    if (token?.kind !== '@') this.mentions.hide();
    if (token?.kind !== '/') this.slash.hide();
    if (token?.kind === '@') {
      const requestId = ++this.requestId;
      this.suggestTimer = setTimeout(() => post({ type: 'suggest', requestId, query: token.query }), SUGGEST_DELAY_MS);
    } else if (token?.kind === '/') {
      const q = token.query.toLowerCase();
      // Commands that start with what was typed; only when none does, those that contain it.
      const starts = this.commands.filter((c) => c.name.toLowerCase().startsWith(q));
      const matches = starts.length ? starts : this.commands.filter((c) => c.name.toLowerCase().includes(q));
      this.slash.show(
        // Descriptions are the backend's Markdown-ish text: shown plain, without its backticks.
        matches.map((command) => ({ command, icon: 'terminal', label: `/${command.name}`, detail: command.description.replace(/`/g, '') })),
        this.s.commandsLabel,
      );
      if (!matches.length) this.slash.hide();
    }
  }

  private pickMention(m: Mention): void {
    const t = this.token;
    if (t) this.replace(t, '');
    const s = m.suggestion;
    post({ type: 'attach', kind: s.kind === 'file' ? 'file' : 'symbol', path: s.path, label: s.label, ...(s.startLine ? { startLine: s.startLine, endLine: s.endLine ?? s.startLine } : {}) });
    this.close();
  }

  private pickCommand(c: Command): void {
    const t = this.token;
    if (t) this.replace(t, `/${c.command.name} `);
    this.close();
  }

  /** Puts `text` where the token was and the caret after it. */
  private replace(t: Token, text: string): void {
    const v = this.input.value;
    this.input.value = v.slice(0, t.start) + text + v.slice(t.end);
    this.saveDraft();
    const caret = t.start + text.length;
    this.input.setSelectionRange(caret, caret);
    this.input.focus();
  }

  private close(): void {
    clearTimeout(this.suggestTimer);
    this.token = undefined;
    this.mentions.hide();
    this.slash.hide();
  }

  private send(): void {
    const text = this.input.value.trim();
    if (!text || this.busy) return;
    post({ type: 'send', text });
    this.input.value = '';
    this.saveDraft();
    this.close();
  }
}
