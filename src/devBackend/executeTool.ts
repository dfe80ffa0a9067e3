/** The tool API's one endpoint that reaches an IDE (docs/protocol.md §9.3): the body checked, the IDE picked, the call forwarded and its answer or failure turned into HTTP. */
import type { IncomingMessage } from 'node:http';
import type { IdeConnection } from './connection';
import { HttpError, optionalString, readJsonBody, type Json } from './httpJson';
import type { SessionRegistry } from './registry';
import { pickTarget } from './routing';
import { IdeGoneError, ToolCallTimeoutError } from './toolCalls';

/** docs/protocol.md §9.3: forward one tool to the chosen IDE and answer with its TOOL_RESULT's data. */
export async function executeTool(req: IncomingMessage, deps: { readonly registry: SessionRegistry<IdeConnection>; log(line: string): void }): Promise<[number, Json]> {
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
  const target = pickTarget(deps.registry.all(), criteria);
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
