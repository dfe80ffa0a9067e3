/**
 * The wire contract with the agent backend (docs/protocol.md). Every message that enters
 * the extension goes through `parseServerMessage`; every message it sends is built from these types.
 */
import * as z from 'zod';
import { TOOL_ERROR_CODES } from './errors';

/** Largest single message either side may send (docs/protocol.md §4.4). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Longest tool-call id kept, logged or answered as a call: longer ones are refused (BAD_REQUEST), never stored. */
export const MAX_ID_CHARS = 256;
/**
 * Deepest nesting of arrays and objects a message may have (the message itself is level 1). Far more
 * than any tool's params need, and shallow enough that no code downstream can run out of stack on it.
 */
const MAX_NESTING_DEPTH = 64;

/**
 * Most object keys a message may hold in all. Each key costs the schema and the write journal's
 * hash a copy and a sort: hundreds of thousands of them, well within the frame limit, held the
 * thread for seconds. No tool's params come near this.
 */
const MAX_OBJECT_KEYS = 50_000;

/** What makes a message too big to process although its frame fits: nesting (`limit` levels) or keys; iterative, so any depth is safe to measure. */
function shapeProblem(value: unknown, limit: number): 'deep' | 'wide' | undefined {
  const stack: { value: object; depth: number }[] = [];
  if (value !== null && typeof value === 'object') stack.push({ value, depth: 1 });
  let keys = 0;
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (item.depth > limit) return 'deep';
    const children = Array.isArray(item.value) ? item.value : Object.values(item.value);
    if (!Array.isArray(item.value) && (keys += children.length) > MAX_OBJECT_KEYS) return 'wide';
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push({ value: child as object, depth: item.depth + 1 });
    }
  }
  return undefined;
}

const str = z.string();
const optStr = z.string().optional();
const optNum = z.number().optional();
const params = z.record(z.string(), z.unknown());

/** The two shapes of the wire contract: v1 (ANALYZE) and v2 (AGENT_CHAT), docs/protocol.md §1.2. */
export type ProtocolVersion = 'v1' | 'v2';

// ---------------------------------------------------------------- server → IDE

/** Server greets the client after the handshake; keep `requestId` for v1 multi-turn. */
const ConnectedSchema = z.object({
  type: z.literal('CONNECTED'),
  data: z.looseObject({ message: optStr, requestId: optStr, serverTime: optNum }).optional(),
});

/** Heartbeat from either side; the receiver answers PONG with the same timestamp. */
const PingSchema = z.object({ type: z.literal('PING'), data: z.looseObject({ timestamp: optNum }).optional() });
const PongSchema = z.object({ type: z.literal('PONG'), data: z.looseObject({ timestamp: optNum }).optional() });

/**
 * The chat commands the backend understands, for the chat's `/` menu (docs/protocol.md §8.2): an
 * Agent Bridge addition, sent after CONNECTED; an IDE that does not know it ignores it.
 */
const CommandsSchema = z.object({
  type: z.literal('COMMANDS'),
  data: z.object({
    commands: z
      .array(z.object({ name: z.string().regex(/^[\w-]{1,64}$/), description: z.string().max(300).optional(), usage: z.string().max(200).optional() }))
      .max(100),
  }),
});

/** Progress of the agent's work (docs/protocol.md §8.2). */
const ThinkingSchema = z.object({
  type: z.literal('THINKING'),
  data: z.looseObject({
    requestId: optStr,
    thinking: optStr,
    stage: optStr,
    percent: optNum,
    round: optNum,
  }),
});

/** The end of a v1 analysis (and optionally of a v2 chat turn) with its Markdown result. */
const CompleteSchema = z.object({
  type: z.literal('COMPLETE'),
  data: z.looseObject({ requestId: optStr, result: optStr, process: optStr }).optional(),
});

/** A v2 answer; its text field's name is not fixed by the documents, so all four are read. */
const AgentResponseSchema = z.object({
  type: z.literal('AGENT_RESPONSE'),
  data: z
    .looseObject({
      sessionId: optStr,
      content: optStr,
      message: optStr,
      result: optStr,
      text: optStr,
      done: z.boolean().optional(),
      final: z.boolean().optional(),
      complete: z.boolean().optional(),
    })
    .optional(),
});

/** A chat-level error from the backend (docs/protocol.md §8.2). */
const ServerErrorSchema = z.object({
  type: z.literal('ERROR'),
  data: z.looseObject({ requestId: optStr, message: optStr, code: optStr, details: z.unknown().optional() }).optional(),
});

/**
 * A tool call in either shape: fields at the root or inside `data` (docs/protocol.md §4.1).
 * Root-level fields win when both are present; the id is `toolCallId` or `callId`.
 */
const ToolCallFields = z.looseObject({
  toolCallId: optStr,
  callId: optStr,
  toolName: optStr,
  params: params.optional(),
  webSocketSessionId: optStr,
  projectPath: optStr,
  traceId: optStr,
  trace_id: optStr,
});
const RawToolCallSchema = ToolCallFields.extend({
  type: z.literal('TOOL_CALL'),
  data: ToolCallFields.optional(),
});

/** A tool call after both shapes are merged: what the dispatcher sees. */
export interface ToolCall {
  readonly id: string;
  /** The key(s) the call carried its id under; the result echoes the same. */
  readonly idKey: 'toolCallId' | 'callId';
  readonly toolName: string;
  readonly params: Record<string, unknown>;
  readonly traceId?: string;
  readonly webSocketSessionId?: string;
  readonly projectPath?: string;
}

export type ServerMessage =
  | z.infer<typeof ConnectedSchema>
  | z.infer<typeof PingSchema>
  | z.infer<typeof PongSchema>
  | z.infer<typeof ThinkingSchema>
  | z.infer<typeof CompleteSchema>
  | z.infer<typeof AgentResponseSchema>
  | z.infer<typeof ServerErrorSchema>
  | z.infer<typeof CommandsSchema>
  | { readonly type: 'TOOL_CALL'; readonly call: ToolCall };

const serverSchemas = {
  CONNECTED: ConnectedSchema,
  PING: PingSchema,
  PONG: PongSchema,
  THINKING: ThinkingSchema,
  COMPLETE: CompleteSchema,
  AGENT_RESPONSE: AgentResponseSchema,
  ERROR: ServerErrorSchema,
  COMMANDS: CommandsSchema,
} as const;

export type ParseOutcome =
  | { readonly ok: true; readonly message: ServerMessage }
  /** Not a message we can act on. `reply` is set when the message was a tool call with an id, so it can be answered. */
  | { readonly ok: false; readonly error: string; readonly reply?: ToolResultMessage }
  /** A well-formed message of a type this extension does not handle. */
  | { readonly ok: 'ignored'; readonly type: string };

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/** The only door in: turns one WebSocket frame into a typed message, or a clear reason it is not one. */
export function parseServerMessage(raw: string | Buffer): ParseOutcome {
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.byteLength;
  if (size > MAX_MESSAGE_BYTES) {
    const error = `Message of ${size} bytes exceeds the ${MAX_MESSAGE_BYTES}-byte limit; not parsed.`;
    // A tool call still gets its answer (not the backend's 30 s timeout): its id is looked for in the head only.
    const head = (typeof raw === 'string' ? raw.slice(0, 4096) : raw.subarray(0, 4096).toString('utf8'));
    const id = /"type"\s*:\s*"TOOL_CALL"/.test(head) ? /"(toolCallId|callId)"\s*:\s*"([^"\\]{1,256})"/.exec(head) : null;
    return { ok: false, error, reply: id ? toolFailure({ id: id[2], idKey: id[1] as 'toolCallId' | 'callId' }, 'BAD_REQUEST', error, 0) : undefined };
  }
  let json: unknown;
  try {
    json = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch (e) {
    return { ok: false, error: `Malformed JSON: ${(e as Error).message}` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, error: 'A message must be a JSON object.' };
  }
  const type = (json as { type?: unknown }).type;
  if (typeof type !== 'string') {
    return { ok: false, error: 'A message must have a string "type".' };
  }
  const problem = shapeProblem(json, MAX_NESTING_DEPTH);
  const tooBig =
    problem === 'deep'
      ? `Invalid ${type.slice(0, 40)} message: arrays and objects nest deeper than ${MAX_NESTING_DEPTH} levels; not processed.`
      : problem === 'wide'
        ? `Invalid ${type.slice(0, 40)} message: it holds more than ${MAX_OBJECT_KEYS} object keys; not processed.`
        : undefined;
  if (type === 'TOOL_CALL') {
    return parseToolCall(json, tooBig);
  }
  if (tooBig) return { ok: false, error: tooBig };
  const schema = serverSchemas[type as keyof typeof serverSchemas];
  if (!schema) {
    return { ok: 'ignored', type };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    return { ok: false, error: `Invalid ${type} message: ${describeIssues(parsed.error)}` };
  }
  return { ok: true, message: parsed.data };
}

/** `tooBig`: why the call is refused whatever its fields, when it nests too deep or holds too many keys (it is still answered, to its id). */
function parseToolCall(json: object, tooBig: string | undefined): ParseOutcome {
  const parsed = RawToolCallSchema.safeParse(json);
  // Find an id even in a malformed call, so the backend gets an answer instead of a 30 s timeout.
  const loose = json as Record<string, unknown>;
  const data = (typeof loose.data === 'object' && loose.data !== null ? loose.data : {}) as Record<string, unknown>;
  // Root fields win over `data`'s (docs/protocol.md §4.1): the id is the first of root toolCallId, root
  // callId, data toolCallId, data callId that is there.
  const idKey = (['toolCallId', 'callId'] as const).find((k) => loose[k] !== undefined) ?? (['toolCallId', 'callId'] as const).find((k) => data[k] !== undefined) ?? 'toolCallId';
  const rawId = loose[idKey] !== undefined ? loose[idKey] : data[idKey];
  const reply = (error: string): ParseOutcome => ({
    ok: false,
    error,
    reply:
      typeof rawId === 'string' && rawId.length > 0
        ? toolFailure({ id: rawId, idKey }, 'BAD_REQUEST', error, 0)
        : undefined,
  });
  if (typeof rawId === 'string' && rawId.length > MAX_ID_CHARS) {
    return reply(`Invalid TOOL_CALL: the id is ${rawId.length} characters long; at most ${MAX_ID_CHARS} are accepted.`);
  }
  if (tooBig) return reply(tooBig);
  if (!parsed.success) {
    return reply(`Invalid TOOL_CALL: ${describeIssues(parsed.error)}`);
  }
  const root = parsed.data;
  const inner = root.data ?? {};
  const id = typeof rawId === 'string' ? rawId : undefined;
  const toolName = root.toolName ?? inner.toolName;
  if (!id) return reply('Invalid TOOL_CALL: missing "toolCallId" (or "callId").');
  if (!toolName) return reply('Invalid TOOL_CALL: missing "toolName".');
  const call: ToolCall = {
    id,
    idKey,
    toolName,
    params: root.params ?? inner.params ?? {},
    traceId: root.traceId ?? root.trace_id ?? inner.traceId ?? inner.trace_id,
    webSocketSessionId: root.webSocketSessionId ?? inner.webSocketSessionId,
    projectPath: root.projectPath ?? inner.projectPath,
  };
  return { ok: true, message: { type: 'TOOL_CALL', call } };
}

// ---------------------------------------------------------------- IDE → server

/** A tool's answer. Every field sits in `data` (docs/protocol.md §4.2); the id is echoed under the key the call used. */
export const ToolResultSchema = z.object({
  type: z.literal('TOOL_RESULT'),
  data: z.object({
    toolCallId: str,
    callId: optStr,
    success: z.boolean(),
    result: optStr,
    structured: z.unknown().optional(),
    error: optStr,
    code: z.enum(TOOL_ERROR_CODES).optional(),
    /** Milliseconds of the tool's own work (for a write: not counting the wait for the developer). */
    executionTime: z.number(),
    /** Milliseconds a write waited for the developer's decision, when it waited. */
    approvalWaitMs: z.number().optional(),
    /** Set on a write answered after BACKEND_WAIT_MS: the caller may have stopped waiting, and this says what happened to the file. */
    note: optStr,
    traceId: optStr,
  }),
});
export type ToolResultMessage = z.infer<typeof ToolResultSchema>;

/**
 * How long a backend waits for a TOOL_RESULT before it answers its own caller TIMEOUT (the
 * protocol's forwarding timeout). A write decided later still lands: the UI and the answer say so.
 */
export const BACKEND_WAIT_MS = 30_000;

/** What the developer attached to a chat message, beside its fenced copy in `message` (docs/protocol.md §8.1). */
const ChatContextItemSchema = z.object({ path: str, startLine: z.number(), endLine: z.number(), text: z.string(), truncated: z.boolean().optional() });
/**
 * One attachment as it goes on the wire: a project-relative path, the 1-based inclusive lines sent,
 * their text, and `truncated` when the file (or range) was longer than the budget left.
 */
export type ContextItem = Readonly<z.infer<typeof ChatContextItemSchema>>;

/** v2 chat request (docs/protocol.md §8.1). */
export const AgentChatSchema = z.object({
  type: z.literal('AGENT_CHAT'),
  data: z.object({ sessionId: str, projectKey: str, message: str, context: z.array(ChatContextItemSchema).optional() }),
});

/** v1 analysis request (docs/protocol.md §8.1). */
export const AnalyzeSchema = z.object({
  type: z.literal('ANALYZE'),
  data: z.object({ requestId: z.string().nullable(), message: str, projectKey: str, projectPath: str, mode: optStr, context: z.array(ChatContextItemSchema).optional() }),
});

/** Token auth, sent first when a token is configured (docs/protocol.md §2.2). */
export const ConnectSchema = z.object({ type: z.literal('CONNECT'), data: z.object({ token: str }) });

export type ClientMessage =
  | ToolResultMessage
  | z.infer<typeof PingSchema>
  | z.infer<typeof PongSchema>
  | z.infer<typeof AgentChatSchema>
  | z.infer<typeof AnalyzeSchema>
  | z.infer<typeof ConnectSchema>;

type CallRef = Pick<ToolCall, 'id' | 'idKey'> & { traceId?: string };

function idFields(call: CallRef): { toolCallId: string; callId?: string } {
  return call.idKey === 'callId' ? { toolCallId: call.id, callId: call.id } : { toolCallId: call.id };
}

export function toolSuccess(call: CallRef, result: string, executionTime: number, structured?: unknown): ToolResultMessage {
  return {
    type: 'TOOL_RESULT',
    data: {
      ...idFields(call),
      success: true,
      result,
      ...(structured !== undefined ? { structured } : {}),
      executionTime,
      ...(call.traceId ? { traceId: call.traceId } : {}),
    },
  };
}

export function toolFailure(
  call: CallRef,
  code: (typeof TOOL_ERROR_CODES)[number],
  error: string,
  executionTime: number,
): ToolResultMessage {
  return {
    type: 'TOOL_RESULT',
    data: {
      ...idFields(call),
      success: false,
      error,
      code,
      executionTime,
      ...(call.traceId ? { traceId: call.traceId } : {}),
    },
  };
}
