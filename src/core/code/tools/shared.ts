import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { Logger } from '../../log';
import { ToolError } from '../../protocol/errors';
import type { ToolContext } from '../../tools/tool';
import type { Workspace } from '../../workspace';
import { CallGraph } from '../callGraph';
import { CodeIndex } from '../index';

/**
 * One code index (and call graph) per Workspace, shared by read_class, read_method and
 * call_chain. The extension may set where caches go and how long a tool call waits for the first
 * build before answering "still indexing" (the backend gives a tool call 30 s).
 */

export interface CodeIndexSettings {
  /** Folder for the per-workspace cache file (e.g. the extension's storage folder); none: no cache. */
  readonly cacheDir?: (ws: Workspace) => string | undefined;
  readonly log?: Logger;
  /** How long a tool waits for the first build. Default 20 s. */
  readonly waitMs?: number;
  /** Told once per index when its first build starts, so an editor can show progress. */
  readonly onBuildStart?: (ws: Workspace, index: CodeIndex) => void;
}

export interface CodeIntel {
  readonly index: CodeIndex;
  readonly graph: CallGraph;
}

let settings: CodeIndexSettings = {};
const byWorkspace = new WeakMap<Workspace, CodeIntel>();

export function configureCodeIndexes(s: CodeIndexSettings): void {
  settings = s;
}

/** The workspace's index, created on first use (not built: see `readyCodeIntel`). */
export function codeIntelFor(ws: Workspace): CodeIntel {
  let intel = byWorkspace.get(ws);
  if (!intel) {
    const dir = settings.cacheDir?.(ws);
    const cacheFile = dir ? path.join(dir, `code-index-${createHash('sha1').update(ws.root).digest('hex').slice(0, 12)}.json`) : undefined;
    const index = new CodeIndex(ws, { ...(cacheFile ? { cacheFile } : {}), ...(settings.log ? { log: settings.log } : {}) });
    intel = { index, graph: new CallGraph(index) };
    byWorkspace.set(ws, intel);
  }
  return intel;
}

/** The workspace's index if one was created, without creating it (file watchers). */
export function peekCodeIntel(ws: Workspace): CodeIntel | undefined {
  return byWorkspace.get(ws);
}

const announced = new WeakSet<CodeIndex>();

/** Forgets a workspace's index (folder closed, tests). */
export function dropCodeIntel(ws: Workspace): void {
  byWorkspace.delete(ws);
}

/**
 * The index, built. The first call starts the build; a call that would wait longer than `waitMs`
 * gets a TIMEOUT saying how far indexing is, while the build goes on for the next call.
 */
export async function readyCodeIntel(ctx: ToolContext): Promise<CodeIntel> {
  const intel = codeIntelFor(ctx.workspace);
  if (intel.index.isReady) return intel;
  if (!announced.has(intel.index)) {
    announced.add(intel.index);
    settings.onBuildStart?.(ctx.workspace, intel.index);
  }
  const waitMs = settings.waitMs ?? 20_000;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const gate = new Promise<'timeout' | 'cancelled'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), waitMs);
    onAbort = () => resolve('cancelled');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const outcome = await Promise.race([intel.index.ready().then(() => 'ready' as const), gate]);
    if (outcome === 'cancelled') throw new ToolError('CANCELLED', 'Cancelled while the code index was being built.');
    if (outcome === 'timeout') {
      const p = intel.index.progress;
      throw new ToolError(
        'TIMEOUT',
        `The code index is still being built (${p.done} of ${p.total || '?'} files parsed). Try again in a few seconds; grep_file and read_file work meanwhile.`,
      );
    }
    return intel;
  } finally {
    clearTimeout(timer);
    if (onAbort) ctx.signal.removeEventListener('abort', onAbort);
  }
}
