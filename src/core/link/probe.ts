/**
 * Test Connection: one handshake with the backend through the link's own code (BridgeConnection),
 * and what its outcome was, as a kind the editor turns into a sentence. Nothing is answered and
 * nothing reconnects: the probe closes as soon as it knows.
 */
import { BridgeConnection, buildConnectUrl, carriesToken, exposesToken, type ConnectionOptions } from './connection';
import type { ProtocolVersion } from '../protocol/messages';
import { explainTlsError } from './tlsErrors';

type ProbeFailure =
  /** serverUrl is not a ws:// or wss:// URL. */
  | 'badUrl'
  /** A token would go over plain ws:// to another machine, so no connection was tried. */
  | 'insecureToken'
  /** Nothing listens at the host and port (ECONNREFUSED). */
  | 'refused'
  /** The host name does not resolve. */
  | 'dns'
  /** The TLS handshake failed (untrusted, expired or misnamed certificate, or not TLS at all). */
  | 'tls'
  /** HTTP 401, or a close about the token after the handshake: the token is missing or wrong. */
  | 'unauthorized'
  /** HTTP 403: the backend refuses this client (its origin, host or token). */
  | 'forbidden'
  /** HTTP 404: a server answers, but has no WebSocket endpoint at that path. */
  | 'notFound'
  /** Another HTTP status instead of the WebSocket upgrade. */
  | 'httpStatus'
  /** No answer within the time allowed. */
  | 'timeout'
  /** The connection was opened, then closed or reset by the other side. */
  | 'closed'
  | 'other';

export type ProbeOutcome =
  | { readonly ok: true; readonly protocol: ProtocolVersion; readonly url: string; readonly tokenSent: boolean; readonly greeted: boolean }
  | { readonly ok: false; readonly kind: ProbeFailure; readonly url: string; readonly tokenSent: boolean; readonly status?: number; readonly detail: string };

export interface ProbeOptions extends Omit<ConnectionOptions, 'timing'> {
  /** How long the whole attempt may take (handshake included). */
  readonly timeoutMs?: number;
  /** After the socket opened, how long to watch for a refusal (a CONNECT token checked late) before calling it good. */
  readonly settleMs?: number;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|UNABLE_TO_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|EPROTO$)/;

/** What a failed attempt's socket error (or its absence) means. */
function classifyFailure(err: (Error & { code?: string }) | undefined, lastError: string | undefined, authRejected: boolean): { kind: ProbeFailure; status?: number } {
  const code = err?.code ?? '';
  const message = err?.message ?? lastError ?? '';
  const status = /Unexpected server response: (\d{3})/.exec(message)?.[1];
  if (status) {
    const n = Number(status);
    const kind: ProbeFailure = n === 401 ? 'unauthorized' : n === 403 ? 'forbidden' : n === 404 ? 'notFound' : 'httpStatus';
    return { kind, status: n };
  }
  // Refused after the socket opened: a close about the token, or an ERROR saying unauthorized.
  if (authRejected) return { kind: 'unauthorized' };
  if (code === 'ECONNREFUSED') return { kind: 'refused' };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return { kind: 'dns' };
  if (TLS_CODE.test(code) || /certificate|SSL routines|wrong version number/i.test(message)) return { kind: 'tls' };
  if (code === 'ETIMEDOUT' || /handshake has timed out/i.test(message)) return { kind: 'timeout' };
  if (code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up/i.test(message) || !err) return { kind: 'closed' };
  return { kind: 'other' };
}

/** Connects once with `options` (the live link's settings and token), waits for the outcome, and closes. */
export async function probeBackend(options: ProbeOptions): Promise<ProbeOutcome> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const settleMs = options.settleMs ?? 750;
  let url: URL;
  try {
    url = buildConnectUrl(options);
  } catch (e) {
    return { ok: false, kind: 'badUrl', url: options.serverUrl, tokenSent: false, detail: (e as Error).message };
  }
  const shown = `${url.origin}${url.pathname}`;
  const headers = (await options.headers?.()) ?? {};
  const tokenSent = carriesToken(headers);
  if (exposesToken(url, headers)) {
    return { ok: false, kind: 'insecureToken', url: shown, tokenSent, detail: `ws:// to ${url.hostname}` };
  }
  const connection = new BridgeConnection({ ...options, timing: { handshakeTimeoutMs: timeoutMs } });
  return new Promise<ProbeOutcome>((resolve) => {
    let settle: NodeJS.Timeout | undefined;
    let greeted = false;
    const succeed = (): void => finish({ ok: true, protocol: connection.protocol, url: shown, tokenSent, greeted });
    const fail = (): void => {
      const err = connection.lastSocketError;
      const { kind, status } = classifyFailure(err, connection.lastError, connection.authRejected);
      const detail = (kind === 'tls' && err ? explainTlsError(err, undefined) : undefined) ?? connection.lastError ?? err?.message ?? 'closed';
      finish({ ok: false, kind, url: shown, tokenSent, ...(status ? { status } : {}), detail });
    };
    const deadline = setTimeout(() => finish({ ok: false, kind: 'timeout', url: shown, tokenSent, detail: `no answer within ${timeoutMs} ms` }), timeoutMs + 500);
    const offState = connection.onState((state) => {
      // Open is not yet accepted: a backend that checks the CONNECT token closes right after it.
      if (state === 'connected') settle ??= setTimeout(succeed, settleMs);
      else if (state === 'reconnecting' || state === 'disconnected') fail();
    });
    const offMessage = connection.onMessage((m) => {
      if (m.type === 'CONNECTED') greeted = true;
    });
    let done = false;
    function finish(outcome: ProbeOutcome): void {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearTimeout(settle);
      offState();
      offMessage();
      connection.disconnect();
      resolve(outcome);
    }
    connection.connect();
  });
}
