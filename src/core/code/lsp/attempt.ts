import * as path from 'node:path';
import { ToolError } from '../../protocol/errors';
import type { Logger } from '../../log';
import { withinDeadline } from '../../deadline';
import type { Workspace } from '../../workspace/workspace';
import { LspSession } from './lspLookup';

/**
 * Which source answers a code tool: the editor's language server when the workspace has one and
 * it knows the target, else the extension's parser. The language-server attempt has a budget of
 * its own (servers can hang while starting): past it, or on any failure, the parser answers and
 * the log says why.
 */

export type Source = 'parser' | 'language-server';
export const LSP_SOURCE = 'language-server' as const;
/** The whole language-server attempt of one tool call gives up after this long. */
const LSP_BUDGET_MS = 12_000;

export interface LspAttempt<T> {
  /** Undefined: no server, nothing found, or it failed (then `note` says how). */
  readonly value?: T;
  readonly note?: string;
}

export async function viaLanguageServer<T>(ctx: { readonly workspace: Workspace; readonly log: Logger }, tool: string, run: (s: LspSession) => Promise<T | undefined>, budgetMs = LSP_BUDGET_MS): Promise<LspAttempt<T>> {
  const intel = ctx.workspace.languageIntel;
  if (!intel) return {};
  const session = new LspSession(ctx.workspace, intel, ctx.log);
  try {
    const outcome = await withinDeadline(run(session), budgetMs);
    if (outcome.kind !== 'done') {
      const note = `the language server did not answer within ${budgetMs / 1000} s (it may still be starting)`;
      ctx.log.info(`${tool}: ${note}; answering from the parser`);
      return { note };
    }
    return outcome.value === undefined ? {} : { value: outcome.value };
  } catch (e) {
    if (e instanceof ToolError) throw e;
    const note = `the language server failed: ${e instanceof Error ? e.message : String(e)}`;
    ctx.log.info(`${tool}: ${note}; answering from the parser`);
    return { note };
  }
}

/**
 * An answer from a language server that is not the editor's own (the headless host's TypeScript
 * language service) says which it is: `languageServer` beside `source`, and in the text.
 */
export function namingServer<A extends { readonly result: string; readonly structured: unknown }>(ws: Workspace, a: A): A {
  const name = ws.languageIntel?.serverName;
  if (!name || typeof a.structured !== 'object' || a.structured === null) return a;
  return { ...a, result: a.result.replace(LSP_SOURCE, `${LSP_SOURCE} (${name})`), structured: { ...a.structured, languageServer: name } };
}

/** A parser NOT_FOUND after the language server gave up says so: trying again later may find it. */
export function explainFallback(e: unknown, note: string | undefined): unknown {
  if (!note || !(e instanceof ToolError) || e.code !== 'NOT_FOUND') return e;
  return new ToolError('NOT_FOUND', `${e.message} (Only the extension's parser answered: ${note}. Try again in a few seconds.)`);
}

const FENCES: Readonly<Record<string, string>> = {
  '.java': 'java', '.ts': 'ts', '.tsx': 'tsx', '.mts': 'ts', '.cts': 'ts', '.js': 'js', '.jsx': 'jsx', '.mjs': 'js', '.cjs': 'js', '.py': 'python',
  '.go': 'go', '.cs': 'csharp', '.kt': 'kotlin', '.kts': 'kotlin', '.rs': 'rust', '.swift': 'swift', '.scala': 'scala', '.dart': 'dart', '.php': 'php',
  '.rb': 'ruby', '.c': 'c', '.h': 'c', '.cpp': 'cpp', '.cc': 'cpp', '.cxx': 'cpp', '.hpp': 'cpp',
};

/** The Markdown fence language of a file. */
export const fenceLanguage = (file: string): string => FENCES[path.extname(file).toLowerCase()] ?? '';
