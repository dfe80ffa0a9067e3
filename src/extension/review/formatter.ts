/** Running the formatting providers VS Code has for a document over a range (or all of it), giving the extension that formats its language a moment to start. */
import * as vscode from 'vscode';

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
 * The document's text as its language's formatter leaves it, formatting `range` (the whole document
 * when undefined); undefined when nothing formats it or nothing changes.
 */
export async function formatText(doc: vscode.TextDocument, range: vscode.Range | undefined, options: vscode.FormattingOptions): Promise<string | undefined> {
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
