/**
 * What the backend's progress during a turn writes into the transcript: its thinking (updated in
 * place), a row per tool call with its outcome, and the answer streamed into one entry.
 */
import type { ToolCall, ToolResultMessage } from '../../core/protocol/messages';
import type { Entry } from './contract';
import { compactDiff, rowOutcome, summarizeParams, toolEntryId } from './toolSummary';
import type { Transcript } from './transcript';

/** A request under way: its local time limit and the entries it has written. */
export interface Turn {
  readonly id: string;
  readonly timer: ReturnType<typeof setTimeout>;
  /** The tool calls the backend ran during this turn. */
  readonly toolCallIds: string[];
  thinkingId?: string;
  answerId?: string;
}

let counter = 0;
/** A transcript entry's id (or a turn's), unique in this window. */
export const newId = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${(++counter).toString(36)}`;

export class TurnEntries {
  constructor(
    private readonly transcript: Transcript,
    private readonly put: (entry: Entry) => void,
  ) {}

  thinking(turn: Turn, d: { thinking?: string; stage?: string; percent?: number; round?: number }): void {
    const last = this.transcript.entries.at(-1);
    // Update in place while nothing else happened since; after a tool or an answer, start a new one.
    const id = last && last.id === turn.thinkingId ? last.id : newId('thinking');
    if (turn.thinkingId && turn.thinkingId !== id) this.deactivateThinking(turn);
    turn.thinkingId = id;
    const percent = d.percent === undefined ? undefined : Math.max(0, Math.min(100, d.percent));
    this.put({ kind: 'thinking', id, at: Date.now(), text: d.thinking ?? '', stage: d.stage, percent, round: d.round, active: true });
  }

  toolStarted(turn: Turn, call: ToolCall): void {
    turn.toolCallIds.push(call.id);
    this.put({ kind: 'tool', id: toolEntryId(call.id), at: Date.now(), name: call.toolName, summary: summarizeParams(call.params), status: 'running' });
  }

  /** A tool call was answered: its entry (if this conversation showed it) gets its outcome. */
  toolFinished(call: ToolCall, result: ToolResultMessage): void {
    const existing = this.transcript.get(toolEntryId(call.id));
    if (existing?.kind !== 'tool') return;
    const d = result.data;
    const diff = d.success ? compactDiff(d.structured) : undefined;
    const status = d.success ? 'succeeded' : d.code === 'USER_REJECTED' ? 'rejected' : d.code === 'CANCELLED' ? 'cancelled' : 'failed';
    this.put({
      ...existing,
      status,
      ms: d.executionTime,
      ...(d.approvalWaitMs !== undefined ? { waitMs: d.approvalWaitMs } : {}),
      // A write that landed shows its change as a diff rather than its answer's JSON.
      ...(diff ? { diff } : { output: d.result }),
      outcome: d.success && !diff ? rowOutcome(call.toolName, d.structured) : undefined,
      error: d.error,
      // The developer's own decision needs no error code next to it.
      code: status === 'failed' ? d.code : undefined,
    });
  }

  answer(turn: Turn, text: string, how: 'append' | 'complete'): void {
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

  /** The turn ended normally: its answer is complete. */
  answerDone(turn: Turn): void {
    if (!turn.answerId) return;
    const a = this.transcript.get(turn.answerId);
    if (a?.kind === 'answer') this.put({ ...a, done: true });
  }

  deactivateThinking(turn: Turn): void {
    const t = turn.thinkingId ? this.transcript.get(turn.thinkingId) : undefined;
    if (t?.kind === 'thinking' && t.active) this.put({ ...t, active: false });
  }
}
