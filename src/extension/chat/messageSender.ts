import type { ChatAttachments } from './attachments';
import { showRefusal } from './attachments';
import type { ToWebview } from './contract';
import type { Conversation } from './conversation';
import type { Transcript } from './transcript';

/** How many sent messages keep their full text for Retry and Edit. */
const REMEMBERED = 20;

/**
 * The developer's messages on their way to the conversation: one at a time, with the attachments
 * read when it goes, and Retry and Edit with the full text (the stored transcript cuts long ones).
 */
export class MessageSender {
  /** A message is being sent (its attachments read): a second one waits in the box. */
  private sending = false;
  /** Full texts of recent messages by entry id. */
  private readonly sentTexts = new Map<string, string>();

  constructor(
    private readonly conversation: Conversation,
    private readonly transcript: Transcript,
    private readonly attachments: ChatAttachments,
    private readonly post: (message: ToWebview) => void,
  ) {}

  /** Sends the message with its attachments, read now; if one cannot be read, nothing goes and the text returns to the box. */
  send(text: string): void {
    if (this.conversation.busy || this.sending) {
      // One message at a time: this one goes back into the box (the conversation says why it waits).
      if (this.conversation.busy) this.conversation.send(text);
      this.post({ type: 'draft', text });
      return;
    }
    this.sending = true;
    this.attachments
      .take()
      .then(
        ({ items, labels }) => {
          this.remember(this.conversation.send(text, items, labels), text);
        },
        (e: unknown) => {
          showRefusal(e instanceof Error ? e.message : String(e));
          this.post({ type: 'draft', text });
        },
      )
      .finally(() => (this.sending = false));
  }

  /** Retry: the developer's earlier message again, with its attachments as the files read now. */
  resend(entryId: string): void {
    const e = this.transcript.get(entryId);
    if (e?.kind !== 'user') return;
    const labels = e.context ?? [];
    const text = this.sentTexts.get(entryId) ?? e.text;
    this.attachments.reread(labels).then(
      (items) => this.remember(this.conversation.send(text, items, labels), text),
      (err: unknown) => showRefusal(err instanceof Error ? err.message : String(err)),
    );
  }

  /** Edit: the earlier message back in the box, whole. */
  edit(entryId: string): void {
    const e = this.transcript.get(entryId);
    if (e?.kind === 'user') this.post({ type: 'draft', text: this.sentTexts.get(e.id) ?? e.text, replace: true });
  }

  private remember(sent: boolean, text: string): void {
    const entry = sent ? [...this.transcript.entries].reverse().find((e) => e.kind === 'user') : undefined;
    if (!entry) return;
    this.sentTexts.set(entry.id, text);
    while (this.sentTexts.size > REMEMBERED) this.sentTexts.delete(this.sentTexts.keys().next().value as string);
  }
}
