import assert from 'node:assert/strict';
import { silentLogger } from './silentLogger';
import { ToolError } from '../../src/core/protocol/errors';
import type { ToolDefinition, ToolOutput } from '../../src/core/tools/tool';
import { resolveToolPaths } from '../../src/core/tools/toolPaths';
import type { Workspace } from '../../src/core/workspace/workspace';

/** Runs a tool's handler as the dispatcher would: params through its schema, over `ws`. */
export async function callTool(
  tool: ToolDefinition,
  ws: Workspace,
  params: Record<string, unknown>,
  signal: AbortSignal = new AbortController().signal,
): Promise<ToolOutput> {
  const parsed = tool.params.parse(params);
  const { paths } = await resolveToolPaths(tool, parsed, ws);
  return tool.handler(parsed, { workspace: ws, callId: 'test', signal, log: silentLogger, paths });
}

/** Asserts that `p` rejects with a ToolError of `code`, its message matching `message` when given. */
export async function failsWith(p: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ToolError, `expected a ToolError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (message) assert.match(e.message, message);
    return true;
  });
}
