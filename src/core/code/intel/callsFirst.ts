import { ToolError } from '../../protocol/errors';
import { runRipgrepText } from '../../search/ripgrep';
import type { Workspace } from '../../workspace/workspace';
import { CallGraph, type CallReads } from '../index/callGraph';
import { LANGUAGES } from '../languages/registry';
import { codeIntelFor, readyCodeIntel, stillBuilding, type CodeIntel } from './intel';
import { codeIndexSettings } from './state';

/**
 * call_chain while the index's second pass is still parsing call sites (issue #15: on 60,000
 * files that pass takes minutes, and callers of a common name such as `add` are beyond a cold
 * answer's bounds). Every declaration is in by then, so a question needs the call sites of a few
 * files only: those whose text names a method it asks the callers of (ripgrep, as a word), and
 * those whose methods' calls it lists. Those files are pulled to the front of the pass
 * (index/passQueue.ts) and the question is asked again, until it needs no file the pass has not
 * parsed: then the answer is the one the built index gives (tests compare). It waits as long as
 * waiting for the whole index would have (`waitMs`), then answers TIMEOUT as before.
 *
 * Left as the built index would not: a file whose full parse fails is listed among the files with
 * missing call sites only once the pass has ended.
 */

const MAX_ROUNDS = 16;
const WORD = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;
const SOURCE_GLOBS = LANGUAGES.flatMap((l) => l.extensions.flatMap((e) => ['-g', `*${e}`]));

type Context = { readonly workspace: Workspace; readonly signal: AbortSignal };

/**
 * The index and a call graph over it that answer `question` as the built index will, once the
 * files it needs have their call sites; `question` makes every lookup the answer will make.
 */
export async function callsReady(ctx: Context, question: (graph: CallGraph) => void): Promise<CodeIntel> {
  const intel = codeIntelFor(ctx.workspace);
  const { index } = intel;
  const rg = ctx.workspace.ripgrepPath();
  if (index.isReady || !rg) return readyCodeIntel(ctx, 'calls');
  const deadline = Date.now() + (codeIndexSettings().waitMs ?? 20_000);
  await readyCodeIntel(ctx, 'declarations');
  const searched = new Set<string>();
  for (let round = 0; round < MAX_ROUNDS && !index.isReady; round++) {
    const reads: CallReads = { names: new Set(), files: new Set() };
    // A graph of its own: nothing it holds was resolved before the files it needs were in.
    const graph = new CallGraph(index, reads);
    question(graph);
    // Callers of a name are in files whose text has it as a word; names read in earlier rounds had theirs pulled then.
    const names = [...reads.names].filter((n) => WORD.test(n) && !searched.has(n));
    for (const n of names) searched.add(n);
    const naming = names.length ? await filesNaming(ctx, rg, names, deadline - Date.now()) : [];
    if (naming === undefined) break;
    const needed = index.outlinedAmong([...reads.files, ...naming]);
    if (!needed.length) return { index, graph };
    const left = deadline - Date.now();
    if (left <= 0) break;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([index.pullCalls(needed, ctx.signal), new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
    clearTimeout(timer);
    if (ctx.signal.aborted) throw new ToolError('CANCELLED', 'Cancelled while the code index was being built.');
  }
  if (index.isReady) return intel;
  throw stillBuilding(index);
}

/** Project-relative paths of the source files whose text has one of `names` as a word; undefined when ripgrep fails or runs out of time. */
async function filesNaming(ctx: Context, rg: string, names: readonly string[], timeoutMs: number): Promise<string[] | undefined> {
  if (timeoutMs <= 0) return undefined;
  const args = [
    '--files-with-matches', '--null', '--no-config', '--no-messages', '--no-ignore', '-g', '!node_modules/', ...SOURCE_GLOBS,
    '-F', '-w', ...names.flatMap((n) => ['-e', n]), '--', '.',
  ];
  const out = await runRipgrepText(rg, args, { cwd: ctx.workspace.root, timeoutMs, maxBytes: 32 * 1024 * 1024, signal: ctx.signal });
  return out
    ?.split('\0')
    .filter(Boolean)
    .map((p) => p.replace(/\\/g, '/').replace(/^\.\//, ''));
}
