/** Building elements without innerHTML: text goes in as text, so nothing a backend sends becomes markup here. */

type Child = Node | string | undefined | false;

export interface Props {
  class?: string;
  text?: string;
  attrs?: Record<string, string>;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, children: Child[] = []): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  if (props.text !== undefined) el.textContent = props.text;
  for (const [k, v] of Object.entries(props.attrs ?? {})) el.setAttribute(k, v);
  for (const c of children) {
    if (c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return el;
}

/** A codicon (from @vscode/codicons' font), hidden from screen readers: the label says it in words. */
export function icon(name: string, extra = ''): HTMLElement {
  return h('span', { class: `codicon codicon-${name}${extra ? ` ${extra}` : ''}`, attrs: { 'aria-hidden': 'true' } });
}

/** A button with an icon and a visible or only-accessible label. */
export function button(opts: { icon: string; label: string; showLabel?: boolean; class?: string; onClick: (e: MouseEvent) => void }): HTMLButtonElement {
  const b = h('button', { class: `btn ${opts.class ?? ''}`.trim(), attrs: { type: 'button', 'aria-label': opts.label, title: opts.label } }, [
    icon(opts.icon),
    opts.showLabel ? h('span', { text: opts.label }) : undefined,
  ]);
  b.addEventListener('click', opts.onClick);
  return b;
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
