/** Attachments in the message text (docs/protocol.md §8.1), so a backend that knows nothing of attachments still gets them; reading them is attachments.ts. */
import { fenceFor, languageOf } from '../workspace/text';
import type { ContextItem } from '../protocol/messages';

/** `path` or `path:10-20` (a single line: `path:10`), as the chat and the message show an attachment. */
export function contextLabel(item: Pick<ContextItem, 'path' | 'startLine' | 'endLine'>, wholeFile = false): string {
  if (wholeFile) return item.path;
  return item.startLine === item.endLine ? `${item.path}:${item.startLine}` : `${item.path}:${item.startLine}-${item.endLine}`;
}

/**
 * The message as the backend reads it: the developer's text, then each attachment as a fenced
 * block under its `path:start-end` label (in English: it is for the agent, not for the developer).
 */
export function messageWithContext(message: string, items: readonly ContextItem[]): string {
  if (!items.length) return message;
  const blocks = items.map((item) => {
    const f = fenceFor(item.text);
    const cut = item.truncated ? ' (truncated)' : '';
    return `${contextLabel(item)}${cut}\n${f}${languageOf(item.path)}\n${item.text}\n${f}`;
  });
  return `${message}\n\nAttached by the developer:\n\n${blocks.join('\n\n')}`;
}
