/**
 * The dev backend's HTTP side: the tool API (docs/protocol.md §9.3) (what Claude Code calls to reach the IDE),
 * a session listing so a developer can find a webSocketSessionId for curl, and a health check.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IdeConnection } from './connection';
import { executeTool } from './executeTool';
import { HttpError, reply, type Json } from './httpJson';
import type { SessionRegistry } from './registry';
import { refuseHttp } from './requestGuard';

export const TOOL_EXECUTE_PATH = '/api/claude-code/tools/execute';
export const SESSIONS_PATH = '/api/ide/sessions';
const HEALTH_PATH = '/health';

export interface ToolApiDeps {
  readonly registry: SessionRegistry<IdeConnection>;
  readonly startedAt: number;
  /** The address the server listens on (a Host header may name it besides loopback). */
  readonly listenHost: string;
  /** When set, every /api request must carry it as a Bearer token. */
  readonly token?: string;
  log(line: string): void;
}

/** Returns the `request` listener; it never rejects (every failure becomes a JSON answer). */
export function createHttpHandler(deps: ToolApiDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const routes: Record<string, Partial<Record<string, (req: IncomingMessage) => Promise<[number, Json]>>>> = {
    [TOOL_EXECUTE_PATH]: { POST: (req) => executeTool(req, deps) },
    [SESSIONS_PATH]: { GET: () => Promise.resolve([200, { sessions: deps.registry.list() }]) },
    [HEALTH_PATH]: {
      GET: () =>
        Promise.resolve([200, { status: 'ok', sessions: deps.registry.all().length, uptimeMs: Date.now() - deps.startedAt }]),
    },
  };

  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const refusal = refuseHttp(req, deps);
    if (refusal) {
      deps.log(`[http] refused ${req.method} ${path}: ${refusal.error}`);
      // Drain nothing: the body of a refused request is never read.
      res.setHeader('Connection', 'close');
      return reply(res, refusal.status, { success: false, error: refusal.error });
    }
    const methods = routes[path];
    const handler = methods?.[req.method ?? 'GET'];
    if (!methods) return reply(res, 404, { success: false, error: `No route ${path}` });
    if (!handler) {
      res.setHeader('Allow', Object.keys(methods).join(', '));
      return reply(res, 405, { success: false, error: `${req.method} is not allowed on ${path}` });
    }
    handler(req).then(
      ([status, body]) => reply(res, status, body),
      (err: unknown) => {
        if (err instanceof HttpError) return reply(res, err.status, { success: false, error: err.message });
        deps.log(`[http] ${path} failed: ${err instanceof Error ? err.stack : String(err)}`);
        reply(res, 500, { success: false, error: `Internal error: ${err instanceof Error ? err.message : String(err)}` });
      },
    );
  };
}
