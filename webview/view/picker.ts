/**
 * The popup list above the message box for `@` mentions and `/` commands. The message box keeps
 * the focus (as in VS Code's own suggest widget): it forwards the arrow keys, Enter, Tab and Escape
 * here, and points at the active option with aria-activedescendant so a screen reader follows.
 */
import { h, icon } from './dom';

export interface PickerItem {
  readonly icon: string;
  readonly label: string;
  readonly detail: string;
}

let counter = 0;

export class Picker<T extends PickerItem> {
  readonly el: HTMLElement;
  private items: readonly T[] = [];
  private active = 0;
  private readonly id = `picker-${++counter}`;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly onPick: (item: T) => void,
  ) {
    this.el = h('div', { class: 'picker', attrs: { role: 'listbox', id: this.id } });
    this.el.hidden = true;
    // A click must not take the focus from the message box before it picks.
    this.el.addEventListener('mousedown', (e) => e.preventDefault());
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** Shows the items (or, with none, `empty` as a line that cannot be picked). */
  show(items: readonly T[], label: string, empty?: string): void {
    this.items = items;
    this.active = 0;
    this.el.setAttribute('aria-label', label);
    this.el.replaceChildren(
      ...items.map((item, i) => {
        const row = h('div', { class: 'picker-item', attrs: { role: 'option', id: `${this.id}-${i}` } }, [
          icon(item.icon),
          h('span', { class: 'picker-label', text: item.label }),
          item.detail ? h('span', { class: 'picker-detail', text: item.detail }) : undefined,
        ]);
        row.addEventListener('click', () => this.onPick(item));
        row.addEventListener('mousemove', () => this.setActive(i));
        return row;
      }),
    );
    if (!items.length && empty) this.el.append(h('div', { class: 'picker-empty', text: empty }));
    const visible = items.length > 0 || empty !== undefined;
    this.el.hidden = !visible;
    this.input.setAttribute('aria-expanded', String(visible));
    this.input.setAttribute('aria-controls', this.id);
    this.setActive(0);
  }

  hide(): void {
    if (this.el.hidden) return;
    this.el.hidden = true;
    this.items = [];
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }

  /** A key the message box got while the list is open: true when the list used it. */
  key(e: KeyboardEvent): boolean {
    if (!this.isOpen) return false;
    switch (e.key) {
      case 'ArrowDown':
      case 'ArrowUp':
        if (!this.items.length) return false;
        this.setActive((this.active + (e.key === 'ArrowDown' ? 1 : -1) + this.items.length) % this.items.length);
        return true;
      case 'Enter':
      case 'Tab': {
        const item = this.items[this.active];
        if (!item || e.shiftKey || e.isComposing) return false;
        this.onPick(item);
        return true;
      }
      case 'Escape':
        this.hide();
        return true;
      default:
        return false;
    }
  }

  private setActive(i: number): void {
    const rows = this.el.querySelectorAll<HTMLElement>('.picker-item');
    rows.forEach((r, j) => r.setAttribute('aria-selected', String(j === i)));
    this.active = i;
    const row = rows[i];
    if (row) {
      this.input.setAttribute('aria-activedescendant', row.id);
      row.scrollIntoView({ block: 'nearest' });
    } else this.input.removeAttribute('aria-activedescendant');
  }
}
