/** The message box: Enter sends, Shift+Enter is a new line, Escape (anywhere) stops the wait. */
import type { Strings } from '../../src/extension/chat/contract';
import { post } from '../vscodeApi';
import { button, h } from './dom';

export class Composer {
  readonly el: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private busy = false;

  constructor(s: Strings) {
    this.input = h('textarea', { class: 'input', attrs: { rows: '3', placeholder: s.placeholder, 'aria-label': s.inputLabel } });
    this.sendButton = button({ icon: 'send', label: s.send, class: 'primary send', onClick: () => this.send() });
    this.stopButton = button({ icon: 'debug-stop', label: s.stop, showLabel: true, class: 'stop', onClick: () => post({ type: 'stop' }) });
    this.el = h('form', { class: 'composer', attrs: { 'aria-label': s.inputLabel } }, [this.input, h('div', { class: 'composer-buttons' }, [this.stopButton, this.sendButton])]);
    this.el.addEventListener('submit', (e) => e.preventDefault());
    this.input.addEventListener('keydown', (e) => {
      // isComposing: Enter that confirms an IME candidate (Chinese input) must not send.
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.send();
      }
    });
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.busy) {
        e.preventDefault();
        post({ type: 'stop' });
      }
    });
    this.setBusy(false);
  }

  setBusy(busy: boolean): void {
    this.busy = busy;
    this.sendButton.disabled = busy;
    this.stopButton.hidden = !busy;
    this.el.classList.toggle('busy', busy);
  }

  focus(): void {
    this.input.focus();
  }

  private send(): void {
    const text = this.input.value.trim();
    if (!text || this.busy) return;
    post({ type: 'send', text });
    this.input.value = '';
  }
}
