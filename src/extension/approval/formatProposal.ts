import * as vscode from 'vscode';
import type { ProposedChange } from '../../core/write/gate';
import { minimalReplace } from '../../core/edit/eol';
import type { Logger } from '../../core/log';
import type { ProposalStore } from './proposalFs';

export type FormatMode = 'changedRange' | 'document' | 'off';

/** Proposals larger than this are shown (and written) as the agent sent them: formatting them would hold the diff back. */
export const MAX_FORMAT_CHARS = 2_000_000;
/** A formatter gets this long in all; a slow or hung one must not hold the proposal back. */
export const FORMAT_DEADLINE_MS = 6000;
/** While the extension of a language may still be starting (the first proposal in it), ask again this often, until this long has passed. */
const WARM_UP_STEP_MS = 250;
const WARM_UP_MS = 5000;

/** The edits applied to a string, last first so earlier offsets stay valid; overlapping edits (a broken formatter) give up. */
function applyEdits(doc: vscode.TextDocument, text: string, edits: readonly vscode.TextEdit[]): string | undefined {
  // Last first; of two inserts at one place the later one goes in first, so they read in order.
  const spans = edits
    .map((e, i) => ({ start: doc.offsetAt(e.range.start), end: doc.offsetAt(e.range.end), text: e.newText, i }))
    .sort((a, b) => b.start - a.start || b.end - a.end || b.i - a.i);
  let out = text;
  let limit = Number.POSITIVE_INFINITY;
  for (const s of spans) {
    if (s.end > limit) return undefined;
    out = out.slice(0, s.start) + s.text + out.slice(s.end);
    limit = s.start;
  }
  return out;
}

/** Languages whose formatter has had its chance to start in this window: they are not waited for again. */
const warmed = new Set<string>();

/**
 * Whether an extension that starts on this language (`onLanguage:<id>`) may still be registering
 * its formatter: only then is an empty answer worth asking again. A language nothing starts for
 * (most plain config formats) is never waited for.
 */
function mayStillRegister(languageId: string): boolean {
  if (warmed.has(languageId)) return false;
  const event = `onLanguage:${languageId}`;
  return vscode.extensions.all.some((e) => {
    const events: unknown = (e.packageJSON as { activationEvents?: unknown }).activationEvents;
    return Array.isArray(events) && events.includes(event);
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The proposal as it will be written: the language's formatter run over the lines the change
 * touched (or the whole file in 'document' mode) *before* the diff is shown, so the developer
 * approves exactly the text that lands and nothing is reformatted behind the diff afterwards.
 *
 * The formatter reads a read-only copy of the proposal under the file's own path (so the language,
 * `files.associations` and per-language settings apply); the real file is not opened or touched.
 * No formatter, a formatter that fails or takes too long, a secret file, a notebook or a huge
 * proposal: the agent's text is shown as it is.
 */
export async function formatProposal(store: ProposalStore, change: ProposedChange, mode: FormatMode, log: Logger, signal?: AbortSignal): Promise<string> {
  const proposed = change.proposed;
  if (signal?.aborted || mode === 'off' || change.path.kind === 'secret' || change.notebookEdit || proposed.length > MAX_FORMAT_CHARS || proposed === change.original) return proposed;
  const scratch = store.scratch(change.path.rel, proposed);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), FORMAT_DEADLINE_MS)));
    const aborted = new Promise<undefined>((resolve) => {
      onAbort = () => resolve(undefined);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    const formatted = await Promise.race([formatIn(scratch.uri, change, mode), timeout, aborted]);
    if (formatted === 'timeout') log.warn(`${change.id}: the formatter of ${change.path.rel} did not answer within ${FORMAT_DEADLINE_MS} ms; the proposal is shown as the agent sent it`);
    return typeof formatted === 'string' ? formatted : proposed;
  } catch (err) {
    log.warn(`${change.id}: formatting ${change.path.rel} failed (${err instanceof Error ? err.message : String(err)}); the proposal is shown as the agent sent it`);
    return proposed;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    scratch.dispose();
  }
}

async function formatIn(uri: vscode.Uri, change: ProposedChange, mode: FormatMode): Promise<string | undefined> {
  const doc = await vscode.workspace.openTextDocument(uri);
  // A document normalizes mixed line endings; edits computed on that text would rewrite every line.
  if (doc.languageId === 'plaintext' || doc.getText() !== change.proposed) return undefined;
  const target = vscode.Uri.file(change.path.abs);
  const editorConfig = vscode.workspace.getConfiguration('editor', { uri: target, languageId: doc.languageId });
  const options: vscode.FormattingOptions = { tabSize: editorConfig.get<number>('tabSize', 4), insertSpaces: editorConfig.get<boolean>('insertSpaces', true) };
  const range = mode === 'document' ? undefined : changedRange(doc, change);
  if (mode !== 'document' && !range) return undefined;
  const run = () =>
    range
      ? vscode.commands.executeCommand<vscode.TextEdit[] | undefined>('vscode.executeFormatRangeProvider', doc.uri, range, options)
      : vscode.commands.executeCommand<vscode.TextEdit[] | undefined>('vscode.executeFormatDocumentProvider', doc.uri, options);
  const started = Date.now();
  let edits = await run();
  // The first document of a language starts the extension that formats it, which registers its
  // provider a moment later: give it that moment, once per language.
  if (edits === undefined && mayStillRegister(doc.languageId)) {
    while (edits === undefined && Date.now() - started < WARM_UP_MS) {
      await sleep(WARM_UP_STEP_MS);
      edits = await run();
    }
  }
  warmed.add(doc.languageId);
  // A range formatter may reach beyond the range it was given; what it changes outside is dropped
  // so 'changedRange' means exactly that.
  const inside = range ? edits?.filter((e) => e.range.start.line >= range.start.line && e.range.end.line <= range.end.line) : edits;
  if (!inside?.length) return undefined;
  return applyEdits(doc, doc.getText(), inside);
}

/** The lines of the proposal the change touched: as the tool reported them, else the text that differs from the original. */
function changedRange(doc: vscode.TextDocument, change: ProposedChange): vscode.Range | undefined {
  const last = doc.lineCount - 1;
  const lineRange = (start: number, end: number) => {
    const s = Math.max(0, Math.min(start, last));
    const e = Math.max(s, Math.min(end, last));
    return new vscode.Range(s, 0, e, doc.lineAt(e).text.length);
  };
  if (change.original === undefined) return lineRange(0, last);
  if (change.changedLines) return lineRange(change.changedLines.startLine - 1, change.changedLines.endLine - 1);
  const r = minimalReplace(change.original, change.proposed);
  if (r.text.length === 0 && r.start === r.end) return undefined;
  return lineRange(doc.positionAt(r.start).line, doc.positionAt(r.start + r.text.length).line);
}
