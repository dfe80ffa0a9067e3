/**
 * The dev backend's HTTP side: the tool API (docs/protocol.md §9.3) (what Claude Code calls to reach the IDE),
 * a session listing so a developer can find a webSocketSessionId for curl, and a health check.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_MESSAGE_BYTES } from '../core/protocol/messages';
import type { IdeConnection } from './connection';
import { IdeGoneError, ToolCallTimeoutError } from './toolCalls';
import type { SessionRegistry } from './registry';
import { refuseHttp } from './requestGuard';

export const TOOL_EXECUTE_PATH = '/api/claude-code/tools/execute';
export const SESSIONS_PATH = '/api/ide/sessions';
export const HEALTH_PATH = '/health';

export interface ToolApiDeps {
  readonly registry: SessionRegistry<IdeConnection>;
  readonly startedAt: number;
  /** The address the server listens on (a Host header may name it besides loopback). */
  readonly listenHost: string;
  /** When set, every /api request must carry it as a Bearer token. */
  readonly token?: string;
  log(line: string): void;
}

type Json = Record<string, unknown>;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
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

/** docs/protocol.md §9.3: forward one tool to the chosen IDE and answer with its TOOL_RESULT's data. */
async function executeTool(req: IncomingMessage, deps: ToolApiDeps): Promise<[number, Json]> {
  const body = await readJsonBody(req);
  const tool = body.tool;
  if (typeof tool !== 'string' || tool.length === 0) throw new HttpError(400, 'Body must have a non-empty string "tool".');
  const params = body.params ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new HttpError(400, '"params" must be a JSON object.');
  }
  const criteria = {
    webSocketSessionId: optionalString(body, 'webSocketSessionId'),
    sessionId: optionalString(body, 'sessionId'),
    projectKey: optionalString(body, 'projectKey'),
  };
  const target = deps.registry.find(criteria);
  if (!target.ok) {
    deps.log(`[http] ${tool}: ${target.error}`);
    return [target.status, { success: false, error: target.error }];
  }
  deps.log(`[http] ${tool} → ${target.connection.webSocketSessionId} (matched by ${target.rule})`);
  const call = target.connection.startToolCall(tool, params as Json);
  try {
    const message = await call.done;
    const data = (message.data ?? {}) as Json;
    return [
      200,
      {
        success: data.success === true,
        result: data.result ?? null,
        error: data.error ?? null,
        code: data.code ?? null,
        executionTime: data.executionTime ?? null,
        ...(data.structured !== undefined ? { structured: data.structured } : {}),
        toolCallId: call.id,
      },
    ];
  } catch (err) {
    if (err instanceof ToolCallTimeoutError) {
      return [504, { success: false, error: err.message, code: 'TIMEOUT', toolCallId: call.id }];
    }
    if (err instanceof IdeGoneError) {
      return [502, { success: false, error: err.message, code: 'CANCELLED', toolCallId: call.id }];
    }
    throw err;
  }
}

function optionalString(body: Json, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new HttpError(400, `"${key}" must be a string.`);
  return value;
}

/** Reads at most one protocol message's worth of body, so a runaway client cannot exhaust memory. */
async function readJsonBody(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.byteLength;
    if (size > MAX_MESSAGE_BYTES) throw new HttpError(413, `Body exceeds ${MAX_MESSAGE_BYTES} bytes.`);
    chunks.push(buffer);
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new HttpError(400, `Body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new HttpError(400, 'Body must be a JSON object.');
  return json as Json;
}

function reply(res: ServerResponse, status: number, body: Json): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
