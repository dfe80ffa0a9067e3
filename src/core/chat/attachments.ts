/**
 * What the developer attaches to a chat message: a file, some lines of one, or a symbol's lines.
 * Each is read through the same door as read_file (readProjectText: the access policy, then a
 * bounded, FIFO-safe read; a secret file or one outside the project is refused, naming the path
 * and never its content), at the moment the message is sent, so the agent gets what the developer
 * sees then (an unsaved buffer included). On the wire an attachment travels twice (docs/protocol.md
 * §8.1): as a block in the message text (contextMessage.ts) and structured in `data.context`.
 */
import { t } from '../l10n';
import { readProjectText } from '../policy/projectText';
import { ToolError } from '../protocol/errors';
import type { ContextItem } from '../protocol/messages';
import { splitLines } from '../workspace/text';
import type { Workspace } from '../workspace/workspace';

/** What to attach: a project-relative path and, for part of a file, a 1-based inclusive line range. */
export interface ContextRef {
  readonly path: string;
  readonly startLine?: number;
  readonly endLine?: number;
}

/** At most this many attachments on one message. */
export const MAX_CONTEXT_ITEMS = 20;
/** All the attachments of one message together, in UTF-8 bytes: a whole 20 MB file is not a chat message. */
export const MAX_CONTEXT_BYTES = 256 * 1024;

/**
 * Reads the attachments in order, within MAX_CONTEXT_BYTES in all: one that does not fit whole is
 * cut at a line boundary and marked `truncated`; one that gets no line at all is refused. Throws a
 * ToolError naming the path for anything the policy or the read refuses, and for a range outside the file.
 */
export async function readContext(ws: Workspace, refs: readonly ContextRef[]): Promise<ContextItem[]> {
  if (refs.length > MAX_CONTEXT_ITEMS) throw new ToolError('BAD_REQUEST', t('At most {0} attachments can go with one message.', MAX_CONTEXT_ITEMS));
  let budget = MAX_CONTEXT_BYTES;
  const items: ContextItem[] = [];
  for (const ref of refs) {
    const read = await readProjectText(ws, ref.path);
    // Lines as the editor counts them (a lone CR breaks a line too), so a range is what was selected.
    const lines = splitLines(read.text);
    if (!lines.length) lines.push(''); // an empty file is one empty line, as the editor shows it
    const start = ref.startLine ?? 1;
    const end = Math.min(ref.endLine ?? lines.length, lines.length);
    if (!Number.isInteger(start) || start < 1 || start > Math.max(1, lines.length) || end < start) {
      throw new ToolError('BAD_REQUEST', t('{0} has {1} lines; lines {2}-{3} are not in it.', read.path.rel, lines.length, start, ref.endLine ?? start));
    }
    let taken = 0;
    let bytes = 0;
    for (let i = start - 1; i < end; i++) {
      const size = Buffer.byteLength(lines[i], 'utf8') + 1;
      if (bytes + size > budget) break;
      bytes += size;
      taken++;
    }
    if (taken === 0) throw new ToolError('BAD_REQUEST', t('{0} does not fit in what one message may carry ({1} KB of attachments); attach fewer or smaller parts.', read.path.rel, MAX_CONTEXT_BYTES / 1024));
    budget -= bytes;
    const last = start + taken - 1;
    items.push({ path: read.path.rel, startLine: start, endLine: last, text: lines.slice(start - 1, last).join('\n'), ...(last < end ? { truncated: true } : {}) });
  }
  return items;
}
