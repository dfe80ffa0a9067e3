/** Approval cards: one per change waiting in the ChangeQueue, with Open Diff / Approve / Reject. */
import type { ChangeCard, Strings } from '../../src/extension/chat/contract';
import { post } from '../vscodeApi';
import { button, h, icon } from './dom';

export class Changes {
  readonly el = h('section', { class: 'changes', attrs: { 'aria-live': 'polite' } });

  constructor(private readonly s: Strings) {
    this.el.setAttribute('aria-label', s.pendingChanges);
  }

  render(changes: readonly ChangeCard[]): void {
    this.el.hidden = changes.length === 0;
    if (changes.length === 0) return void this.el.replaceChildren();
    this.el.replaceChildren(h('h2', { text: `${this.s.pendingChanges} (${changes.length})` }), ...changes.map((c) => this.card(c)));
  }

  private card(c: ChangeCard): HTMLElement {
    const s = this.s;
    if (c.consent) return this.consentCard(c);
    return h('article', { class: 'card', attrs: { 'aria-label': `${c.relativePath}: ${c.description ?? c.toolName}`, 'data-change-id': c.id } }, [
      h('div', { class: 'card-title' }, [
        icon(c.created ? 'new-file' : 'diff'),
        pathLabel(c.relativePath),
        c.created ? h('span', { class: 'badge', text: s.created }) : undefined,
        h('span', { class: 'added', text: `+${c.added}`, attrs: { 'aria-label': `${c.added} added` } }),
        h('span', { class: 'removed', text: `−${c.removed}`, attrs: { 'aria-label': `${c.removed} removed` } }),
      ]),
      c.description ? h('p', { class: 'card-desc', text: c.description }) : undefined,
      c.late ? h('p', { class: 'card-late', text: s.late }) : undefined,
      h('div', { class: 'card-actions' }, [
        button({ icon: 'diff', label: s.openDiff, showLabel: true, class: 'open-diff', onClick: () => post({ type: 'openDiff', id: c.id }) }),
        button({ icon: 'check', label: s.approve, showLabel: true, class: 'primary approve', onClick: () => post({ type: 'approve', id: c.id }) }),
        button({ icon: 'close', label: s.reject, showLabel: true, class: 'reject', onClick: () => post({ type: 'reject', id: c.id }) }),
      ]),
    ]);
  }

  /** A question before a secret file is read: there is no diff yet, only Allow and Refuse. */
  private consentCard(c: ChangeCard): HTMLElement {
    const s = this.s;
    return h('article', { class: 'card consent', attrs: { 'aria-label': `${c.relativePath}: ${s.consent}`, 'data-change-id': c.id } }, [
      h('div', { class: 'card-title' }, [icon('key'), pathLabel(c.relativePath)]),
      h('p', { class: 'card-desc', text: s.consent }),
      c.description ? h('p', { class: 'card-desc', text: c.description }) : undefined,
      h('div', { class: 'card-actions' }, [
        button({ icon: 'check', label: s.allow, showLabel: true, class: 'primary approve', onClick: () => post({ type: 'approve', id: c.id }) }),
        button({ icon: 'close', label: s.refuse, showLabel: true, class: 'reject', onClick: () => post({ type: 'reject', id: c.id }) }),
      ]),
    ]);
  }
}

/** A path as `folders/…/name`: the folders are cut (by the style) before the file name is. */
function pathLabel(rel: string): HTMLElement {
  const slash = rel.lastIndexOf('/');
  const dir = slash >= 0 ? rel.slice(0, slash + 1) : '';
  return h('span', { class: 'path', attrs: { title: rel } }, [dir ? h('span', { class: 'dir', text: dir }) : undefined, h('span', { class: 'name', text: rel.slice(slash + 1) })]);
}
