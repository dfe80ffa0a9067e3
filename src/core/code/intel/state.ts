import type { Logger } from '../../log';
import type { Workspace } from '../../workspace/workspace';
import type { CallGraph } from '../index/callGraph';
import type { CodeIndex } from '../index/codeIndex';

/**
 * One code index (and call graph) per Workspace, shared by read_class, read_method and
 * call_chain. The extension may set where caches go and how long a tool call waits for the first
 * build before answering "still indexing" (the backend gives a tool call 30 s).
 *
 * This module holds only that state and loads no parser: the editor configures it and its file
 * watchers look into it at activation; `intel.ts` creates and builds the indexes on first use.
 */

export interface CodeIndexSettings {
  /** Folder for the per-workspace cache file (e.g. the extension's storage folder); none: no cache. */
  readonly cacheDir?: (ws: Workspace) => string | undefined;
  readonly log?: Logger;
  /** How long a tool waits for the first build. Default 20 s. */
  readonly waitMs?: number;
  /** The parse worker script for answers made before the index is built (coldParse.ts); default `workerScript()`. Tests give a broken one. */
  readonly coldWorkerScript?: string;
  /** Told once per index when its first build starts, so an editor can show progress. */
  readonly onBuildStart?: (ws: Workspace, index: CodeIndex) => void;
}

export interface CodeIntel {
  readonly index: CodeIndex;
  readonly graph: CallGraph;
}

let settings: CodeIndexSettings = {};
/** Each workspace's index; `intel.ts` adds them. */
export const byWorkspace = new WeakMap<Workspace, CodeIntel>();

export function configureCodeIndexes(s: CodeIndexSettings): void {
  settings = s;
}

export function codeIndexSettings(): CodeIndexSettings {
  return settings;
}

/** The workspace's index if one was created, without creating it (file watchers). */
export function peekCodeIntel(ws: Workspace): CodeIntel | undefined {
  return byWorkspace.get(ws);
}

/** Forgets a workspace's index (folder closed, tests). */
export function dropCodeIntel(ws: Workspace): void {
  byWorkspace.delete(ws);
}
