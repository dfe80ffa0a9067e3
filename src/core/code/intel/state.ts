import type { Logger } from '../../log';
import type { Workspace } from '../../workspace/workspace';
import type { CallGraph } from '../index/callGraph';
import type { CodeIndex } from '../index/codeIndex';
import { ForegroundGate } from './foreground';

/**
 * Everything code intelligence keeps per Workspace, in one object made in one place
 * (`codeStateOf`): the code index and call graph shared by read_class, read_method and call_chain,
 * the gate that holds the index build back while answers from the files alone run, and the list
 * of source files those answers search. The extension may set where caches go and how long a tool
 * call waits for the first build before answering "still indexing" (the backend gives a tool call 30 s).
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

/** The project's source files, listed for the answers made before the index is built (neededFilesFinder.ts). */
export interface SourceListing {
  readonly files: ReadonlySet<string>;
  /** Folder → its source files. */
  readonly byDir: ReadonlyMap<string, readonly string[]>;
  readonly at: number;
}

/** What code intelligence keeps for one workspace. */
export interface WorkspaceCodeState {
  /** The index and its call graph: made by `intel.ts` on first use, forgotten by `dropCodeIntel`. */
  intel: CodeIntel | undefined;
  /** Shared by the answers from the files alone and the index build, which waits for them. */
  readonly foreground: ForegroundGate;
  /** The latest listing, shared by the questions of its first minute (neededFilesFinder.ts). */
  listing: Promise<SourceListing> | undefined;
}

let settings: CodeIndexSettings = {};
const byWorkspace = new WeakMap<Workspace, WorkspaceCodeState>();

/** The workspace's state, made empty on first use. */
export function codeStateOf(ws: Workspace): WorkspaceCodeState {
  let state = byWorkspace.get(ws);
  if (!state) byWorkspace.set(ws, (state = { intel: undefined, foreground: new ForegroundGate(), listing: undefined }));
  return state;
}

export function configureCodeIndexes(s: CodeIndexSettings): void {
  settings = s;
}

export function codeIndexSettings(): CodeIndexSettings {
  return settings;
}

/** The workspace's index if one was created, without creating it (file watchers). */
export function peekCodeIntel(ws: Workspace): CodeIntel | undefined {
  return byWorkspace.get(ws)?.intel;
}

/** Makes `intel` the workspace's index and graph, in place of any it had (tests give one built their own way). */
export function setCodeIntel(ws: Workspace, intel: CodeIntel): void {
  codeStateOf(ws).intel = intel;
}

/** Forgets a workspace's index (folder closed, tests); the next question makes a new one. */
export function dropCodeIntel(ws: Workspace): void {
  const state = byWorkspace.get(ws);
  if (state) state.intel = undefined;
}
