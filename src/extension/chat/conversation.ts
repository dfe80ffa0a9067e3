/**
 * One conversation with the agent backend: turns the developer's message into AGENT_CHAT (v2) or
 * ANALYZE (v1), and the backend's THINKING / TOOL_CALL / AGENT_RESPONSE / COMPLETE / ERROR into
 * transcript entries. One request at a time (docs/protocol.md §8.3), abandoned locally on Stop, on the
 * 5-minute analysis timeout (§6.3), or when the link drops. No `vscode` import, so it is unit-testable.
 */
import type { ContextRef } from '../../core/chat/attachments';
import { messageWithContext } from '../../core/chat/contextMessage';
import type { ConnectionState } from '../../core/link/connection';
import type { ClientMessage, ContextItem, ProtocolVersion, ServerMessage, ToolCall, ToolResultMessage } from '../../core/protocol/messages';
import type { Entry } from './contract';
import type { Transcript } from './transcript';
import { newId, TurnEntries, type Turn } from './turnEntries';

const ANALYSIS_TIMEOUT_MS = 5 * 60_000;

/** What the conversation needs from the BridgeController. */
export interface ChatLink {
  readonly state: ConnectionState;
  readonly protocol: ProtocolVersion;
  readonly requestId: string | undefined;
  send(message: ClientMessage): boolean;
}

/** Who is asking: the handshake's identity, read fresh for every message. */
export interface ChatTarget {
  readonly sessionId: string;
  readonly projectKey: string;
  readonly projectPath: string;
}

/** The sentences the conversation itself writes into the transcript, already translated. */
export interface ChatTexts {
  notConnected: string;
  notSentQueued: string;
  stopped: string;
  timedOut: string;
  connectionLost: string;
  busy: string;
  overriddenStale: string;
  explain(code: string): string;
}

export interface ConversationEvents {
  onEntry(entry: Entry): void;
  onBusy(busy: boolean): void;
  /** Stop: the tool calls this turn started, so changes still waiting for approval are withdrawn. */
  onWithdraw?(toolCallIds: readonly string[]): void;
  /**
   * Reads attachments again: a message queued with attachments before a window reload kept only
   * their paths (the transcript never stores file text). Rejects with the reason it cannot.
   */
  readContext?(refs: readonly ContextRef[]): Promise<ContextItem[]>;
}

/** What the transcript keeps of an attachment. */
type ContextLabel = NonNullable<Extract<Entry, { kind: 'user' }>['context']>[number];

/** A message typed while offline: kept (shown as queued) and sent when the link is back. */
interface Queued {
  readonly entryId: string;
  readonly text: string;
  /** Undefined after a reload: read again from the entry's labels before it goes. */
  readonly items: readonly ContextItem[] | undefined;
}

export class Conversation {
  private turn: Turn | undefined;
  private queued: Queued | undefined;
  /** Turns given up locally that the backend may still answer with REQUEST_OVERRIDDEN when the next one starts. */
  private abandoned = 0;
  private readonly entries: TurnEntries;

  constructor(
    private readonly link: ChatLink,
    private readonly target: () => ChatTarget,
    private readonly transcript: Transcript,
    private readonly texts: ChatTexts,
    private readonly events: ConversationEvents,
    private readonly timeoutMs = ANALYSIS_TIMEOUT_MS,
  ) {
    this.entries = new TurnEntries(transcript, (entry) => this.put(entry));
    // A message still waiting for the link when the window reloaded keeps waiting: it goes out on the next connect.
    const waiting = [...transcript.entries].reverse().find((e) => e.kind === 'user' && e.queued);
    if (waiting?.kind === 'user') this.queued = { entryId: waiting.id, text: waiting.text, items: waiting.context?.length ? undefined : [] };
  }

  get busy(): boolean {
    return this.turn !== undefined || this.queued !== undefined;
  }

  /**
   * Sends the developer's message with what they attached (already read); returns false (with a
   * notice) when it could not be sent.
   */
  send(text: string, items: readonly ContextItem[] = [], labels: readonly ContextLabel[] = []): boolean {
    const message = text.trim();
    if (!message) return false;
    if (this.busy) return this.notice(this.texts.busy, 'warning');
    const entryId = newId('user');
    const q: Queued = { entryId, text: message, items };
    if (this.link.state !== 'connected' || !this.dispatch(q, labels)) {
      // Offline (or the socket closed under the send): the message is not lost. It waits, shown
      // as queued, and goes out when the link is back, its attachments read again then: what the
      // files hold by that time, and refused if one became secret meanwhile.
      this.queued = { ...q, items: labels.length ? undefined : [] };
      this.put({ kind: 'user', id: entryId, at: Date.now(), text: message, queued: true, ...(labels.length ? { context: [...labels] } : {}) });
      this.notice(this.texts.notConnected, 'info');
      this.events.onBusy(true);
    }
    return true;
  }

  /**
   * Puts the message on the wire and starts its turn; false (nothing changed) when the link would
   * not take it. Attachments go twice (docs/protocol.md §8.1): fenced in `message`, and in `context`.
   */
  private dispatch(q: Queued, labels?: readonly ContextLabel[]): boolean {
    const t = this.target();
    const items = q.items ?? [];
    const message = messageWithContext(q.text, items);
    const context = items.length ? { context: items.map((i) => ({ ...i })) } : {};
    const wire: ClientMessage =
      this.link.protocol === 'v1'
        ? { type: 'ANALYZE', data: { requestId: this.link.requestId ?? null, message, projectKey: t.projectKey, projectPath: t.projectPath, mode: 'claude-code', ...context } }
        : { type: 'AGENT_CHAT', data: { sessionId: t.sessionId, projectKey: t.projectKey, message, ...context } };
    if (!this.link.send(wire)) return false;
    const shown = labels ?? this.contextOf(q.entryId);
    this.put({ kind: 'user', id: q.entryId, at: Date.now(), text: q.text, ...(shown.length ? { context: [...shown] } : {}) });
    const turn: Turn = { id: newId('turn'), toolCallIds: [], timer: setTimeout(() => this.abandon(this.texts.timedOut), this.timeoutMs) };
    this.turn = turn;
    this.events.onBusy(true);
    return true;
  }

  /** The calls of the turn under way (the changes it proposed among them). */
  turnCallIds(): readonly string[] {
    return this.turn ? [...this.turn.toolCallIds] : [];
  }

  /**
   * Stop: stop waiting here; the backend is not told (the protocol has no cancel), so it may still
   * be working. `withdraw`: the changes this turn still asks the developer to approve go too.
   */
  stop(withdraw = true): void {
    if (this.queued) {
      this.dropQueued();
      this.notice(this.texts.notSentQueued, 'info');
      this.events.onBusy(false);
      return;
    }
    // What the developer stopped includes the changes this turn still asks them to approve.
    if (withdraw && this.turn?.toolCallIds.length) this.events.onWithdraw?.([...this.turn.toolCallIds]);
    this.abandon(this.texts.stopped);
  }

  onConnectionState(state: ConnectionState): void {
    if (state === 'disconnected' || state === 'reconnecting') this.abandon(this.texts.connectionLost, false);
    if (state === 'connected' && this.queued && !this.turn) {
      const q = this.queued;
      if (q.items === undefined) return this.rereadQueued(q);
      this.queued = undefined;
      // The link went down again at once: it keeps waiting for the next connect.
      if (!this.dispatch(q)) this.queued = q;
    }
  }

  /** What the message's entry says it carries. */
  private contextOf(entryId: string): readonly ContextLabel[] {
    const e = this.transcript.get(entryId);
    return e?.kind === 'user' ? (e.context ?? []) : [];
  }

  /** A message queued before a reload: its attachments are read again, then it goes; if they cannot be, it does not. */
  private rereadQueued(q: Queued): void {
    const refs = this.contextOf(q.entryId).map(({ path, startLine, endLine }) => ({ path, startLine, endLine }));
    const read = this.events.readContext?.(refs) ?? Promise.reject(new Error('attachments cannot be read here'));
    read.then(
      (items) => {
        if (this.queued !== q) return; // stopped meanwhile
        this.queued = { ...q, items };
        if (this.link.state === 'connected') this.onConnectionState('connected');
      },
      (e: unknown) => {
        if (this.queued !== q) return;
        this.dropQueued();
        this.notice(`${this.texts.notSentQueued} ${e instanceof Error ? e.message : String(e)}`, 'warning');
        this.events.onBusy(false);
      },
    );
  }

  /** The queued message's entry stops saying it waits (it was cancelled, or could not be sent). */
  private markSent(entryId: string): void {
    const e = this.transcript.get(entryId);
    if (e?.kind === 'user') this.put({ ...e, queued: false });
  }

  private dropQueued(): void {
    if (!this.queued) return;
    this.markSent(this.queued.entryId);
    this.queued = undefined;
  }

  onServerMessage(m: ServerMessage): void {
    switch (m.type) {
      case 'THINKING':
        if (this.turn) this.entries.thinking(this.turn, m.data);
        return;
      case 'TOOL_CALL':
        if (this.turn) this.entries.toolStarted(this.turn, m.call);
        return;
      case 'AGENT_RESPONSE': {
        const d = m.data ?? {};
        const text = d.content ?? d.message ?? d.result ?? d.text ?? '';
        if (text && this.turn) this.entries.answer(this.turn, text, 'append');
        if (d.done || d.final || d.complete) this.finish();
        return;
      }
      case 'COMPLETE':
        if (m.data?.result && this.turn) this.entries.answer(this.turn, m.data.result, 'complete');
        return this.finish();
      case 'ERROR':
        return this.error(m.data?.code, m.data?.message);
      case 'CONNECTED':
      case 'PING':
      case 'PONG':
      case 'COMMANDS':
        return;
    }
  }

  /** A tool call was answered: its entry (if this conversation showed it) gets its outcome. */
  onToolFinished(call: ToolCall, result: ToolResultMessage): void {
    this.entries.toolFinished(call, result);
  }

  private error(code = 'UNKNOWN', message = ''): void {
    if (code === 'REQUEST_OVERRIDDEN' && this.abandoned > 0) {
      // The request the developer already stopped was replaced by the new one: expected, not this turn's end.
      this.abandoned--;
      this.notice(this.texts.overriddenStale, 'info');
      return;
    }
    this.put({ kind: 'error', id: newId('error'), at: Date.now(), code, message, explanation: this.texts.explain(code) });
    this.finish();
  }

  /** The turn ended normally (its answer is complete, or an ERROR ended it). */
  private finish(): void {
    const turn = this.turn;
    // An end with no turn here is a stopped request finishing after all: no override will come for it.
    if (!turn) return void (this.abandoned = Math.max(0, this.abandoned - 1));
    this.entries.answerDone(turn);
    this.end(turn);
  }

  /** Gives up on the turn here; the backend may still be working, so later REQUEST_OVERRIDDEN is expected. */
  private abandon(reason: string, expectOverride = true): void {
    const turn = this.turn;
    if (!turn) return;
    if (expectOverride) this.abandoned++;
    this.end(turn);
    this.notice(reason, 'warning');
  }

  private end(turn: Turn): void {
    clearTimeout(turn.timer);
    this.entries.deactivateThinking(turn);
    this.turn = undefined;
    this.events.onBusy(false);
  }

  /** Writes a notice; returns false so callers can `return this.notice(...)` from a failed send. */
  private notice(text: string, tone: 'info' | 'warning'): false {
    this.put({ kind: 'notice', id: newId('notice'), at: Date.now(), text, tone });
    return false;
  }

  private put(entry: Entry): void {
    this.events.onEntry(this.transcript.upsert(entry));
  }

  /** Forgets the running turn without a notice: a new session starts from nothing. */
  reset(): void {
    this.queued = undefined;
    if (this.turn) this.end(this.turn);
    this.abandoned = 0;
  }

  dispose(): void {
    if (this.turn) clearTimeout(this.turn.timer);
  }
}
