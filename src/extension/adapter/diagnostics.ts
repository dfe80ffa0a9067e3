/** The editor's Problems as the core's plain DiagnosticInfo, once the language services had their moment (settleReports.ts). */
import * as vscode from 'vscode';
import type { DiagnosticInfo } from '../../core/workspace/workspace';
import { settleReports, trackReportingLanguages } from './settleReports';

const SEVERITY: Record<vscode.DiagnosticSeverity, DiagnosticInfo['severity']> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'information',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

/**
 * The Problems of these files (or of every file), as plain data. With `settleMs`, first waits for
 * the language services to report on them (the first report, then a short quiet), at most that long,
 * or up to REPORTING_LANGUAGE_MS for a language whose service is known to report.
 * `toRoot` maps the folder's path as VS Code shows it to the project root the core works with.
 */
export async function editorDiagnostics(
  absPaths: readonly string[] | undefined,
  opts: { readonly settleMs?: number; readonly signal?: AbortSignal },
  shown: (rootPath: string) => string,
  toRoot: (shownPath: string) => string,
): Promise<DiagnosticInfo[]> {
  trackReportingLanguages();
  const uris = absPaths?.map((p) => vscode.Uri.file(shown(p)));
  if (uris?.length && opts.settleMs) await settleReports(uris, opts.settleMs, opts.signal);
  const pairs: [vscode.Uri, readonly vscode.Diagnostic[]][] = uris ? uris.map((u) => [u, vscode.languages.getDiagnostics(u)]) : vscode.languages.getDiagnostics();
  // Only the message is taken, never `relatedInformation`: its messages and locations point into
  // other files, secret ones included. The core cuts secret values out of the message (problems.ts).
  return pairs.flatMap(([uri, list]) =>
    uri.scheme !== 'file'
      ? []
      : list.map((d) => ({
          path: toRoot(uri.fsPath),
          line: d.range.start.line + 1,
          column: d.range.start.character + 1,
          severity: SEVERITY[d.severity],
          message: d.message,
          ...(d.source ? { source: d.source } : {}),
          ...(d.code !== undefined ? { code: String(typeof d.code === 'object' ? d.code.value : d.code) } : {}),
        })),
  );
}
