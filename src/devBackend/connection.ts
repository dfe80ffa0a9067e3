/**
 * One IDE's WebSocket, seen from the dev backend: reads its frames (PING, CONNECT, TOOL_RESULT,
 * chat), sends it TOOL_CALLs and keeps the calls it has not answered yet.
 */
import { randomUUID } from 'node:crypto';
import { WebSocket, type RawData } from 'ws';
import {
  AgentChatSchema,
  AnalyzeSchema,
  ConnectSchema,
  MAX_MESSAGE_BYTES,
} from '../core/protocol/messages';
import type { BackendErrorCode } from '../core/protocol/errors';
import type { ChatCommand, ChatContext, ChatHandler, ChatRequest } from './chat';
import type { SessionInfo } from './registry';
import { sameSecret } from './secret';
import { IdeGoneError, resultProblems, summarizeResult, ToolCallTimeoutError, truncate, type CallToolOptions, type ToolCallShape } from './toolCalls';

/** Every frame the server receives, for tests and logs; `message` is set when the frame was a JSON object. */
export interface ReceivedMessage {
  readonly session: SessionInfo;
  readonly text: string;
  readonly bytes: number;
  readonly message?: Record<string, unknown>;
}

export interface ConnectionDeps {
  readonly token?: string;
  readonly toolTimeoutMs: number;
  readonly chat: ChatHandler;
  /** The chat commands to announce (COMMANDS, docs/protocol.md §8.2) once the IDE is authenticated. */
  readonly commands?: readonly ChatCommand[];
  log(line: string): void;
  onReceived(event: ReceivedMessage): void;
  onAuthenticated(): void;
}

interface PendingCall {
  readonly toolName: string;
  readonly shape: ToolCallShape;
  readonly timer: NodeJS.Timeout;
  resolve(message: Record<string, unknown>): void;
  reject(error: Error): void;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const shortId = (): string => randomUUID().slice(0, 8);

export class IdeConnection {
  private authenticated: boolean;
  private readonly pending = new Map<string, PendingCall>();
  private activeChat: { readonly controller: AbortController; readonly requestId?: string } | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly meta: Omit<SessionInfo, 'authenticated'> & { readonly requestId?: string },
    preAuthenticated: boolean,
    private readonly deps: ConnectionDeps,
  ) {
    this.authenticated = preAuthenticated;
    ws.on('message', (data) => this.handleFrame(toBuffer(data)));
    ws.on('close', () => this.handleClose());
    // Without a listener, a socket error (e.g. a frame beyond maxPayload) would crash the process.
    ws.on('error', (err) => deps.log(`[ws] ${meta.webSocketSessionId} socket error: ${err.message}`));
  }

  info(): SessionInfo {
    const m = this.meta;
    return {
      webSocketSessionId: m.webSocketSessionId,
      sessionId: m.sessionId,
      projectKey: m.projectKey,
      ...(m.projectPath !== undefined ? { projectPath: m.projectPath } : {}),
      ...(m.mode !== undefined ? { mode: m.mode } : {}),
      protocol: m.protocol,
      connectedAt: m.connectedAt,
      authenticated: this.authenticated,
    };
  }

  get webSocketSessionId(): string {
    return this.meta.webSocketSessionId;
  }

  /** Greets the IDE (docs/protocol.md §2.4); v1 gets the requestId it keeps for multi-turn. */
  sendConnected(): void {
    this.send({
      type: 'CONNECTED',
      data: {
        message: 'WebSocket connected successfully (Agent Bridge dev backend)',
        ...(this.meta.protocol === 'v1' ? { requestId: this.meta.requestId } : {}),
        serverTime: Date.now(),
        webSocketSessionId: this.meta.webSocketSessionId,
      },
    });
    if (this.authenticated) this.sendCommands();
  }

  /** The `/` commands the chat offers, when the backend has any; only to an authenticated IDE. */
  private sendCommands(): void {
    if (this.deps.commands?.length) this.send({ type: 'COMMANDS', data: { commands: this.deps.commands } });
  }

  send(message: object): void {
    this.sendRaw(JSON.stringify(message));
  }

  /** Stops (or resumes) reading this IDE's frames: a backend that stalls, for backpressure tests. */
  setReading(on: boolean): void {
    if (on) this.ws.resume();
    else this.ws.pause();
  }

  sendRaw(text: string): void {
    if (this.ws.readyState !== WebSocket.OPEN) {
      this.deps.log(`[ws] ${this.webSocketSessionId} is not open; dropped ${text.slice(0, 80)}`);
      return;
    }
    this.ws.send(text, (err) => {
      if (err) this.deps.log(`[ws] ${this.webSocketSessionId} send failed: ${err.message}`);
    });
  }

  sendError(code: BackendErrorCode | 'UNAUTHORIZED', message: string, requestId = this.meta.requestId): void {
    this.send({ type: 'ERROR', data: { code, message, ...(requestId ? { requestId } : {}) } });
  }

  /**
   * Sends a TOOL_CALL and returns its id at once (an HTTP caller reports it even on timeout) with
   * a promise of the raw TOOL_RESULT message.
   */
  startToolCall(
    toolName: string,
    params: Json,
    opts: CallToolOptions = {},
  ): { readonly id: string; readonly done: Promise<Json> } {
    const shape = opts.shape ?? 'root';
    const timeoutMs = opts.timeoutMs ?? this.deps.toolTimeoutMs;
    // The id is `<tool>-<short id>-<epoch ms>` (docs/protocol.md §4.3); the short id is random rather than the
    // session's prefix so two calls in the same millisecond cannot collide (the IDE caches
    // answers by id, so a collision would return the wrong result).
    const id = shape === 'root' ? `${toolName}-${shortId()}-${Date.now()}` : `call-${shortId()}`;
    const message =
      shape === 'root'
        ? {
            type: 'TOOL_CALL',
            toolCallId: id,
            toolName,
            // A v2 backend injects webSocketSessionId (docs/protocol.md §9.3) into the params it forwards.
            params: { ...params, webSocketSessionId: this.webSocketSessionId },
            webSocketSessionId: this.webSocketSessionId,
          }
        : {
            type: 'TOOL_CALL',
            data: { callId: id, toolName, params, ...(this.meta.projectPath ? { projectPath: this.meta.projectPath } : {}) },
          };
    const done = new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.rememberTimedOut(id);
        this.deps.log(`[tool] ✗ ${id} timed out after ${timeoutMs} ms`);
        reject(new ToolCallTimeoutError(id, timeoutMs));
      }, timeoutMs);
      this.pending.set(id, { toolName, shape, timer, resolve, reject });
    });
    this.deps.log(`[tool] → ${id} (${shape} shape) to ${this.webSocketSessionId}: ${truncate(JSON.stringify(params), 200)}`);
    this.send(message);
    return { id, done };
  }

  callTool(toolName: string, params: Json, opts?: CallToolOptions): Promise<Json> {
    return this.startToolCall(toolName, params, opts).done;
  }

  /** Ends the connection from the server side (backend shutdown); pending calls fail at once. */
  terminate(): void {
    this.handleClose();
    this.ws.terminate();
  }

  // ------------------------------------------------------------------ incoming

  private handleFrame(buffer: Buffer): void {
    const text = buffer.toString('utf8');
    let message: Json | undefined;
    if (buffer.byteLength <= MAX_MESSAGE_BYTES) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (isObject(parsed)) message = parsed;
      } catch {
        // Reported below, after observers have seen the frame.
      }
    }
    this.deps.onReceived({ session: this.info(), text, bytes: buffer.byteLength, message });

    if (buffer.byteLength > MAX_MESSAGE_BYTES) {
      this.sendError('MESSAGE_TOO_LARGE', `Message of ${buffer.byteLength} bytes exceeds the ${MAX_MESSAGE_BYTES}-byte limit.`);
      return;
    }
    if (!message) {
      this.sendError('INVALID_REQUEST', `Malformed message: expected a JSON object, got ${truncate(text, 80)}`);
      return;
    }
    const type = message.type;
    if (typeof type !== 'string') {
      this.sendError('INVALID_REQUEST', 'A message must have a string "type".');
      return;
    }
    if (!this.authenticated && type !== 'CONNECT' && type !== 'PING') {
      this.refuse(`Not authenticated: send CONNECT {data:{token}} before ${type}.`);
      return;
    }
    switch (type) {
      case 'PING': {
        const data = isObject(message.data) ? message.data : {};
        this.send({ type: 'PONG', data: { timestamp: data.timestamp ?? Date.now() } });
        return;
      }
      case 'PONG':
        return;
      case 'CONNECT':
        return this.handleConnect(message);
      case 'TOOL_RESULT':
        return this.handleToolResult(message);
      case 'AGENT_CHAT':
      case 'ANALYZE':
        return this.handleChat(type, message);
      default:
        this.sendError('INVALID_REQUEST', `Unknown message type ${JSON.stringify(type)}.`);
    }
  }

  private handleConnect(message: Json): void {
    const parsed = ConnectSchema.safeParse(message);
    if (!this.deps.token) {
      this.deps.log(`[ws] ${this.webSocketSessionId} sent CONNECT; this server has no token, so it is ignored`);
      return;
    }
    if (!parsed.success || !sameSecret(parsed.data.data.token, this.deps.token)) {
      this.refuse('Invalid token.');
      return;
    }
    if (!this.authenticated) {
      this.authenticated = true;
      this.deps.log(`[ws] ${this.webSocketSessionId} authenticated by CONNECT`);
      this.deps.onAuthenticated();
      this.sendCommands();
    }
  }

  /** Wrong or missing token: say why, then close with 1008 (policy violation). */
  private refuse(reason: string): void {
    this.deps.log(`[ws] ${this.webSocketSessionId} refused: ${reason}`);
    this.sendError('UNAUTHORIZED', reason);
    this.ws.close(1008, reason.slice(0, 120));
  }

  /** Ids answered TIMEOUT to their caller, the most recent few hundred: their late answers are told apart. */
  private readonly timedOut = new Set<string>();

  private rememberTimedOut(id: string): void {
    this.timedOut.add(id);
    if (this.timedOut.size > 256) this.timedOut.delete(this.timedOut.values().next().value as string);
  }

  private handleToolResult(message: Json): void {
    const data = message.data;
    if (!isObject(data)) {
      // 002's root-level TOOL_RESULT is the older form; the digest says results carry `data`.
      this.sendError('INVALID_REQUEST', 'TOOL_RESULT must carry its fields inside "data" (docs/protocol.md §4.2).');
      return;
    }
    const id = str(data.toolCallId) ?? str(data.callId);
    const call = id ? this.pending.get(id) : undefined;
    if (id && !call && this.timedOut.has(id)) {
      // A write approved after its caller got TIMEOUT still landed: the log says what became of it.
      this.deps.log(`[tool] ← ${id} arrived after its caller was answered TIMEOUT: ${summarizeResult(data)}${typeof data.note === 'string' ? ` (${data.note})` : ''}`);
      return;
    }
    if (!id || !call) {
      // docs/protocol.md §4.2: an unknown id is logged and ignored.
      this.deps.log(`[tool] ⚠️ No pending tool call for toolCallId=${id ?? '(none)'}; TOOL_RESULT ignored`);
      return;
    }
    this.pending.delete(id);
    clearTimeout(call.timer);
    const problems = resultProblems(message, data, id, call.shape);
    if (problems.length > 0) {
      this.deps.log(`[tool] ⚠️ TOOL_RESULT ${id} deviates from the protocol: ${problems.join('; ')}`);
    }
    this.deps.log(`[tool] ← ${id} ${summarizeResult(data)}`);
    call.resolve(message);
  }

  private handleChat(type: 'AGENT_CHAT' | 'ANALYZE', message: Json): void {
    const expected = this.meta.protocol === 'v1' ? 'ANALYZE' : 'AGENT_CHAT';
    if (type !== expected) {
      this.sendError('INVALID_REQUEST', `${type} is not spoken on this ${this.meta.protocol} connection; send ${expected}.`);
      return;
    }
    let request: ChatRequest;
    if (type === 'AGENT_CHAT') {
      const parsed = AgentChatSchema.safeParse(message);
      if (!parsed.success) return this.sendError('INVALID_REQUEST', `Invalid AGENT_CHAT: ${parsed.error.message}`);
      request = { protocol: 'v2', ...parsed.data.data };
    } else {
      const parsed = AnalyzeSchema.safeParse(message);
      if (!parsed.success) return this.sendError('INVALID_REQUEST', `Invalid ANALYZE: ${parsed.error.message}`);
      const { requestId, ...rest } = parsed.data.data;
      request = { protocol: 'v1', sessionId: this.meta.sessionId, ...rest, requestId: requestId ?? this.meta.requestId };
    }
    this.deps.log(`[chat] ${this.webSocketSessionId} ${type}: ${truncate(request.message, 120)}`);
    this.startChat(request);
  }

  /** One request at a time per connection: a new one overrides the running one (docs/protocol.md §8.3). */
  private startChat(request: ChatRequest): void {
    const previous = this.activeChat;
    if (previous) {
      previous.controller.abort();
      this.sendError('REQUEST_OVERRIDDEN', 'A newer request replaced this one.', previous.requestId);
    }
    const slot = { controller: new AbortController(), requestId: request.requestId };
    this.activeChat = slot;
    const ctx: ChatContext = {
      session: this.info(),
      send: (m) => this.send(m),
      callTool: (name, params, opts) => this.callTool(name, params, opts),
      signal: slot.controller.signal,
      log: (line) => this.deps.log(`[chat] ${line}`),
    };
    void Promise.resolve()
      .then(() => this.deps.chat(request, ctx))
      .catch((err: unknown) => {
        if (slot.controller.signal.aborted) return;
        const reason = err instanceof Error ? err.message : String(err);
        this.deps.log(`[chat] ${this.webSocketSessionId} failed: ${reason}`);
        this.sendError('ANALYSIS_FAILED', reason, request.requestId);
      })
      .finally(() => {
        if (this.activeChat === slot) this.activeChat = undefined;
      });
  }

  private handleClose(): void {
    this.activeChat?.controller.abort();
    this.activeChat = undefined;
    for (const [id, call] of this.pending) {
      clearTimeout(call.timer);
      call.reject(new IdeGoneError(id));
    }
    this.pending.clear();
  }
}

function toBuffer(data: RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}

