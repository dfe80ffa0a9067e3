/** The dev backend's side of a tool call: how it is sent, how it fails, and what is checked in its answer. */
import { ToolResultSchema } from '../core/protocol/messages';

/** The two TOOL_CALL shapes (docs/protocol.md §4.1): 'root' (fields at the root, `toolCallId`) and 'data' (`data.callId`). */
export type ToolCallShape = 'root' | 'data';

export interface CallToolOptions {
  readonly shape?: ToolCallShape;
  readonly timeoutMs?: number;
}

/** The IDE did not answer in time; carries the id so an HTTP caller can report it. */
export class ToolCallTimeoutError extends Error {
  constructor(
    readonly toolCallId: string,
    readonly timeoutMs: number,
  ) {
    super(`The IDE did not answer tool call ${toolCallId} within ${timeoutMs} ms.`);
    this.name = 'ToolCallTimeoutError';
  }
}

/** The IDE's socket closed while a call was waiting. */
export class IdeGoneError extends Error {
  constructor(readonly toolCallId: string) {
    super(`The IDE disconnected before answering tool call ${toolCallId}.`);
    this.name = 'IdeGoneError';
  }
}

type Json = Record<string, unknown>;

/** What a developer should know about a result that the extension got wrong. */
export function resultProblems(message: Json, data: Json, id: string, shape: ToolCallShape): string[] {
  const problems: string[] = [];
  const parsed = ToolResultSchema.safeParse(message);
  if (!parsed.success) {
    problems.push(...parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  if (data.toolCallId !== id) problems.push(`data.toolCallId should be ${id}`);
  if (shape === 'data' && data.callId !== id) problems.push(`the call used callId, so data.callId should be ${id}`);
  return problems;
}

export function summarizeResult(data: Json): string {
  const time = typeof data.executionTime === 'number' ? ` in ${data.executionTime} ms` : '';
  if (data.success === true) {
    const size = typeof data.result === 'string' ? `${data.result.length} chars` : typeof data.result;
    return `ok${time}: result ${size}${data.structured !== undefined ? ' + structured' : ''}`;
  }
  return `failed${time}: ${String(data.code ?? 'no code')}: ${truncate(String(data.error ?? '(no error text)'), 200)}`;
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
