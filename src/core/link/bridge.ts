import type { BridgeConnection } from './connection';
import type { Dispatcher } from './dispatcher';
import type { Logger } from '../log';
import { t } from '../l10n';
import { MAX_MESSAGE_BYTES, toolFailure, type ToolCall, type ToolResultMessage } from '../protocol/messages';

/** Told of every call the bridge answered, with the answer as it was produced (before any cut to fit a frame). */
export type AnswerListener = (call: ToolCall, result: ToolResultMessage) => void;

export interface BridgeOptions {
  /**
   * Results finished while the link is down are kept this long (read when each is kept, so a
   * changed setting applies to the next one), at most `outboxLimit` of them. Default 60 s.
   */
  readonly outboxTtlMs?: number | (() => number);
  readonly outboxLimit?: number;
  /**
   * An outbox that outlives this bridge: the extension keeps one per session, so answers that
   * finish after a teardown (calls cancelled by a disconnect) go out after the next connect.
   */
  readonly outbox?: Outbox;
  readonly log: Logger;
}

/** 60 s: the default of `agentBridge.resultRetentionSeconds` and of the host's `--result-retention`. */
export const DEFAULT_OUTBOX_TTL_MS = 60_000;
const DEFAULT_OUTBOX_LIMIT = 100;
/** What the waiting answers may hold together (a read answer alone can be up to the 10 MB message limit). */
export const DEFAULT_OUTBOX_BYTES = 64 * 1024 * 1024;

/**
 * Answers waiting for the link, oldest first: bounded in count and in bytes (the oldest are
 * dropped first) and in age (an answer older than the TTL is dropped when the link is back, or when
 * a newer one is kept). Every drop is logged, naming the call.
 */
export class Outbox {
  private readonly items: { message: ToolResultMessage; expires: number; bytes: number }[] = [];
  private readonly ttl: () => number;
  private readonly limit: number;
  private heldBytes = 0;

  constructor(
    private readonly log: Logger,
    ttlMs: number | (() => number) = DEFAULT_OUTBOX_TTL_MS,
    limit = DEFAULT_OUTBOX_LIMIT,
    /** For tests: the clock. */
    private readonly now: () => number = Date.now,
    private readonly maxBytes = DEFAULT_OUTBOX_BYTES,
  ) {
    this.ttl = typeof ttlMs === 'function' ? ttlMs : () => ttlMs;
    this.limit = Math.max(0, Math.floor(limit));
  }

  get size(): number {
    return this.items.length;
  }

  /** Keeps an answer for later (not at all when the TTL is 0, or when it alone is over the byte bound). */
  put(message: ToolResultMessage): void {
    const ttl = this.ttl();
    const id = message.data.toolCallId;
    if (!(ttl > 0) || this.limit === 0) {
      this.log.warn(`link down: the answer to ${id} was dropped (result retention is 0)`);
      return;
    }
    // Its size as sent (a UTF-16 code unit per character is what it holds here, within a factor of two).
    const bytes = JSON.stringify(message).length;
    if (bytes > this.maxBytes) {
      this.log.warn(`link down: the answer to ${id} was dropped (${bytes} bytes, over the outbox's ${this.describeBound()})`);
      return;
    }
    this.prune();
    this.items.push({ message, expires: this.now() + ttl, bytes });
    this.heldBytes += bytes;
    while (this.items.length > this.limit) this.dropOldest(`outbox full (${this.limit})`);
    while (this.heldBytes > this.maxBytes) this.dropOldest(`outbox over ${this.describeBound()}`);
    this.log.info(`link down: the answer to ${id} waits in the outbox (${this.items.length} waiting)`);
  }

  private dropOldest(why: string): void {
    const dropped = this.items.shift();
    if (!dropped) return;
    this.heldBytes -= dropped.bytes;
    this.log.warn(`${why}: dropped the answer to ${dropped.message.data.toolCallId}`);
  }

  private describeBound(): string {
    return this.maxBytes % (1024 * 1024) === 0 ? `${this.maxBytes / (1024 * 1024)} MB` : `${this.maxBytes} bytes`;
  }

  /** Sends what has not expired, oldest first, while `send` succeeds; returns how many went out. */
  flush(send: (message: ToolResultMessage) => boolean): number {
    this.prune();
    let sent = 0;
    while (this.items.length) {
      const next = this.items[0];
      if (!send(next.message)) break;
      this.items.shift();
      this.heldBytes -= next.bytes;
      sent++;
    }
    if (sent > 0) this.log.info(`delivered ${sent} answer(s) kept while the link was down`);
    return sent;
  }

  /** Drops everything (a new session: the old one's answers mean nothing to it), logging each. */
  clear(why: string): void {
    this.heldBytes = 0;
    for (const item of this.items.splice(0)) this.log.warn(`dropped the answer to ${item.message.data.toolCallId}: ${why}`);
  }

  private prune(): void {
    const now = this.now();
    for (let i = 0; i < this.items.length; ) {
      const item = this.items[i];
      if (item.expires <= now) {
        this.items.splice(i, 1);
        this.heldBytes -= item.bytes;
        this.log.warn(`the answer to ${item.message.data.toolCallId} expired after waiting ${Math.round(this.ttl() / 1000)} s for the link; dropped`);
      } else i++;
    }
  }
}

/**
 * The edit tools answer with a JSON document in `result` (docs/protocol.md §5.8–§5.10): cut as text it would
 * no longer parse. Such a result keeps its small fields and has each long string or list replaced
 * by a note of its size, plus `truncated: true`. Undefined when `text` is not a JSON object.
 */
function shrinkJsonResult(text: string, room: number): string | undefined {
  if (!text.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const size = JSON.stringify(v)?.length ?? 0;
    out[key] = size <= 1024 ? v : `[omitted: ${size} characters, over the message limit]`;
  }
  out.truncated = true;
  const shrunk = JSON.stringify(out);
  return shrunk.length * 3 <= room ? shrunk : JSON.stringify({ truncated: true, note: 'The answer was over the message limit.' });
}

/** Cuts a result that would exceed the 10 MB message limit, saying so in the result itself. */
export function fitToMessageLimit(message: ToolResultMessage, limit = MAX_MESSAGE_BYTES, knownSize?: number): ToolResultMessage {
  // The caller has usually serialized it already: a second pass over megabytes holds the event loop.
  const size = knownSize ?? Buffer.byteLength(JSON.stringify(message));
  if (size <= limit) return message;
  const note = `\n\n[Result cut: it was ${size} bytes, over the ${limit}-byte message limit. Narrow the request to see the rest.]`;
  const { structured: _dropped, ...data } = message.data;
  // `structured` restates the result: often dropping it is enough.
  if (Buffer.byteLength(JSON.stringify({ type: 'TOOL_RESULT', data })) <= limit) return { type: 'TOOL_RESULT', data };
  const text = data.result ?? '';
  // Keep as much text as fits beside the envelope; JSON escaping can grow text, so leave a margin.
  const room = Math.max(0, limit - 4096 - Buffer.byteLength(JSON.stringify({ ...data, result: '' })));
  const json = shrinkJsonResult(text, room);
  if (json !== undefined) return { type: 'TOOL_RESULT', data: { ...data, result: json } };
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
  private readonly outbox: Outbox;
  private readonly disposers: (() => void)[] = [];
  private readonly answerListeners = new Set<AnswerListener>();
  private readonly log: Logger;

  constructor(
    private readonly connection: BridgeConnection,
    private readonly dispatcher: Dispatcher,
    options: BridgeOptions,
  ) {
    this.log = options.log;
    this.outbox = options.outbox ?? new Outbox(options.log, options.outboxTtlMs, options.outboxLimit);
    this.disposers.push(
      connection.onMessage((message) => {
        if (message.type === 'TOOL_CALL') void this.answer(message.call, () => this.dispatcher.dispatch(message.call));
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

  /**
   * Listens to every answer (the chat shows tool calls this way): the bridge is the one owner of
   * the call's path, and nobody dispatches a call a second time to learn its result.
   */
  onAnswer(listener: AnswerListener): () => void {
    this.answerListeners.add(listener);
    return () => this.answerListeners.delete(listener);
  }

  /** How many answers are waiting for the link. */
  get pending(): number {
    return this.outbox.size;
  }

  /**
   * Stops answering new calls. Answers of calls already started still go out (or, with the link
   * down, into the outbox), so every call gets exactly one.
   */
  dispose(): void {
    for (const d of this.disposers) d();
  }

  /**
   * Runs one call and sends its answer. Whatever fails on the way (thrown at once or later) still
   * answers the call, and never escapes into the socket's event handler, where it would end the host.
   */
  private async answer(call: ToolCall, run: () => Promise<ToolResultMessage>): Promise<void> {
    let message: ToolResultMessage;
    try {
      message = await run();
    } catch (e) {
      // The detail goes to the log only: nothing says what an unexpected error may quote.
      this.log.error(`call ${call.id} failed in the host: ${(e as Error)?.stack ?? String(e)}`);
      message = toolFailure(call, 'INTERNAL_ERROR', t('The host failed while handling the call {0}. If it was a change, it may or may not have been made: read the file, then send a new call with a new id.', call.id), 0);
    }
    let frame: { message: ToolResultMessage; text?: string };
    try {
      frame = this.frame(message);
    } catch (e) {
      // Too large to serialize at all (RangeError): the call still gets one answer, and a retry with
      // the same id gets the same one instead of building the answer again.
      this.log.error(`the answer to ${call.id} could not be serialized: ${(e as Error)?.stack ?? String(e)}`);
      message = toolFailure(call, 'INTERNAL_ERROR', t('The answer to the call {0} was too large to send. Narrow the request (a smaller range, depth or limit) and send it with a new id.', call.id), message.data.executionTime);
      this.dispatcher.replaceAnswer(call.id, message);
      frame = { message };
    }
    try {
      this.deliverAnswer(call, message, frame);
    } catch (e) {
      this.log.error(`the answer to ${call.id} could not be sent: ${(e as Error)?.stack ?? String(e)}`);
    }
  }

  /** The message as it goes out: serialized once, cut to the message limit when over it. */
  private frame(message: ToolResultMessage): { message: ToolResultMessage; text?: string } {
    const text = JSON.stringify(message);
    // A UTF-16 code unit is at most 3 bytes of UTF-8, so short texts need no byte count.
    if (text.length * 3 <= MAX_MESSAGE_BYTES) return { message, text };
    const size = Buffer.byteLength(text);
    return size <= MAX_MESSAGE_BYTES ? { message, text } : { message: fitToMessageLimit(message, MAX_MESSAGE_BYTES, size) };
  }

  private deliverAnswer(call: ToolCall, message: ToolResultMessage, frame: { message: ToolResultMessage; text?: string }): void {
    for (const listener of this.answerListeners) {
      try {
        listener(call, message);
      } catch {
        // A listener's failure is its own; the answer still goes out.
      }
    }
    this.deliver(frame.message, frame.text);
  }

  private deliver(message: ToolResultMessage, text?: string): void {
    // Older answers first: a send now would overtake them.
    if (this.outbox.size === 0 && this.connection.send(message, text)) return;
    this.outbox.put(message);
    if (this.connection.state === 'connected') this.flush();
  }

  private flush(): void {
    this.outbox.flush((m) => this.connection.send(m));
  }
}
