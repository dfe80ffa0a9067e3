/** The notice under the header in an untrusted workspace: the agent reads and searches, never writes. */
import type { Strings } from '../../src/extension/chat/contract';
import { post } from '../vscodeApi';
import { button, h, icon } from './dom';

export function readOnlyNotice(s: Strings): HTMLElement {
  return h('section', { class: 'read-only', attrs: { role: 'note', 'aria-label': s.readOnlyTitle, hidden: '' } }, [
    icon('shield'),
    h('div', { class: 'read-only-body' }, [h('strong', { text: s.readOnlyTitle }), h('p', { text: s.readOnlyText })]),
    button({ icon: 'workspace-trusted', label: s.manageTrust, showLabel: true, class: 'manage-trust', onClick: () => post({ type: 'manageTrust' }) }),
  ]);
}
