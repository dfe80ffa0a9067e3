import { ToolError } from '../../protocol/errors';
import { withinDeadline } from '../../deadline';
import { ripgrepPaths, runRipgrepText } from '../../search/ripgrep';
import { toRelative } from '../../workspace/paths';
import type { Workspace } from '../../workspace/workspace';
import { CallGraph, type CallReads } from '../index/callGraph';
import type { CodeIndex, IndexVersion } from '../index/codeIndex';
import { LANGUAGES } from '../languages/registry';
import { runWhole, STALE, type Sliced } from '../index/slices';
import { answerFromBuiltIndex, codeIntelFor, lookupTablesThen, readyCodeIntel, runSlicedWhileUnchanged, stillBuilding, type CodeIntel } from './intel';
import { codeIndexSettings } from './state';

/**
 * call_chain while the index's second pass is still parsing call sites (on a large project that
 * pass takes minutes, and callers of a common name such as `add` are beyond what
 * neededFilesIndex.ts can bound). Every declaration is in by then, so a question needs the call
 * sites of a few files only: those whose text names a method it asks the callers of (ripgrep),
 * those whose methods' calls it lists, and the source files that are symbolic links (ripgrep does
 * not follow them). Those the pass has yet to parse are moved to the front of it
 * (index/passQueue.ts) and the question is asked again, with fresh lookups, until a round finds every file it needed
 * parsed and none of them parsed while it ran: that round's outcome is then the answer, the one
 * the built index gives (tests compare). Each round runs in slices (index/slices.ts) and is asked
 * again when the symbols or the secret globs change at a pause (`CodeIndex.version`). It
 * waits as long as waiting for the whole index would have (`waitMs`), then answers TIMEOUT
 * as that would; when ripgrep cannot be used it waits for the whole index.
 *
 * Left as the built index would not: the notes on files whose call sites are missing (a full
 * parse that failed) or held in part name only the files parsed so far.
 */

const MAX_ROUNDS = 16;
/** Rounds in slices that met a change at a pause before the rounds run whole. */
const SLICED_ROUNDS = 2;
/** A name ripgrep can match as a word (`-w`: `\b` either side): letters, digits, `_`. Others are matched anywhere. */
const PLAIN_WORD = /^[\p{L}_][\p{L}\p{N}_]*$/u;
/** Constructor call keys with no name of their own: `this(…)` and `super(…)` are in files that name the class, whose key is searched too. */
const UNNAMED = new Set(['<this>', '<super>']);
/** Case-blind, as the index matches extensions. */
const SOURCE_GLOBS = LANGUAGES.flatMap((l) => l.extensions.flatMap((e) => ['--iglob', `*${e}`]));

type Context = { readonly workspace: Workspace; readonly signal: AbortSignal };

/**
 * The index and a call graph over it that answer `question` as the built index will, once the
 * files it needs have their call sites; `question` makes every lookup the answer will make.
 */
async function waitForNeededCallSites<T>(ctx: Context, question: (graph: CallGraph) => Sliced<T>): Promise<NeededCallSites<T>> {
  const { index } = codeIntelFor(ctx.workspace);
  const rg = ctx.workspace.ripgrepPath();
  const waitMs = codeIndexSettings().waitMs ?? 20_000;
  if (index.isReady || !rg) return { intel: await readyCodeIntel(ctx, 'calls') };
  const deadline = Date.now() + waitMs;
  await readyCodeIntel(ctx, 'declarations');
  /** Name → the files whose text has it, once searched. */
  const naming = new Map<string, readonly string[]>();
  let stale = 0;
  for (let round = 0; round < MAX_ROUNDS && !index.isReady; round++) {
    const edits = index.totalEdits;
    // the lookup tables this round uses are at least this fresh (another call may drop them meanwhile)
    const since = index.passProgress.lookupsAt;
    const reads: CallReads = { names: new Set(), files: new Set() };
    // A graph of its own: nothing it holds was resolved before the files it needs were in.
    const graph = new CallGraph(index, reads);
    // In slices, as from the built index (intel.ts `answerFromBuiltIndex`); the symbols let go or the
    // secret globs changed at a pause: the round again. A round that keeps meeting such changes
    // (the pass lets go of lookups now and then; other questions' rounds do) runs whole.
    const version = index.version();
    // The lookup tables first, in slices too: the pass lets go of them now and then and the round
    // before may have (`freshLookups`); made at the first lookup they would hold the loop.
    const outcome = stale < SLICED_ROUNDS
      ? await slicedRound(outcomeOf(lookupTablesThen(index, () => question(graph))), index, version, ctx)
      : runWhole(outcomeOf(question(graph)));
    if (outcome === STALE || !index.unchanged(version)) {
      stale++;
      if (Date.now() > deadline) throw stillBuilding(index);
      continue;
    }
    if (!(await search(ctx, rg, [...reads.names].filter((n) => !naming.has(n)), naming, deadline))) {
      if (ctx.signal.aborted) throw cancelled();
      return { intel: await readyCodeIntel(ctx, 'calls', deadline - Date.now()) };
    }
    const needed = new Set([...reads.files, ...index.linkedSources, ...unsaved(ctx.workspace)]);
    for (const name of reads.names) for (const rel of naming.get(name) ?? []) needed.add(rel);
    const awaiting = index.awaitingCalls(needed);
    if (awaiting.length) {
      await waitUntilParsed(index, awaiting, ctx, deadline);
      // the pass stopped (failed) before taking them: wait for the whole index, which builds it again
      if (!index.passProgress.running && index.awaitingCalls(awaiting).length === awaiting.length) return { intel: await readyCodeIntel(ctx, 'calls', deadline - Date.now()) };
      index.freshLookups();
    } else if (index.passProgress.putSince(needed, since)) {
      // a file it needed was put after the lookup tables it used were made: they may hold its copy from before
      index.freshLookups();
    } else if (index.totalEdits === edits && index.unchanged(version)) {
      // the round read nothing that changed since (the globs may have, during the search): its outcome is the answer
      return { intel: { index, graph }, outcome };
    }
  }
  if (index.isReady) return { intel: codeIntelFor(ctx.workspace) };
  throw stillBuilding(index);
}

/**
 * A call question's answer from the index: while it builds, the outcome of the round that found
 * every file the question needs in; once built, worked out in slices (`answerFromBuiltIndex`).
 */
export async function answerFromCallIndex<T>(ctx: Context, question: (graph: CallGraph) => Sliced<T>): Promise<T> {
  const ready = await waitForNeededCallSites(ctx, question);
  if (ready.outcome) {
    if ('error' in ready.outcome) throw ready.outcome.error;
    return ready.outcome.value;
  }
  const { index, graph } = ready.intel;
  return answerFromBuiltIndex(index, () => question(graph), ctx.signal);
}

/**
 * The index, and the question's outcome when a round found every file it needed in (then that
 * round's outcome is the answer); without one (the index is built, or was waited for), ask the
 * question of `intel`.
 */
interface NeededCallSites<T> {
  readonly intel: CodeIntel;
  readonly outcome?: QuestionOutcome<T>;
}

/** A question's outcome: its value, or the tool error it answers with (not found, ambiguous...: its lookups are made all the same). */
type QuestionOutcome<T> = { readonly value: T } | { readonly error: ToolError };

/** A round in slices, stopped at a pause when the call is. */
async function slicedRound<T>(work: Sliced<T>, index: CodeIndex, version: IndexVersion, ctx: Context): Promise<T | typeof STALE> {
  try {
    return await runSlicedWhileUnchanged(index, version, work, ctx.signal);
  } catch (e) {
    // the dispatcher's reason (cancelled, or past the tool's deadline) when it is the tool's own error
    if (ctx.signal.aborted) throw ctx.signal.reason instanceof ToolError ? ctx.signal.reason : cancelled();
    throw e;
  }
}

function* outcomeOf<T>(work: Sliced<T>): Sliced<QuestionOutcome<T>> {
  try {
    return { value: yield* work };
  } catch (e) {
    if (e instanceof ToolError) return { error: e };
    throw e;
  }
}

const cancelled = (): ToolError => new ToolError('CANCELLED', 'Cancelled while the code index was being built.');

/** The indexed files with unsaved changes in an editor: the pass parses their buffers, ripgrep reads the disk. */
function unsaved(ws: Workspace): string[] {
  // a buffer outside the project becomes `../…`, which names no record
  return (ws.dirtyPaths?.() ?? []).map((p) => toRelative(ws.root, p));
}

/** Waits for the pass to parse `files`; TIMEOUT (how far the build is) past the deadline, CANCELLED when stopped. */
async function waitUntilParsed(index: CodeIndex, files: readonly string[], ctx: Context, deadline: number): Promise<void> {
  const outcome = await withinDeadline(index.parseCallSitesFirst(files, ctx.signal), deadline - Date.now());
  if (ctx.signal.aborted) throw cancelled();
  if (outcome.kind === 'late') throw stillBuilding(index);
}

/**
 * Notes in `naming` the source files whose text has each of `names` (plain words as words, other
 * names anywhere: more files, never fewer); false when ripgrep fails or runs out of time.
 */
async function search(ctx: Context, rg: string, names: readonly string[], naming: Map<string, readonly string[]>, deadline: number): Promise<boolean> {
  const words = names.filter((n) => PLAIN_WORD.test(n));
  const others = names.filter((n) => !PLAIN_WORD.test(n) && !UNNAMED.has(n));
  for (const n of names.filter((x) => UNNAMED.has(x))) naming.set(n, []);
  for (const [batch, asWord] of [[words, true], [others, false]] as const) {
    if (!batch.length) continue;
    const files = await filesNaming(ctx, rg, batch, asWord, deadline - Date.now());
    if (!files) return false;
    // one search for the batch: each name is noted with all its files (a few more to wait for, none missed)
    for (const n of batch) naming.set(n, files);
  }
  return true;
}

/** Project-relative paths of the source files whose text has one of `names`; undefined when ripgrep fails or runs out of time. */
async function filesNaming(ctx: Context, rg: string, names: readonly string[], asWord: boolean, timeoutMs: number): Promise<string[] | undefined> {
  if (timeoutMs <= 0) return undefined;
  const args = [
    // --text: the index reads a file as text when its first 8,000 bytes are, whatever follows
    '--files-with-matches', '--null', '--no-config', '--no-messages', '--no-ignore', '--text', '-g', '!node_modules/', ...SOURCE_GLOBS,
    '-F', ...(asWord ? ['-w'] : []), ...names.flatMap((n) => ['-e', n]), '--', '.',
  ];
  const out = await runRipgrepText(rg, args, { cwd: ctx.workspace.root, timeoutMs, maxBytes: 32 * 1024 * 1024, signal: ctx.signal });
  return out === undefined ? undefined : ripgrepPaths(out);
}
