/**
 * Who may talk to the dev backend. It listens on loopback, but any web page the developer opens
 * can send requests to loopback too (CVE-2025-52882 was exactly that against an IDE link), so:
 *
 *  - the Host header must name this machine (loopback, or the host it was told to listen on):
 *    a DNS-rebinding page arrives with its own host name;
 *  - an Origin header, when a browser sends one, must be a loopback origin;
 *  - a POST must be `application/json`: a browser cannot send that cross-origin without a
 *    preflight, which this server never grants (`text/plain` "simple requests" are refused);
 *  - with a token configured, every /api request carries it as `Authorization: Bearer`.
 */
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '../core/link/connection';
import { sameSecret } from './secret';

export interface RequestRefusal {
  readonly status: number;
  readonly error: string;
}

/** The host name of a Host header (`[::1]:8080` → `::1`, `localhost:80` → `localhost`). */
function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'));
  return h.replace(/:\d+$/, '');
}

/** Whether `header` (Host) names this server: loopback, or exactly the address it listens on. */
export function allowedHost(header: string | undefined, listenHost: string): boolean {
  if (!header) return false;
  const name = hostName(header);
  return isLoopbackHost(name) || (name === listenHost.toLowerCase() && name !== '0.0.0.0' && name !== '::');
}

/** Whether an Origin header comes from a page served by this machine's loopback (or is absent: curl, the IDE). */
export function allowedOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname);
  } catch {
    return false; // "null" (a sandboxed frame, a file: page) and anything unparsable
  }
}

/** Why an HTTP request is refused, or undefined when it may go on. */
export function refuseHttp(req: IncomingMessage, o: { listenHost: string; token?: string }): RequestRefusal | undefined {
  if (!allowedHost(req.headers.host, o.listenHost)) return { status: 403, error: `Host "${req.headers.host ?? ''}" is not this machine; the dev backend answers loopback requests only.` };
  if (!allowedOrigin(req.headers.origin)) return { status: 403, error: `Requests from the web page ${req.headers.origin} are refused.` };
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (req.method === 'POST' && !/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
    return { status: 415, error: 'Content-Type must be application/json.' };
  }
  if (o.token && path.startsWith('/api/')) {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer === undefined || !sameSecret(bearer, o.token)) return { status: 401, error: 'This dev backend needs its token: send Authorization: Bearer <token>.' };
  }
  return undefined;
}
