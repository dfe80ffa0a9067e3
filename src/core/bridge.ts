import type { BridgeConnection } from './connection';
import type { Dispatcher } from './dispatcher';
import type { Logger } from './log';
import { MAX_MESSAGE_BYTES, type ToolResultMessage } from './protocol/messages';

export interface BridgeOptions {
  /** Results finished while the link is down are kept this long, at most `outboxLimit` of them. */
  readonly outboxTtlMs?: number;
  readonly outboxLimit?: number;
  readonly log: Logger;
}

/** Cuts a result that would exceed the 10 MB message limit, saying so in the result itself. */
export function fitToMessageLimit(message: ToolResultMessage, limit = MAX_MESSAGE_BYTES): ToolResultMessage {
  const size = Buffer.byteLength(JSON.stringify(message));
  if (size <= limit) return message;
  const note = `\n\n[Result cut: it was ${size} bytes, over the ${limit}-byte message limit. Narrow the request to see the rest.]`;
  const { structured: _dropped, ...data } = message.data;
  const text = data.result ?? '';
  // Keep as much text as fits beside the envelope; JSON escaping can grow text, so leave a margin.
  const room = Math.max(0, limit - 4096 - Buffer.byteLength(JSON.stringify({ ...data, result: '' })));
  let cut = text.slice(0, Math.floor(room / 2));
  while (Buffer.byteLength(JSON.stringify(cut)) > room && cut.length > 0) cut = cut.slice(0, Math.floor(cut.length * 0.9));
  return { type: 'TOOL_RESULT', data: { ...data, result: cut + note } };
}

/**
 * Joins the link and the dispatcher: every TOOL_CALL that arrives is run and answered exactly once.
 * An answer that cannot be sent because the link is down waits in a small outbox and goes out,
 * oldest first, when the link is back.
 */
export class Bridge {
  private readonly outbox: { message: ToolResultMessage; expires: number }[] = [];
  private readonly disposers: (() => void)[] = [];

  constructor(
    private readonly connection: BridgeConnection,
    private readonly dispatcher: Dispatcher,
    private readonly options: BridgeOptions,
  ) {
    this.disposers.push(
      connection.onMessage((message) => {
        if (message.type === 'TOOL_CALL') void this.answer(this.dispatcher.dispatch(message.call));
      }),
      connection.onRejected((outcome) => {
        if (outcome.ok === 'ignored') {
          options.log.debug(`ignored message of type ${outcome.type}`);
          return;
        }
        options.log.warn(`rejected a message: ${outcome.error}`);
        if (outcome.reply) this.deliver(outcome.reply);
      }),
      connection.onState((state) => {
        if (state === 'connected') this.flush();
      }),
    );
  }

  /** How many answers are waiting for the link. */
  get pending(): number {
    return this.outbox.length;
  }

  dispose(): void {
    for (const d of this.disposers) d();
  }

  private async answer(result: Promise<ToolResultMessage>): Promise<void> {
    this.deliver(fitToMessageLimit(await result));
  }

  private deliver(message: ToolResultMessage): void {
    if (this.connection.send(message)) return;
    const limit = this.options.outboxLimit ?? 100;
    this.outbox.push({ message, expires: Date.now() + (this.options.outboxTtlMs ?? 60_000) });
    if (this.outbox.length > limit) {
      const dropped = this.outbox.shift();
      this.options.log.warn(`outbox full: dropped the answer to ${dropped?.message.data.toolCallId}`);
    }
  }

  private flush(): void {
    const now = Date.now();
    while (this.outbox.length) {
      const next = this.outbox[0];
      if (next.expires < now) {
        this.options.log.warn(`answer to ${next.message.data.toolCallId} expired while the link was down`);
        this.outbox.shift();
        continue;
      }
      if (!this.connection.send(next.message)) return;
      this.outbox.shift();
    }
  }
}
