/** The always-visible connection line: state, Retry while not connected, and New Session. */
import type { ConnectionView, Strings } from '../../src/extension/chat/contract';
import { post } from '../vscodeApi';
import { button, h, icon } from './dom';

const LOOK = {
  connected: { icon: 'pass-filled', key: 'connected' },
  connecting: { icon: 'loading', key: 'connecting' },
  reconnecting: { icon: 'loading', key: 'connecting' },
  disconnected: { icon: 'debug-disconnect', key: 'offline' },
} as const;

export class Header {
  readonly el = h('header', { class: 'header' });

  /** `docked`: the side bar's title bar has New Session, so the header does not repeat it. */
  constructor(
    private readonly s: Strings,
    private readonly docked: boolean,
  ) {}

  /** Ticks the "Retrying in N s" countdown while a reconnect is scheduled. */
  private timer: ReturnType<typeof setInterval> | undefined;

  render(c: ConnectionView): void {
    clearInterval(this.timer);
    this.timer = undefined;
    const look = LOOK[c.state];
    const spin = look.icon === 'loading' ? 'codicon-modifier-spin' : '';
    const label = this.s[look.key];
    const countdown = h('span', { class: 'countdown' });
    const status = h('div', { class: `conn ${c.state}`, attrs: { role: 'status', 'aria-live': 'polite', 'aria-label': label, title: c.detail ?? label } }, [
      icon(look.icon, spin),
      h('span', { class: 'conn-label', text: label }),
      c.retryAt !== undefined ? countdown : undefined,
      c.detail && c.state !== 'connected' ? h('span', { class: 'conn-detail', text: c.detail }) : undefined,
    ]);
    if (c.retryAt !== undefined) {
      const retryAt = c.retryAt;
      const tick = () => {
        const s = Math.ceil((retryAt - Date.now()) / 1000);
        countdown.textContent = s > 0 ? `· ${this.s.retryIn.replace('{0}', String(s))}` : '';
        if (s <= 0) clearInterval(this.timer);
      };
      tick();
      this.timer = setInterval(tick, 1000);
    }
    const actions = h('div', { class: 'actions' }, [
      c.state === 'disconnected' || c.state === 'reconnecting'
        ? button({ icon: 'refresh', label: this.s.retry, showLabel: true, class: 'retry', onClick: () => post({ type: 'retry' }) })
        : undefined,
      this.docked ? undefined : button({ icon: 'add', label: this.s.newSession, class: 'new-session', onClick: () => post({ type: 'newSession' }) }),
    ]);
    // Not connected: what is wrong and what to do, with the setting one click away.
    const hint =
      c.hint && c.state !== 'connected'
        ? h('div', { class: 'conn-hint' }, [
            h('span', { text: c.hint }),
            button({ icon: 'settings-gear', label: this.s.openSettings, showLabel: true, class: 'open-settings', onClick: () => post({ type: 'openSettings' }) }),
          ])
        : undefined;
    this.el.replaceChildren(status, actions, ...(hint ? [hint] : []));
  }
}
