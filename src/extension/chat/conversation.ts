/**
 * One conversation with the agent backend: turns the developer's message into AGENT_CHAT (v2) or
 * ANALYZE (v1), and the backend's THINKING / TOOL_CALL / AGENT_RESPONSE / COMPLETE / ERROR into
 * transcript entries. One request at a time (docs/protocol.md §8.3), abandoned locally on Stop, on the
 * 5-minute analysis timeout (§6.3), or when the link drops. No `vscode` import, so it is unit-testable.
 */
import type { ContextRef } from '../../core/chat/attachments';
import { messageWithContext } from '../../core/chat/contextMessage';
import { patchCounts } from '../../core/edit/patch';
import type { ConnectionState } from '../../core/link/connection';
import type { ClientMessage, ContextItem, ServerMessage, ToolCall, ToolResultMessage } from '../../core/protocol/messages';
import type { Entry } from './contract';
import { outcomeOf, summarizeParams } from './toolSummary';
import type { Transcript } from './transcript';

export const ANALYSIS_TIMEOUT_MS = 5 * 60_000;

/** What the conversation needs from the BridgeController. */
export interface ChatLink {
  readonly state: ConnectionState;
  readonly protocol: 'v1' | 'v2';
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

interface Turn {
  readonly id: string;
  readonly timer: ReturnType<typeof setTimeout>;
  /** The tool calls the backend ran during this turn. */
  readonly toolCallIds: string[];
  thinkingId?: string;
  answerId?: string;
}

let counter = 0;
const newId = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${(++counter).toString(36)}`;

export class Conversation {
  private turn: Turn | undefined;
  private queued: Queued | undefined;
  /** Turns given up locally that the backend may still answer with REQUEST_OVERRIDDEN when the next one starts. */
  private abandoned = 0;

  constructor(
    private readonly link: ChatLink,
    private readonly target: () => ChatTarget,
    private readonly transcript: Transcript,
    private readonly texts: ChatTexts,
    private readonly events: ConversationEvents,
    private readonly timeoutMs = ANALYSIS_TIMEOUT_MS,
  ) {
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
        return this.thinking(m.data);
      case 'TOOL_CALL':
        return this.toolStarted(m.call);
      case 'AGENT_RESPONSE': {
        const d = m.data ?? {};
        const text = d.content ?? d.message ?? d.result ?? d.text ?? '';
        if (text) this.answer(text, 'append');
        if (d.done || d.final || d.complete) this.finish();
        return;
      }
      case 'COMPLETE':
        if (m.data?.result) this.answer(m.data.result, 'complete');
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
    const existing = this.transcript.get(toolEntryId(call.id));
    if (existing?.kind !== 'tool') return;
    const d = result.data;
    const diff = d.success ? compactDiff(d.result) : undefined;
    const status = d.success ? 'succeeded' : d.code === 'USER_REJECTED' ? 'rejected' : d.code === 'CANCELLED' ? 'cancelled' : 'failed';
    this.put({
      ...existing,
      status,
      ms: d.executionTime,
      ...(d.approvalWaitMs !== undefined ? { waitMs: d.approvalWaitMs } : {}),
      // A write that landed shows its change as a diff rather than its answer's JSON.
      ...(diff ? { diff } : { output: d.result }),
      outcome: d.success && !diff ? outcomeOf(d.result) : undefined,
      error: d.error,
      // The developer's own decision needs no error code next to it.
      code: status === 'failed' ? d.code : undefined,
    });
  }

  private thinking(d: { thinking?: string; stage?: string; percent?: number; round?: number }): void {
    const turn = this.turn;
    if (!turn) return;
    const last = this.transcript.entries.at(-1);
    // Update in place while nothing else happened since; after a tool or an answer, start a new one.
    const id = last && last.id === turn.thinkingId ? last.id : newId('thinking');
    if (turn.thinkingId && turn.thinkingId !== id) this.deactivateThinking(turn);
    turn.thinkingId = id;
    const percent = d.percent === undefined ? undefined : Math.max(0, Math.min(100, d.percent));
    this.put({ kind: 'thinking', id, at: Date.now(), text: d.thinking ?? '', stage: d.stage, percent, round: d.round, active: true });
  }

  private toolStarted(call: ToolCall): void {
    if (!this.turn) return;
    this.turn.toolCallIds.push(call.id);
    this.put({ kind: 'tool', id: toolEntryId(call.id), at: Date.now(), name: call.toolName, summary: summarizeParams(call.params), status: 'running' });
  }

  private answer(text: string, how: 'append' | 'complete'): void {
    const turn = this.turn;
    if (!turn) return;
    const last = this.transcript.entries.at(-1);
    const current = last?.kind === 'answer' && last.id === turn.answerId ? last : undefined;
    let markdown = text;
    if (current) {
      // A cumulative stream resends the whole text; a delta stream sends the next piece.
      if (how === 'complete' && current.markdown.includes(text.trim())) return;
      markdown = text.startsWith(current.markdown) ? text : how === 'complete' ? `${current.markdown}\n\n${text}` : current.markdown + text;
    }
    const id = current?.id ?? newId('answer');
    turn.answerId = id;
    this.put({ kind: 'answer', id, at: current?.at ?? Date.now(), markdown, done: false });
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
    if (turn.answerId) {
      const a = this.transcript.get(turn.answerId);
      if (a?.kind === 'answer') this.put({ ...a, done: true });
    }
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
    this.deactivateThinking(turn);
    this.turn = undefined;
    this.events.onBusy(false);
  }

  private deactivateThinking(turn: Turn): void {
    const t = turn.thinkingId ? this.transcript.get(turn.thinkingId) : undefined;
    if (t?.kind === 'thinking' && t.active) this.put({ ...t, active: false });
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

export const toolEntryId = (callId: string): string => `tool-${callId}`;

/** Lines of a compact diff shown in the chat; the rest is counted. */
const DIFF_LINES = 40;

/**
 * The change a writing tool reports (`path` and `structuredPatch` in its JSON answer, as every
 * writing tool answers) as the first lines of its hunks, for the chat. Undefined for anything else.
 */
export function compactDiff(result: string | undefined): { path: string; added: number; removed: number; lines: string[]; more: number } | undefined {
  if (!result || !result.trimStart().startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(result);
  } catch {
    return undefined;
  }
  const r = parsed as { path?: unknown; filePath?: unknown; structuredPatch?: unknown };
  const where = typeof r.path === 'string' ? r.path : typeof r.filePath === 'string' ? r.filePath : undefined;
  if (!where || !Array.isArray(r.structuredPatch)) return undefined;
  const hunks = (r.structuredPatch as Array<{ oldStart?: number; newStart?: number; lines?: unknown }>)
    .filter((h) => Array.isArray(h.lines))
    .map((h) => ({ ...h, lines: (h.lines as unknown[]).filter((l): l is string => typeof l === 'string') }));
  const all = hunks.flatMap((h) => [`@@ -${h.oldStart ?? '?'} +${h.newStart ?? '?'} @@`, ...h.lines.map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l))]);
  return { path: where, ...patchCounts(hunks), lines: all.slice(0, DIFF_LINES), more: Math.max(0, all.length - DIFF_LINES) };
}
