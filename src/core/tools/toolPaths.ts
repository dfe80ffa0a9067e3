import { accessPolicy, type Access } from '../policy/accessPolicy';
import type { Workspace } from '../workspace/workspace';
import type { NamedPaths, ResolvedPaths, ToolDefinition } from './tool';

/** A call's paths as the access policy judged them, and the secret file a writing tool aims at, if any. */
export interface JudgedToolPaths {
  readonly paths: ResolvedPaths<NamedPaths>;
  readonly secretTarget?: Access;
}

/**
 * Runs every path a call names (`tool.paths(params)`) through the access policy, before the tool
 * runs: outside the project is refused, and so is a secret path for a reading tool. A writing tool
 * may aim at a secret file (a person is asked later); its answer then says nothing of the file.
 */
export async function resolveToolPaths(tool: ToolDefinition, params: unknown, ws: Workspace): Promise<JudgedToolPaths> {
  const policy = accessPolicy(ws);
  const paths: Record<string, Access> = {};
  let secretTarget: Access | undefined;
  for (const [name, requested] of Object.entries(tool.paths?.(params) ?? {})) {
    if (requested === undefined) continue;
    const access = await policy.resolve(requested);
    paths[name] = access;
    if (access.kind !== 'secret') continue;
    if (!tool.writes) throw policy.denial(access);
    secretTarget = access;
  }
  return { paths, secretTarget };
}
