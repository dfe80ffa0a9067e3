/** The rule that picks the IDE for a tool call among the connected ones, apart from the table (registry.ts) so it reads, and changes, in one place. */
import type { RegisteredConnection, SessionInfo } from './registry';

/** How a tool call names its target; every field optional (the HTTP body, docs/protocol.md §9.3). */
export interface TargetCriteria {
  readonly webSocketSessionId?: string;
  readonly sessionId?: string;
  readonly projectKey?: string;
}

export type TargetLookup<C> =
  | { readonly ok: true; readonly connection: C; readonly rule: string }
  | { readonly ok: false; readonly status: 404 | 409; readonly error: string };

/**
 * Picks the IDE for a tool call. An explicit webSocketSessionId must match exactly (docs/protocol.md §9.1:
 * "WebSocket Session not found"); a sessionId that matches wins; a projectKey must match; with
 * nothing that matches, the only connected IDE is taken, which is what a developer with curl
 * and one VS Code window expects. Unauthenticated connections never receive tool calls.
 */
export function pickTarget<C extends RegisteredConnection>(connections: readonly C[], criteria: TargetCriteria): TargetLookup<C> {
  const ready = connections.filter((c) => c.info().authenticated);
  // Newest first: after a reconnect the old socket may linger for a moment.
  ready.sort((a, b) => b.info().connectedAt.localeCompare(a.info().connectedAt));
  const describe = (): string =>
    ready.length === 0
      ? 'none is connected'
      : `connected: ${ready.map((c) => summarize(c.info())).join(', ')} (see GET /api/ide/sessions)`;

  if (criteria.webSocketSessionId) {
    const hit = ready.find((c) => c.info().webSocketSessionId === criteria.webSocketSessionId);
    return hit
      ? { ok: true, connection: hit, rule: 'webSocketSessionId' }
      : { ok: false, status: 404, error: `No IDE connected with webSocketSessionId ${criteria.webSocketSessionId}; ${describe()}` };
  }
  if (criteria.sessionId) {
    const hit = ready.find((c) => c.info().sessionId === criteria.sessionId);
    if (hit) return { ok: true, connection: hit, rule: 'sessionId' };
  }
  if (criteria.projectKey) {
    const hit = ready.find((c) => c.info().projectKey === criteria.projectKey);
    return hit
      ? { ok: true, connection: hit, rule: 'projectKey' }
      : { ok: false, status: 404, error: `No IDE connected for projectKey ${criteria.projectKey}; ${describe()}` };
  }
  if (ready.length === 1) return { ok: true, connection: ready[0], rule: 'only IDE connected' };
  if (ready.length === 0) return { ok: false, status: 404, error: 'No IDE connected to the dev backend.' };
  return {
    ok: false,
    status: 409,
    error: `${ready.length} IDEs are connected; pass webSocketSessionId, sessionId or projectKey to pick one. ${describe()}`,
  };
}

function summarize(s: SessionInfo): string {
  return `${s.webSocketSessionId} (${s.protocol}, sessionId=${s.sessionId}, projectKey=${s.projectKey})`;
}
