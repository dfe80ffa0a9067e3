/** One transcript entry as DOM. Every kind of the contract has a case; the switch is exhaustive. */
import type { Entry, Strings } from '../../src/extension/chat/contract';
import type { RenderMarkdown } from '../render/markdown';
import { post } from '../vscodeApi';
import { button, formatMs, h, icon } from './dom';
import { linkFileRefs } from './fileLinks';

export interface EntryContext {
  readonly strings: Strings;
  readonly markdown: RenderMarkdown;
}

export function renderEntry(entry: Entry, ctx: EntryContext): HTMLElement {
  const s = ctx.strings;
  switch (entry.kind) {
    case 'user':
      return h('article', { class: 'entry user', attrs: { 'aria-label': s.you } }, [
        h('div', { class: 'who' }, [
          icon('account'),
          h('span', { text: s.you }),
          // Back into the message box (its full text, from the extension) to change and send again: a new message.
          button({ icon: 'edit', label: s.editMessage, class: 'entry-action edit', onClick: () => post({ type: 'edit', entryId: entry.id }) }),
        ]),
        h('div', { class: 'user-text', text: entry.text }),
        entry.context?.length ? sentContext(entry.context, s) : undefined,
        entry.queued ? h('div', { class: 'queued', attrs: { role: 'status' } }, [icon('clock'), h('span', { text: s.queued })]) : undefined,
      ]);
    case 'thinking':
      return renderThinking(entry, s);
    case 'tool':
      return renderTool(entry, ctx);
    case 'answer': {
      const body = h('div', { class: 'markdown' });
      // The only innerHTML in the webview: the sanitizer's output (render/markdown.ts).
      body.innerHTML = ctx.markdown(entry.markdown);
      addCopyButtons(body, s, entry.done);
      linkFileRefs(body, (p, line) => s.openFileAt.replace('{0}', line ? `${p}:${line}` : p));
      return h('article', { class: `entry answer${entry.done ? '' : ' streaming'}`, attrs: { 'aria-label': s.agent } }, [
        h('div', { class: 'who' }, [icon('hubot'), h('span', { text: s.agent })]),
        body,
      ]);
    }
    case 'error':
      return h('article', { class: 'entry error', attrs: { role: 'alert', 'aria-label': `${s.errorTitle} ${entry.code}` } }, [
        h('div', { class: 'who' }, [icon('error'), h('span', { text: `${s.errorTitle}: ` }), h('code', { text: entry.code })]),
        h('p', { class: 'explanation', text: entry.explanation }),
        entry.message ? h('p', { class: 'detail', text: entry.message }) : undefined,
        button({ icon: 'refresh', label: s.retryMessage, showLabel: true, class: 'retry-message', onClick: (e) => resendBefore(e) }),
      ]);
    case 'notice':
      return h('div', { class: `entry notice ${entry.tone}`, attrs: { role: 'status' } }, [
        icon(entry.tone === 'warning' ? 'warning' : 'info'),
        h('span', { text: entry.text }),
      ]);
  }
}

function renderThinking(entry: Extract<Entry, { kind: 'thinking' }>, s: Strings): HTMLElement {
  const title = [s.thinking, entry.stage, entry.round !== undefined ? `${s.round} ${entry.round}` : undefined].filter(Boolean).join(' · ');
  // A finished step keeps its words, not a bar frozen part-way.
  const bar =
    entry.percent !== undefined && entry.active
      ? h('progress', { class: 'bar', attrs: { max: '100', value: String(entry.percent), 'aria-label': `${title} ${entry.percent}%` } })
      : undefined;
  return h('div', { class: `entry thinking${entry.active ? ' active' : ''}`, attrs: { role: 'status', 'aria-live': 'polite' } }, [
    h('div', { class: 'who' }, [
      icon(entry.active ? 'loading' : 'lightbulb', entry.active ? 'codicon-modifier-spin' : ''),
      h('span', { text: title }),
      entry.percent !== undefined && entry.active ? h('span', { class: 'percent', text: `${entry.percent}%` }) : undefined,
    ]),
    bar,
    entry.text ? h('div', { class: 'thinking-text', text: entry.text }) : undefined,
  ]);
}

const TOOL_ICON = {
  running: ['loading', 'codicon-modifier-spin'],
  succeeded: ['pass', ''],
  failed: ['error', ''],
  // The developer's decision or a withdrawn call: said plainly, not painted as a failure.
  rejected: ['circle-slash', ''],
  cancelled: ['debug-stop', ''],
} as const;

function renderTool(entry: Extract<Entry, { kind: 'tool' }>, ctx: EntryContext): HTMLElement {
  const s = ctx.strings;
  const [name, extra] = TOOL_ICON[entry.status];
  const statusText = s[entry.status];
  // Two lines: what ran and how long; then what it was asked and what it found, one line, cut to fit.
  const sub = [entry.summary, entry.outcome].filter(Boolean).join(' → ');
  const summary = h('summary', { attrs: { 'aria-label': `${s.toolLabel} ${entry.name}: ${statusText}${sub ? `. ${sub}` : ''}` } }, [
    h('span', { class: 'tool-head' }, [
      icon(name, `status ${extra}`),
      h('code', { class: 'tool-name', text: entry.name }),
      h('span', { class: 'tool-time', text: toolTime(entry, statusText, s) }),
    ]),
    sub ? h('span', { class: 'tool-summary', text: entry.summary }, entry.outcome ? [entry.summary ? ' → ' : '', h('span', { class: 'tool-outcome', text: entry.outcome })] : []) : undefined,
  ]);
  const body: HTMLElement[] = [];
  if (entry.error) body.push(h('p', { class: entry.status === 'failed' ? 'tool-error' : 'tool-decision', text: entry.code ? `${entry.code}: ${entry.error}` : entry.error }));
  if (entry.diff) body.push(renderDiff(entry.diff, s));
  if (entry.output) body.push(renderOutput(entry.output, ctx));
  const details = h('details', { class: `entry tool ${entry.status}` }, [summary, ...body]);
  // Nothing to open while it runs; a failure opens by itself, so the reason is seen.
  if (body.length === 0) details.classList.add('empty');
  if (entry.status === 'failed') details.open = true;
  return details;
}

/** The row's right side: the outcome of a decision, or the time of the work (and of the review, when there was one). */
function toolTime(entry: Extract<Entry, { kind: 'tool' }>, statusText: string, s: Strings): string {
  if (entry.status === 'rejected' || entry.status === 'cancelled' || entry.ms === undefined) return statusText;
  const work = formatMs(entry.ms);
  return entry.waitMs !== undefined && entry.waitMs >= 1000 ? `${work} · ${s.reviewed.replace('{0}', formatMs(entry.waitMs))}` : work;
}

/** A landed change as a compact diff: the first lines of its hunks, added and removed lines marked. */
function renderDiff(diff: NonNullable<Extract<Entry, { kind: 'tool' }>['diff']>, s: Strings): HTMLElement {
  const rows = diff.lines.map((line) => {
    const kind = line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
    return h('div', { class: `diff-line ${kind}`, text: line });
  });
  if (diff.more > 0) rows.push(h('div', { class: 'diff-line more', text: s.moreLines.replace('{0}', String(diff.more)) }));
  return h('div', { class: 'tool-diff', attrs: { 'aria-label': `${diff.path} +${diff.added} −${diff.removed}` } }, [
    h('div', { class: 'diff-head' }, [h('code', { text: diff.path }), h('span', { class: 'added', text: `+${diff.added}` }), h('span', { class: 'removed', text: `−${diff.removed}` })]),
    h('div', { class: 'diff-body' }, rows),
  ]);
}

/** A tool's result: the read tools answer Markdown (rendered, sanitized), the edit tools a JSON string (indented). */
function renderOutput(output: string, ctx: EntryContext): HTMLElement {
  const label = { 'aria-label': ctx.strings.output };
  const json = asJson(output);
  if (json !== undefined) return h('pre', { class: 'tool-output', attrs: label, text: json });
  const div = h('div', { class: 'tool-output markdown', attrs: label });
  div.innerHTML = ctx.markdown(output);
  addCopyButtons(div, ctx.strings);
  linkFileRefs(div, (p, line) => ctx.strings.openFileAt.replace('{0}', line ? `${p}:${line}` : p));
  return div;
}

function asJson(text: string): string | undefined {
  if (!/^\s*[[{]/.test(text)) return undefined;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return undefined;
  }
}

/**
 * A copy button on every code block (the extension writes the clipboard: webview clipboard access
 * varies); in the agent's answers also Insert at Cursor and Apply, which the extension carries out
 * in the developer's editor (Apply as a diff to approve, like any change).
 */
function addCopyButtons(root: HTMLElement, s: Strings, editActions = false): void {
  for (const pre of Array.from(root.querySelectorAll('pre'))) {
    const code = pre.textContent ?? '';
    const label = h('span', { text: s.copy });
    const b = h('button', { class: 'btn copy', attrs: { type: 'button', 'aria-label': s.copy, title: s.copy } }, [icon('copy'), label]);
    b.addEventListener('click', () => {
      post({ type: 'copy', text: code });
      label.textContent = s.copied;
      setTimeout(() => (label.textContent = s.copy), 1500);
    });
    const actions = h('div', { class: 'code-actions' }, [b]);
    if (editActions && code.length <= 1_000_000) {
      actions.append(
        button({ icon: 'insert', label: s.insertAtCursor, class: 'insert', onClick: () => post({ type: 'insertCode', text: code }) }),
        button({ icon: 'diff', label: s.applyToFile, class: 'apply', onClick: () => post({ type: 'applyCode', text: code }) }),
      );
    }
    const wrap = h('div', { class: 'code-block' });
    pre.replaceWith(wrap);
    wrap.append(actions, pre);
  }
}

/** What went with a message, as small links that open each file at its first line. */
function sentContext(context: NonNullable<Extract<Entry, { kind: 'user' }>['context']>, s: Strings): HTMLElement {
  return h(
    'div',
    { class: 'sent-context' },
    context.map((c) => {
      const a = h('a', { class: 'file-ref chip', text: c.label, attrs: { href: '#', title: s.openFileAt.replace('{0}', c.startLine ? `${c.path}:${c.startLine}` : c.path) } });
      a.dataset.path = c.path;
      if (c.startLine) a.dataset.line = String(c.startLine);
      return a;
    }),
  );
}

/** Retry on an error: sends again the developer's message that the failed turn answered (the last one above it). */
function resendBefore(e: Event): void {
  const article = (e.currentTarget as HTMLElement).closest('.entry');
  let prev = article?.previousElementSibling;
  while (prev && !prev.classList.contains('user')) prev = prev.previousElementSibling;
  const id = (prev as HTMLElement | null)?.dataset.entryId;
  if (id) post({ type: 'resend', entryId: id });
}
