/**
 * The dev backend's "agent": what answers an IDE's AGENT_CHAT (v2) or ANALYZE (v1).
 * For now a placeholder that says there is no agent; a scripted agent plugs in here later by
 * passing its own `ChatHandler` to `startDevBackend({ chat })`.
 */
import type { ContextItem, ProtocolVersion } from '../core/protocol/messages';
import type { SessionInfo } from './registry';
import type { CallToolOptions } from './toolCalls';

/** One chat turn from the IDE, both protocol versions folded into one shape. */
export interface ChatRequest {
  readonly protocol: ProtocolVersion;
  readonly message: string;
  readonly sessionId: string;
  readonly projectKey: string;
  readonly projectPath?: string;
  readonly mode?: string;
  /** v1 only: the conversation's requestId (the client's, else the one the server generated). */
  readonly requestId?: string;
  /** What the developer attached (also fenced in `message`, docs/protocol.md §8.1). */
  readonly context?: readonly ContextItem[];
}

/** A command the chat handler understands, for the IDE's `/` menu. */
export interface ChatCommand {
  readonly name: string;
  readonly description?: string;
  readonly usage?: string;
}

/** What a chat handler may do with the IDE while it answers. */
export interface ChatContext {
  readonly session: SessionInfo;
  /** Sends any server message (THINKING, AGENT_RESPONSE, COMPLETE, ERROR...). */
  send(message: object): void;
  /** Asks the IDE to run a tool and resolves with its raw TOOL_RESULT message. */
  callTool(toolName: string, params: Record<string, unknown>, opts?: CallToolOptions): Promise<Record<string, unknown>>;
  /** Aborted when a newer request overrides this one (docs/protocol.md §8.3) or the IDE disconnects. */
  readonly signal: AbortSignal;
  log(line: string): void;
}

/** Answers one chat turn. A rejection is reported to the IDE as ERROR ANALYSIS_FAILED. */
export type ChatHandler = (request: ChatRequest, ctx: ChatContext) => Promise<void>;

const NO_AGENT =
  'The dev backend has no agent yet: it only forwards tool calls. ' +
  'Try the HTTP tool API (POST /api/claude-code/tools/execute) to send this IDE a TOOL_CALL.';

/** Ends the turn at once, in the message each protocol version expects as its final answer. */
export const placeholderChat: ChatHandler = (request, ctx) => {
  if (request.protocol === 'v1') {
    ctx.send({
      type: 'COMPLETE',
      data: { requestId: request.requestId, result: `${NO_AGENT}\n\n> ${request.message}`, process: 'dev backend echo' },
    });
  } else {
    ctx.send({
      type: 'AGENT_RESPONSE',
      data: { sessionId: request.sessionId, content: `${NO_AGENT}\n\n> ${request.message}`, done: true },
    });
  }
  return Promise.resolve();
};
