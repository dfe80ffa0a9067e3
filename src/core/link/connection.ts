import WebSocket from 'ws';
import type { Logger } from '../log';
import type { TlsTrust } from './systemCa';
import { MAX_MESSAGE_BYTES, parseServerMessage, type ClientMessage, type ParseOutcome, type ProtocolVersion, type ServerMessage } from '../protocol/messages';
import { Outflow } from './outflow';
import { explainTlsError } from './tlsErrors';

export type ProtocolSetting = 'auto' | ProtocolVersion;
export type ConnectionState = 'disconnected' | 'connecting' | 'connected' | 'reconnecting';

export interface ConnectionTiming {
  /** PING every this often (spec: 30 s). */
  readonly pingIntervalMs: number;
  /** No traffic for this long means the link is dead (spec: 60 s). */
  readonly deadAfterMs: number;
  /** First reconnect delay, doubled per failure up to the cap (1 s → 30 s). */
  readonly backoffBaseMs: number;
  readonly backoffCapMs: number;
  /** How long the opening handshake may take. */
  readonly handshakeTimeoutMs: number;
}

const DEFAULT_TIMING: ConnectionTiming = {
  pingIntervalMs: 30_000,
  deadAfterMs: 60_000,
  backoffBaseMs: 1_000,
  backoffCapMs: 30_000,
  handshakeTimeoutMs: 10_000,
};

export interface ConnectionOptions {
  /** The `serverUrl` setting: where the backend listens. */
  readonly serverUrl: string;
  readonly protocol: ProtocolSetting;
  readonly sessionId: string;
  readonly projectKey: string;
  /** Absolute project root, sent to v1 backends. */
  readonly projectPath: string;
  readonly log: Logger;
  readonly timing?: Partial<ConnectionTiming>;
  /** Extra handshake headers (e.g. Authorization). */
  readonly headers?: () => Promise<Record<string, string>>;
  /** Messages to send first on every open (e.g. CONNECT with a token). */
  readonly greeting?: () => Promise<ClientMessage[]>;
  /**
   * For `wss://` URLs only: the certificate authorities to verify the backend with (Node's roots
   * plus the system's, see security/systemCa.ts), read on every attempt. Undefined: Node's defaults.
   */
  readonly trust?: () => Promise<TlsTrust | undefined>;
  /** For tests: the jitter source. */
  readonly random?: () => number;
}


/**
 * localhost, 127.0.0.0/8 or ::1: the only hosts a token may go to over plain ws://. Not
 * `*.localhost`: Node asks the ordinary resolver for those names, which may answer any address.
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/** Whether the handshake headers carry a token (an Authorization header). */
export const carriesToken = (headers: Record<string, string>): boolean => Object.keys(headers).some((k) => k.toLowerCase() === 'authorization');

/** A token over plain ws:// to another machine would reach anyone on the path: such a link is never opened. */
export function exposesToken(url: URL, headers: Record<string, string>): boolean {
  return carriesToken(headers) && url.protocol === 'ws:' && !isLoopbackHost(url.hostname);
}

/** v1 when the setting says so, or when the URL path is `/ws/analyze` under `auto`. */
export function resolveProtocol(serverUrl: string, setting: ProtocolSetting): ProtocolVersion {
  if (setting !== 'auto') return setting;
  return new URL(serverUrl).pathname.replace(/\/+$/, '').endsWith('/ws/analyze') ? 'v1' : 'v2';
}

/** The handshake URL of v1 or v2 (docs/protocol.md §2.1), keeping any query the user put in the setting. */
export function buildConnectUrl(o: Pick<ConnectionOptions, 'serverUrl' | 'protocol' | 'sessionId' | 'projectKey' | 'projectPath'>): URL {
  const url = new URL(o.serverUrl);
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new Error(`serverUrl must start with ws:// or wss:// (got ${url.protocol}//)`);
  }
  const protocol = resolveProtocol(o.serverUrl, o.protocol);
  if (url.pathname === '/' || url.pathname === '') {
    url.pathname = protocol === 'v1' ? '/ws/analyze' : '/ws/agent/chat';
  }
  url.searchParams.set('sessionId', o.sessionId);
  url.searchParams.set('projectKey', o.projectKey);
  if (protocol === 'v1') {
    url.searchParams.set('projectPath', o.projectPath);
    if (!url.searchParams.has('mode')) url.searchParams.set('mode', 'claude-code');
  }
  return url;
}

/** Delay before reconnect attempt `attempt` (0-based): doubling from base to cap, ±20 % jitter. */
export function backoffDelay(attempt: number, timing: Pick<ConnectionTiming, 'backoffBaseMs' | 'backoffCapMs'>, random = Math.random): number {
  const raw = Math.min(timing.backoffCapMs, timing.backoffBaseMs * 2 ** Math.min(attempt, 30));
  return Math.min(timing.backoffCapMs, Math.round(raw * (0.8 + 0.4 * random())));
}

type Listener<T> = (value: T) => void;

/**
 * The link to the agent backend. Keeps itself alive: PINGs on an interval, declares the link dead
 * after a silence, and reconnects with backoff forever until `disconnect()` is called.
 */
export class BridgeConnection {
  private socket: WebSocket | undefined;
  private readonly outflow: Outflow;
  private stateValue: ConnectionState = 'disconnected';
  private wanted = false;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** When the next reconnect attempt starts (ms since the epoch), while one is scheduled. */
  retryAt: number | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private deadTimer: NodeJS.Timeout | undefined;
  private readonly timing: ConnectionTiming;
  private readonly stateListeners = new Set<Listener<ConnectionState>>();
  private readonly messageListeners = new Set<Listener<ServerMessage>>();
  private readonly rejectListeners = new Set<Listener<Exclude<ParseOutcome, { ok: true }>>>();
  /** `requestId` from the last CONNECTED (kept for v1 multi-turn). */
  requestId: string | undefined;
  /** Why the last attempt failed, for the status bar and log. */
  lastError: string | undefined;
  /** The socket error behind `lastError`, when there was one: its code tells a closed port from a DNS failure (probe.ts). */
  lastSocketError: (Error & { code?: string }) | undefined;
  /** Whether the last handshake carried a token (an Authorization header). */
  private sentToken = false;
  /** Set when the backend refused our credentials: retrying cannot help, so the link stops. */
  private authRefusal: string | undefined;

  constructor(private readonly options: ConnectionOptions) {
    this.timing = { ...DEFAULT_TIMING, ...options.timing };
    this.outflow = new Outflow(options.log, () => this.socket);
  }

  get state(): ConnectionState {
    return this.stateValue;
  }

  /** True after the backend refused the token (or asked for one): the link stays down until `connect()`. */
  get authRejected(): boolean {
    return this.authRefusal !== undefined;
  }

  get protocol(): ProtocolVersion {
    return resolveProtocol(this.options.serverUrl, this.options.protocol);
  }

  onState(listener: Listener<ConnectionState>): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  onMessage(listener: Listener<ServerMessage>): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  /** Messages that failed to parse (with a ready reply when they were answerable tool calls). */
  onRejected(listener: Listener<Exclude<ParseOutcome, { ok: true }>>): () => void {
    this.rejectListeners.add(listener);
    return () => this.rejectListeners.delete(listener);
  }

  connect(): void {
    if (this.wanted) return;
    this.wanted = true;
    this.attempt = 0;
    this.authRefusal = undefined;
    void this.open();
  }

  /** Stops for good (until `connect()`): no reconnects. */
  disconnect(): void {
    this.wanted = false;
    clearTimeout(this.reconnectTimer);
    this.stopTimers();
    const socket = this.socket;
    this.socket = undefined;
    if (socket) {
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.close(1000, 'disconnected by user');
      // A peer that never answers the close frame must not keep the socket alive.
      setTimeout(() => socket.terminate(), 2000).unref();
    }
    this.setState('disconnected');
  }

  /**
   * Sends `message` (as `text`, when the caller has serialized it already); false when the link is
   * not up. Backpressure: once more than SEND_BUFFER_HIGH bytes wait to go out (a backend that
   * stopped reading), no further frame is read from it, so no new call starts and nothing grows
   * without bound; reading resumes when the buffer drains below SEND_BUFFER_LOW.
   */
  send(message: ClientMessage, text?: string): boolean {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN || this.stateValue !== 'connected') return false;
    this.outflow.send(socket, text ?? JSON.stringify(message));
    return true;
  }

  /** True while reading is paused because the backend is not reading our answers. */
  get heldBack(): boolean {
    return this.socket?.isPaused ?? false;
  }

  /** `again`: tell the listeners even if the state is the same (a new reconnect time to show). */
  private setState(state: ConnectionState, again = false): void {
    if (state !== 'reconnecting') this.retryAt = undefined;
    if (state === this.stateValue && !again) return;
    this.stateValue = state;
    for (const l of this.stateListeners) l(state);
  }

  private async open(): Promise<void> {
    if (!this.wanted) return;
    this.retryAt = undefined;
    this.setState(this.attempt === 0 ? 'connecting' : 'reconnecting');
    let url: URL;
    let headers: Record<string, string> = {};
    let trust: TlsTrust | undefined;
    try {
      url = buildConnectUrl(this.options);
      headers = (await this.options.headers?.()) ?? {};
      if (url.protocol === 'wss:') trust = await this.options.trust?.();
    } catch (e) {
      this.lastError = (e as Error).message;
      this.options.log.error(`cannot connect: ${this.lastError}`);
      this.scheduleReconnect();
      return;
    }
    if (!this.wanted) return;
    this.sentToken = carriesToken(headers);
    this.lastSocketError = undefined;
    if (exposesToken(url, headers)) {
      // Plain ws:// to another machine would hand the token to anyone on the path.
      this.wanted = false;
      this.lastError = `Not connecting: the backend token would be sent unencrypted to ${url.hostname} over ws://. Use a wss:// URL for a backend on another machine (ws:// is only for this machine: localhost, 127.0.0.1, ::1).`;
      this.options.log.error(this.lastError);
      this.setState('disconnected');
      return;
    }
    const shown = new URL(url);
    this.options.log.info(`connecting to ${shown.origin}${shown.pathname} (${this.protocol}, attempt ${this.attempt + 1})`);
    if (trust) this.options.log.debug(`TLS trust: ${trust.describe}`);
    const socket = new WebSocket(url, {
      headers,
      ...(trust ? { ca: trust.ca } : {}),
      handshakeTimeout: this.timing.handshakeTimeoutMs,
      // Oversized frames are refused by the parser, not by tearing down the link.
      maxPayload: MAX_MESSAGE_BYTES * 4,
    });
    this.socket = socket;

    socket.on('open', () => void this.onOpen(socket));
    socket.on('message', (data) => this.onData(data));
    socket.on('ping', () => this.sawTraffic());
    socket.on('pong', () => this.sawTraffic());
    socket.on('error', (err) => {
      this.lastSocketError = err;
      const tlsProblem = explainTlsError(err, trust?.describe);
      this.lastError = tlsProblem ?? err.message;
      if (tlsProblem) this.options.log.error(tlsProblem);
      else this.options.log.warn(`link error: ${err.message}`);
      const status = /Unexpected server response: (401|403)\b/.exec(err.message)?.[1];
      if (status) this.refusedAuth(`HTTP ${status}`);
    });
    socket.on('close', (code, reason) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.stopTimers();
      const why = reason.toString();
      this.options.log.info(`link closed (${code}${why.length ? ` ${why}` : ''})`);
      // 1008 (policy violation) with a reason about tokens: the backend's way to refuse a CONNECT.
      if (code === 1008 && /token|auth/i.test(why)) this.refusedAuth(why);
      this.scheduleReconnect();
    });
  }

  private async onOpen(socket: WebSocket): Promise<void> {
    this.lastError = undefined;
    this.sawTraffic();
    this.pingTimer = setInterval(() => this.ping(), this.timing.pingIntervalMs);
    try {
      for (const m of (await this.options.greeting?.()) ?? []) socket.send(JSON.stringify(m));
    } catch (e) {
      this.options.log.warn(`greeting failed: ${(e as Error).message}`);
    }
    if (this.socket !== socket) return;
    this.options.log.info('connected');
    this.setState('connected');
  }

  private ping(): void {
    const socket = this.socket;
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'PING', data: { timestamp: Date.now() } }));
  }

  /** Any inbound traffic proves the link alive; silence past the limit kills it. */
  private sawTraffic(): void {
    if (this.deadTimer) {
      this.deadTimer.refresh();
      return;
    }
    this.deadTimer = setTimeout(() => {
      this.options.log.warn(`no traffic for ${this.timing.deadAfterMs} ms: link declared dead`);
      this.lastError = 'backend stopped answering';
      this.socket?.terminate();
    }, this.timing.deadAfterMs);
  }

  private stopTimers(): void {
    clearInterval(this.pingTimer);
    clearTimeout(this.deadTimer);
    this.pingTimer = undefined;
    this.deadTimer = undefined;
  }

  /** The backend refused our credentials: say why, and stop retrying (a wrong token stays wrong). */
  private refusedAuth(detail: string): void {
    if (this.authRefusal !== undefined) return;
    this.authRefusal = this.sentToken
      ? `The backend refused the token (${detail}). Set the right token, then connect again.`
      : `The backend requires a token (${detail}). Set one, then connect again.`;
  }

  private scheduleReconnect(): void {
    if (this.wanted && this.authRefusal !== undefined) {
      this.wanted = false;
      this.lastError = this.authRefusal;
      this.options.log.error(`${this.authRefusal} Not reconnecting.`);
    }
    if (!this.wanted) {
      this.setState('disconnected');
      return;
    }
    const delay = backoffDelay(this.attempt, this.timing, this.options.random);
    this.attempt++;
    // Set before the state event, so those who show the state can count down to the next attempt.
    this.retryAt = Date.now() + delay;
    this.setState('reconnecting', true);
    this.options.log.info(`reconnecting in ${delay} ms`);
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => void this.open(), delay);
  }

  private onData(data: WebSocket.RawData): void {
    this.sawTraffic();
    // A peer that talks is a peer that works: the next failure starts the backoff from 1 s again.
    this.attempt = 0;
    const raw = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    const outcome = parseServerMessage(raw);
    if (outcome.ok === true) {
      const message = outcome.message;
      if (message.type === 'PING') {
        this.socket?.send(JSON.stringify({ type: 'PONG', data: { timestamp: message.data?.timestamp ?? Date.now() } }));
      } else if (message.type === 'CONNECTED' && message.data?.requestId) {
        this.requestId = message.data.requestId;
      } else if (message.type === 'ERROR' && /^(UNAUTHORIZED|UNAUTHENTICATED|FORBIDDEN|INVALID_TOKEN|AUTH.*)$/i.test(message.data?.code ?? '')) {
        this.refusedAuth(message.data?.message ?? message.data?.code ?? 'unauthorized');
      }
      for (const l of this.messageListeners) this.tell(l, message);
      return;
    }
    for (const l of this.rejectListeners) this.tell(l, outcome);
  }

  /** A listener that throws is logged; it must not end the host from inside the socket's event handler. */
  private tell<T>(listener: Listener<T>, value: T): void {
    try {
      listener(value);
    } catch (e) {
      this.options.log.error(`a message listener failed: ${(e as Error)?.stack ?? String(e)}`);
    }
  }
}
