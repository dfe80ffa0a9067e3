/**
 * The attachments of the next message, as removable chips above the message box, and the active
 * editor's file offered as one more (dashed) chip that attaches it in one click.
 */
import type { ContextChip, Strings } from '../../src/extension/chat/contract';
import { post } from '../vscodeApi';
import { h, icon } from './dom';

const ICONS: Record<ContextChip['kind'], string> = { file: 'file', selection: 'list-selection', symbol: 'symbol-class' };

export class Chips {
  readonly el: HTMLElement;
  private chips: readonly ContextChip[] = [];
  private activeFile: string | undefined;

  constructor(private readonly s: Strings) {
    this.el = h('div', { class: 'chips', attrs: { role: 'list', 'aria-label': s.attachmentsLabel } });
    this.render();
  }

  setChips(chips: readonly ContextChip[]): void {
    this.chips = chips;
    this.render();
  }

  setActiveFile(path: string | undefined): void {
    this.activeFile = path;
    this.render();
  }

  /** Removes the last chip (Backspace in an empty message box). */
  removeLast(): boolean {
    const last = this.chips.at(-1);
    if (!last) return false;
    post({ type: 'detach', id: last.id });
    return true;
  }

  private render(): void {
    const rows: HTMLElement[] = this.chips.map((c) => {
      const remove = h('button', { class: 'chip-remove', attrs: { type: 'button', 'aria-label': this.s.removeAttachment.replace('{0}', c.label), title: this.s.removeAttachment.replace('{0}', c.label) } }, [icon('close')]);
      remove.addEventListener('click', () => post({ type: 'detach', id: c.id }));
      return h('span', { class: 'chip', attrs: { role: 'listitem', title: c.startLine ? `${c.path}:${c.startLine}-${c.endLine ?? c.startLine}` : c.path } }, [icon(ICONS[c.kind]), h('span', { class: 'chip-label', text: c.label }), remove]);
    });
    const file = this.activeFile;
    if (file && !this.chips.some((c) => c.path === file && !c.startLine)) {
      const name = file.slice(file.lastIndexOf('/') + 1);
      const label = this.s.addCurrentFile.replace('{0}', name);
      const add = h('button', { class: 'chip suggested', attrs: { type: 'button', title: file, 'aria-label': label } }, [icon('add'), h('span', { class: 'chip-label', text: name })]);
      add.addEventListener('click', () => post({ type: 'attach', kind: 'file', path: file }));
      rows.push(h('span', { attrs: { role: 'listitem' } }, [add]));
    }
    this.el.replaceChildren(...rows);
    this.el.hidden = rows.length === 0;
  }
}
