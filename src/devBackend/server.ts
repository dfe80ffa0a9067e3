/**
 * A development agent backend: the WebSocket endpoints an IDE connects to (docs/protocol.md §9.1) and
 * the HTTP tool API on the same loopback port. Everything lives in the returned object, with no
 * process globals, so tests can run several side by side.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { MAX_MESSAGE_BYTES, type ProtocolVersion } from '../core/protocol/messages';
import { placeholderChat, type ChatCommand, type ChatHandler } from './chat';
import { IdeConnection, type ReceivedMessage } from './connection';
import type { CallToolOptions } from './toolCalls';
import { SessionRegistry, type SessionInfo } from './registry';
import { allowedHost, allowedOrigin } from './requestGuard';
import { pickTarget } from './routing';
import { createHttpHandler } from './toolApi';

export type { SessionInfo } from './registry';
export type { ToolCallShape } from './toolCalls';

export const V2_PATH = '/ws/agent/chat';
export const V1_PATH = '/ws/analyze';

export interface DevBackendOptions {
  /** 0 picks a free port. Default 8080, the port the documents use. */
  readonly port?: number;
  readonly host?: string;
  /** When set, IDEs must present it (CONNECT message or `Authorization: Bearer` on upgrade). */
  readonly token?: string;
  /** How long a forwarded tool call waits for its TOOL_RESULT; the protocol says 30 s (docs/protocol.md §9.3). */
  readonly toolTimeoutMs?: number;
  readonly log?: (line: string) => void;
  /** What answers AGENT_CHAT / ANALYZE; the default says there is no agent yet. */
  readonly chat?: ChatHandler;
  /** The commands `chat` understands, announced to every IDE for its `/` menu (COMMANDS, docs/protocol.md §8.2). */
  readonly commands?: readonly ChatCommand[];
  /** Serve https:// and wss:// with this certificate chain and key (PEM) instead of plain http/ws. */
  readonly tls?: { readonly cert: string; readonly key: string };
}

interface SessionEvent {
  readonly kind: 'connected' | 'authenticated' | 'disconnected';
  readonly session: SessionInfo;
}

/** A session given by its webSocketSessionId or its listing entry. */
type SessionRef = string | SessionInfo;

export interface DevBackend {
  /** HTTP base, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly port: number;
  /** WebSocket URL for an endpoint path (default v2) with optional query parameters. */
  wsUrl(path?: string, query?: Record<string, string>): string;
  sessions(): SessionInfo[];
  /** Resolves with the first session matching `predicate` (default: any authenticated one). */
  waitForSession(predicate?: (s: SessionInfo) => boolean, timeoutMs?: number): Promise<SessionInfo>;
  /** Sends a TOOL_CALL (default: root shape, to the only connected IDE) and resolves with the raw TOOL_RESULT. */
  callTool(
    toolName: string,
    params?: Record<string, unknown>,
    opts?: CallToolOptions & { readonly session?: SessionRef },
  ): Promise<Record<string, unknown>>;
  /** Sends any text to an IDE, as is: for hostile-input tests. */
  sendRaw(session: SessionRef, text: string): void;
  /** Stops reading an IDE's frames (a stalled backend, for backpressure tests) until `resumeReading`. */
  pauseReading(session: SessionRef): void;
  resumeReading(session: SessionRef): void;
  /** Observes every frame received from any IDE; returns an unsubscribe function. */
  onMessage(listener: (event: ReceivedMessage) => void): () => void;
  onSession(listener: (event: SessionEvent) => void): () => void;
  /** Resolves with the next received frame matching `predicate`. */
  waitForMessage(predicate: (event: ReceivedMessage) => boolean, timeoutMs?: number): Promise<ReceivedMessage>;
  /** Terminates every IDE connection, fails their pending calls and frees the port. */
  close(): Promise<void>;
}

export async function startDevBackend(opts: DevBackendOptions = {}): Promise<DevBackend> {
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? (() => undefined);
  const registry = new SessionRegistry<IdeConnection>();
  const messageListeners = new Set<(event: ReceivedMessage) => void>();
  const sessionListeners = new Set<(event: SessionEvent) => void>();
  const emitSession = (kind: SessionEvent['kind'], session: SessionInfo): void => {
    for (const l of [...sessionListeners]) l({ kind, session });
  };

  const handler = createHttpHandler({ registry, startedAt: Date.now(), log, listenHost: host, token: opts.token });
  const server = opts.tls ? createTlsServer({ cert: opts.tls.cert, key: opts.tls.key }, handler) : createServer(handler);
  const scheme = opts.tls ? 's' : '';
  // Up to twice the limit is received so an oversize message gets a clear MESSAGE_TOO_LARGE
  // (docs/protocol.md §4.4); anything bigger still is cut off by ws with close code 1009.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES * 2 });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const protocol: ProtocolVersion | undefined = url.pathname === V2_PATH ? 'v2' : url.pathname === V1_PATH ? 'v1' : undefined;
    if (!protocol) {
      return rejectUpgrade(socket, 404, `No WebSocket endpoint at ${url.pathname}; use ${V2_PATH} (v2) or ${V1_PATH} (v1).`);
    }
    // A web page may open a WebSocket to loopback (no CORS for those): refuse foreign hosts and origins.
    if (!allowedHost(req.headers.host, host) || !allowedOrigin(req.headers.origin)) {
      log(`[ws] refused ${url.pathname}: Host ${req.headers.host ?? '-'}, Origin ${req.headers.origin ?? '-'}`);
      return rejectUpgrade(socket, 403, 'Only this machine may connect (Host and Origin must be loopback).');
    }
    const q = url.searchParams;
    const required = protocol === 'v1' ? ['sessionId', 'projectKey', 'projectPath'] : ['sessionId', 'projectKey'];
    const missing = required.filter((k) => !q.get(k));
    if (missing.length > 0) {
      log(`[ws] refused ${url.pathname}: missing ${missing.join(', ')}`);
      return rejectUpgrade(socket, 400, `Missing query parameter(s): ${missing.join(', ')}.`);
    }
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (opts.token && bearer !== undefined && bearer !== opts.token) {
      log(`[ws] refused ${url.pathname}: wrong bearer token`);
      return rejectUpgrade(socket, 401, 'Invalid bearer token.');
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const connection: IdeConnection = new IdeConnection(
        ws,
        {
          webSocketSessionId: randomUUID(),
          sessionId: q.get('sessionId') ?? '',
          projectKey: q.get('projectKey') ?? '',
          ...(q.get('projectPath') ? { projectPath: q.get('projectPath') ?? '' } : {}),
          ...(q.get('mode') ? { mode: q.get('mode') ?? '' } : {}),
          protocol,
          connectedAt: new Date().toISOString(),
          // v1 multi-turn: reuse the client's requestId, else generate one (docs/protocol.md §2.4).
          ...(protocol === 'v1' ? { requestId: q.get('requestId') || `req-${randomUUID()}` } : {}),
        },
        !opts.token || bearer === opts.token,
        {
          token: opts.token,
          toolTimeoutMs: opts.toolTimeoutMs ?? 30_000,
          chat: opts.chat ?? placeholderChat,
          ...(opts.commands ? { commands: opts.commands } : {}),
          log,
          onReceived: (event) => {
            for (const l of [...messageListeners]) l(event);
          },
          onAuthenticated: () => {
            registry.changed();
            emitSession('authenticated', connection.info());
          },
        },
      );
      const info = connection.info();
      registry.add(connection);
      ws.on('close', (code) => {
        registry.remove(info.webSocketSessionId);
        log(`[ws] - ${info.webSocketSessionId} disconnected (code ${code})`);
        emitSession('disconnected', connection.info());
      });
      log(
        `[ws] + ${info.protocol} ${info.webSocketSessionId} sessionId=${info.sessionId} projectKey=${info.projectKey}` +
          `${info.projectPath ? ` projectPath=${info.projectPath}` : ''}${info.authenticated ? '' : ' (awaiting CONNECT token)'}`,
      );
      connection.sendConnected();
      emitSession('connected', info);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8080, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? 8080);
  const hostInUrl = host.includes(':') ? `[${host}]` : host;

  const connectionFor = (ref: SessionRef | undefined): IdeConnection => {
    if (ref === undefined) {
      const found = pickTarget(registry.all(), {});
      if (!found.ok) throw new Error(found.error);
      return found.connection;
    }
    const id = typeof ref === 'string' ? ref : ref.webSocketSessionId;
    const connection = registry.get(id);
    if (!connection) throw new Error(`No IDE session ${id}`);
    return connection;
  };

  let closed = false;
  return {
    url: `http${scheme}://${hostInUrl}:${port}`,
    port,
    wsUrl: (path = V2_PATH, query) => {
      const search = query ? `?${new URLSearchParams(query).toString()}` : '';
      return `ws${scheme}://${hostInUrl}:${port}${path}${search}`;
    },
    sessions: () => registry.list(),
    waitForSession: (predicate = (s) => s.authenticated, timeoutMs = 5_000) => registry.waitFor(predicate, timeoutMs),
    callTool: async (toolName, params = {}, callOpts = {}) => connectionFor(callOpts.session).callTool(toolName, params, callOpts),
    sendRaw: (session, text) => connectionFor(session).sendRaw(text),
    pauseReading: (session) => connectionFor(session).setReading(false),
    resumeReading: (session) => connectionFor(session).setReading(true),
    onMessage: (listener) => subscribe(messageListeners, listener),
    onSession: (listener) => subscribe(sessionListeners, listener),
    waitForMessage: (predicate, timeoutMs = 5_000) =>
      new Promise<ReceivedMessage>((resolve, reject) => {
        const timer = setTimeout(() => {
          unsubscribe();
          reject(new Error(`No matching message within ${timeoutMs} ms`));
        }, timeoutMs);
        const unsubscribe = subscribe(messageListeners, (event) => {
          if (!predicate(event)) return;
          clearTimeout(timer);
          unsubscribe();
          resolve(event);
        });
      }),
    close: async () => {
      if (closed) return;
      closed = true;
      for (const connection of registry.all()) connection.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive HTTP sockets would otherwise hold the port open until they idle out.
        server.closeAllConnections();
      });
      log(`[server] closed ${hostInUrl}:${port}`);
    },
  };
}

function subscribe<T>(set: Set<(event: T) => void>, listener: (event: T) => void): () => void {
  set.add(listener);
  return () => void set.delete(listener);
}

/** Answers a refused upgrade with a plain HTTP error, which a WebSocket client reports as its status. */
function rejectUpgrade(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ success: false, error: message });
  const reason = { 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found' }[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}
