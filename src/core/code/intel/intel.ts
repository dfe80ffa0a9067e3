import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { ToolError } from '../../protocol/errors';
import { withinDeadline } from '../../deadline';
import type { Workspace } from '../../workspace/workspace';
import { CallGraph } from '../index/callGraph';
import { CodeIndex, type IndexVersion } from '../index/codeIndex';
import { runSliced, runWhole, STALE, type Sliced } from '../index/slices';
import { codeIndexSettings, codeStateOf, type CodeIntel } from './state';

export { configureCodeIndexes, dropCodeIntel, type CodeIntel } from './state';

/** The name of a workspace's cache file in the cache folder: one per project root. */
export const cacheFileName = (root: string): string => `code-index-${createHash('sha1').update(root).digest('hex').slice(0, 12)}.json`;

/** The workspace's index, created on first use (not built: see `readyCodeIntel`). */
export function codeIntelFor(ws: Workspace): CodeIntel {
  const state = codeStateOf(ws);
  if (!state.intel) {
    const settings = codeIndexSettings();
    const dir = settings.cacheDir?.(ws);
    const cacheFile = dir ? path.join(dir, cacheFileName(ws.root)) : undefined;
    const index = new CodeIndex(ws, { ...(cacheFile ? { cacheFile } : {}), ...(settings.log ? { log: settings.log } : {}), foreground: state.foreground });
    state.intel = { index, graph: new CallGraph(index) };
  }
  return state.intel;
}

/**
 * Runs one answer from the workspace's index with every file it unpacks kept until it ends, or
 * until the tool call is stopped: its lookups meet one copy of each symbol across its awaits
 * (`CodeIndex.pinned`; the call graph compares methods by identity).
 */
export function pinnedAnswer<T>(ctx: { readonly workspace: Workspace; readonly signal: AbortSignal }, fn: () => Promise<T>): Promise<T> {
  return codeIntelFor(ctx.workspace).index.pinned(fn, ctx.signal);
}

/** Sliced runs of one answer that saw the index's symbols change before it is computed at once. */
const SLICED_TRIES = 2;

/**
 * `ask`'s outcome from the built index, computed in slices (slices.ts) so that a question reading
 * thousands of call sites leaves the event loop free and hears its cancel. When the index's
 * symbols change during a pause (a save), the run stops before its next step: that step would
 * meet the file's new copy beside the old one it already holds, and the resolver's caches, made
 * afresh for the new symbols, would keep what it worked out from the old (a later answer would
 * repeat it). So it does when the secret globs change (a setting): what it read before may name a
 * file they now cover. It is asked again, and after SLICED_TRIES at once. While the index builds,
 * its pass replaces records without moving the version, so a paused run could not tell: the answer
 * then comes from neededCallSites.ts, whose rounds judge those puts, and here it is computed at once.
 */
export async function answerFromBuiltIndex<T>(index: CodeIndex, ask: () => Sliced<T>, signal: AbortSignal): Promise<T> {
  for (let i = 0; index.isReady && i < SLICED_TRIES; i++) {
    const outcome = await runSlicedWhileUnchanged(index, index.version(), lookupTablesThen(index, ask), signal);
    if (outcome !== STALE) return outcome;
  }
  return runWhole(ask());
}

/**
 * `work` in slices while the index stays at `version`; STALE when it moved, at a pause or in the
 * last step (a change a lookup met there, such as the secret globs, left no pause to stop at).
 */
export async function runSlicedWhileUnchanged<T>(index: CodeIndex, version: IndexVersion, work: Sliced<T>, signal: AbortSignal): Promise<T | typeof STALE> {
  const outcome = await runSliced(work, { signal, stale: () => !index.unchanged(version) });
  return outcome !== STALE && index.unchanged(version) ? outcome : STALE;
}

/**
 * The index's lookup tables, made in slices when a change dropped them (a save, the build's end),
 * so that read_class and read_method after a save do not make them in one block at their first
 * lookup. A change meanwhile throws them away; the lookup then makes them at once.
 */
async function makeLookupTablesInSlices(index: CodeIndex, signal: AbortSignal): Promise<void> {
  await runSliced(index.lookupTablesSliced(), { signal });
}

/** The index with every declaration in and its lookup tables made: what read_class and read_method ask. */
export async function indexForLookups(ctx: { readonly workspace: Workspace; readonly signal: AbortSignal }): Promise<CodeIntel> {
  const intel = await readyCodeIntel(ctx);
  await makeLookupTablesInSlices(intel.index, ctx.signal);
  return intel;
}

/** The index's lookup tables, made in slices when a change dropped them, then the question. */
export function* lookupTablesThen<T>(index: CodeIndex, ask: () => Sliced<T>): Sliced<T> {
  yield* index.lookupTablesSliced();
  return yield* ask();
}

const announced = new WeakSet<CodeIndex>();

/** The workspace's code intelligence, its build announced to the host (which shows its progress) the first time. */
function announcedCodeIntel(ws: Workspace): CodeIntel {
  const intel = codeIntelFor(ws);
  if (!announced.has(intel.index)) {
    announced.add(intel.index);
    codeIndexSettings().onBuildStart?.(ws, intel.index);
  }
  return intel;
}

/**
 * Starts building the index in the background, if it is not built or building (the chat's `@`
 * list offers the index's symbols once its declarations are in).
 */
export function startCodeIndex(ws: Workspace): CodeIntel {
  const intel = announcedCodeIntel(ws);
  intel.index.declarationsReady().catch(() => undefined);
  return intel;
}

/**
 * The index, built: every file's declarations, and with `calls` every file's call sites too. The
 * first call starts the build; a call that would wait longer than `waitMs` gets a TIMEOUT saying
 * how far indexing is, while the build goes on for the next call.
 */
export async function readyCodeIntel(
  ctx: { readonly workspace: Workspace; readonly signal: AbortSignal },
  need: 'declarations' | 'calls' = 'declarations',
  waitMs = codeIndexSettings().waitMs ?? 20_000,
): Promise<CodeIntel> {
  const intel = announcedCodeIntel(ctx.workspace);
  if (need === 'calls' ? intel.index.isReady : intel.index.declarationsIn) return intel;
  const built = need === 'calls' ? intel.index.ready() : intel.index.declarationsReady();
  const outcome = await withinDeadline(built, waitMs, ctx.signal);
  if (outcome.kind === 'aborted') throw new ToolError('CANCELLED', 'Cancelled while the code index was being built.');
  if (outcome.kind === 'late') throw stillBuilding(intel.index);
  return intel;
}

/** The answer to a question the index cannot answer yet: how far the build is. */
export function stillBuilding(index: CodeIndex): ToolError {
  const p = index.progress;
  const what = p.phase === 'calls' ? 'call sites: ' : '';
  return new ToolError(
    'TIMEOUT',
    `The code index is still being built (${what}${p.done} of ${p.total || '?'} files parsed). Try again in a few seconds; grep_file and read_file work meanwhile.`,
  );
}
