import * as vscode from 'vscode';
import type { DiagnosticInfo } from '../core/workspace/workspace';

const SEVERITY: Record<vscode.DiagnosticSeverity, DiagnosticInfo['severity']> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'information',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

/** Once the language services report on a file, they often report again (syntax, then types): wait for this much quiet. */
const QUIET_MS = 300;

/**
 * The Problems of these files (or of every file), as plain data. With `settleMs`, first waits for
 * the language services to report on them (the first report, then a short quiet), at most that long.
 * `toRoot` maps the folder's path as VS Code shows it to the project root the core works with.
 */
export async function editorDiagnostics(
  absPaths: readonly string[] | undefined,
  opts: { readonly settleMs?: number; readonly signal?: AbortSignal },
  shown: (rootPath: string) => string,
  toRoot: (shownPath: string) => string,
): Promise<DiagnosticInfo[]> {
  const uris = absPaths?.map((p) => vscode.Uri.file(shown(p)));
  if (uris?.length && opts.settleMs) await settle(uris, opts.settleMs, opts.signal);
  const pairs: [vscode.Uri, readonly vscode.Diagnostic[]][] = uris ? uris.map((u) => [u, vscode.languages.getDiagnostics(u)]) : vscode.languages.getDiagnostics();
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
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      if (!e.uris.some((u) => wanted.has(u.toString()))) return;
      clearTimeout(quiet);
      quiet = setTimeout(done, QUIET_MS);
    });
    signal?.addEventListener('abort', done, { once: true });
  });
}
