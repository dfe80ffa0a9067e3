import type { z } from 'zod';
import type { Logger } from '../log';
import type { Access } from '../policy/accessPolicy';
import type { WriteContext } from '../write/write';

/** What a tool handler gets besides its params. */
export interface ToolContext extends WriteContext {
  readonly log: Logger;
}

/** The paths a tool names, by the names its `paths()` gives them, as the agent wrote them. */
export type NamedPaths = Readonly<Record<string, string | undefined>>;

/** The same paths resolved and judged by the access policy: absent exactly where the param was. */
export type ResolvedPaths<P extends NamedPaths> = { readonly [K in keyof P]: P[K] extends string ? Access : Access | undefined };

/** A successful tool answer: `result` is the string the agent reads; `structured` the same facts for machines. */
export interface ToolOutput {
  readonly result: string;
  readonly structured?: unknown;
}

/** One tool: its wire name, its params schema, and its handler. Failures throw `ToolError`. */
export interface ToolDefinition<S extends z.ZodType = z.ZodType, P extends NamedPaths = NamedPaths> {
  readonly name: string;
  readonly description: string;
  /** True for tools that change files: they need approval and are refused where writing is not allowed. */
  readonly writes: boolean;
  readonly params: S;
  /**
   * The project paths this call names (files or folders, as the agent wrote them; undefined where a
   * param is absent), each under a name of the tool's choosing. The dispatcher runs each through
   * the access policy (`resolveToolPaths`) and hands the handler the results under the same names:
   * a path outside the project is refused, a secret one refused to a reading tool, and a writing
   * tool's answer about a secret one never quotes it.
   */
  paths?(params: z.output<S>): P;
  handler(params: z.output<S>, ctx: ToolContext & { readonly paths: ResolvedPaths<P> }): Promise<ToolOutput>;
}

/** Keeps the schema's inferred type attached to the handler while the registry stores the wide type. */
export function defineTool<S extends z.ZodType, P extends NamedPaths = Record<never, never>>(tool: ToolDefinition<S, P>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

/** The edit tools answer with a JSON string; `structured` is exactly that JSON parsed (undefined fields dropped). */
export function jsonOutput(data: object): ToolOutput {
  const result = JSON.stringify(data);
  return { result, structured: JSON.parse(result) as unknown };
}
