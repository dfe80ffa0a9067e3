/** Waiting for the language services to report on files after a write: which services report at all, and when they last did. */
import * as vscode from 'vscode';

/** Once the language services report on a file, they often report again (syntax, then types): wait for this much quiet. */
const QUIET_MS = 300;
/**
 * How long to wait for the first report on a file whose language has a service that reports
 * (TypeScript's, built in, or one seen reporting this session). A busy machine can take seconds to
 * type-check; answering "no new problems" before the service looked would mislead the agent.
 */
const REPORTING_LANGUAGE_MS = 6000;

/** Languages whose services have reported on some file this session (or always do: VS Code's TypeScript). */
const reporting = new Set<string>();
/** Of open documents: when their text last changed, and when the services last reported on them. */
const lastChange = new Map<string, number>();
const lastReport = new Map<string, number>();
let tracking: vscode.Disposable | undefined;

const openDoc = (key: string): vscode.TextDocument | undefined => vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);

export function trackReportingLanguages(): void {
  if (tracking) return;
  if (vscode.extensions.getExtension('vscode.typescript-language-features')) {
    for (const id of ['typescript', 'typescriptreact', 'javascript', 'javascriptreact']) reporting.add(id);
  }
  // Lives as long as the extension host; the maps hold open documents only.
  tracking = vscode.Disposable.from(
    vscode.languages.onDidChangeDiagnostics((e) => {
      for (const uri of e.uris) {
        const doc = openDoc(uri.toString());
        if (!doc) continue;
        reporting.add(doc.languageId);
        lastReport.set(uri.toString(), Date.now());
      }
    }),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length) lastChange.set(e.document.uri.toString(), Date.now());
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      lastChange.delete(doc.uri.toString());
      lastReport.delete(doc.uri.toString());
    }),
  );
}

/**
 * How recent the document's last text change must be to be the write's own: a write renames the
 * file into place, and VS Code reloads the open document a moment later, so until then its last
 * change (and the report after it) is older than the write.
 */
const WRITE_RELOAD_MS = 2000;

/** The services already reported on the file since its text last changed, and that change was the write's (before we started listening). */
function reportedSinceChange(key: string, since: number): boolean {
  const report = lastReport.get(key);
  const change = lastChange.get(key);
  return report !== undefined && change !== undefined && change >= since - WRITE_RELOAD_MS && report >= change;
}

/** The longest wait for the first report on these files: longer when their language's service is known to report. */
function settleCap(uris: readonly vscode.Uri[], settleMs: number): number {
  const known = uris.some((u) => {
    const doc = openDoc(u.toString());
    return doc !== undefined && reporting.has(doc.languageId);
  });
  return known ? Math.max(settleMs, REPORTING_LANGUAGE_MS) : settleMs;
}

/** Waits for the first report on these files and a short quiet after it, at most `settleMs` (longer for a language known to report). */
export function settleReports(uris: readonly vscode.Uri[], settleMs: number, signal: AbortSignal | undefined): Promise<void> {
  return settle(uris, settleCap(uris, settleMs), signal);
}

function settle(uris: readonly vscode.Uri[], maxMs: number, signal: AbortSignal | undefined): Promise<void> {
  const wanted = new Set(uris.map((u) => u.toString()));
  return new Promise((resolve) => {
    let quiet: NodeJS.Timeout | undefined;
    const done = (): void => {
      clearTimeout(quiet);
      clearTimeout(cap);
      sub.dispose();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const cap = setTimeout(done, maxMs);
    // Reported already (between the write and now): only the short quiet for a second report.
    const since = Date.now();
    if ([...wanted].every((key) => reportedSinceChange(key, since))) quiet = setTimeout(done, QUIET_MS);
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      if (!e.uris.some((u) => wanted.has(u.toString()))) return;
      clearTimeout(quiet);
      quiet = setTimeout(done, QUIET_MS);
    });
    signal?.addEventListener('abort', done, { once: true });
  });
}
