/** The file's errors and warnings around a write: asked of the editor before it and once the change landed, to tell the agent which ones it brought. */
import type { DiagnosticInfo, Workspace } from '../workspace/workspace';
import { newProblems, viewOf, type DiagnosticView } from './problems';

/** After a write, how long the language services get to report on the changed file. */
const SETTLE_AFTER_WRITE_MS = 1500;

export type DiagnosticsReport =
  | { readonly available: true; readonly new: readonly DiagnosticView[]; readonly newErrors: number; readonly newWarnings: number; readonly omitted: number }
  | { readonly available: false; readonly note: string };

const serious = (d: DiagnosticInfo): boolean => d.severity === 'error' || d.severity === 'warning';

/**
 * The editor's errors and warnings in one file before a write, to compare with after it: undefined
 * where there are none to be had (no editor, or a secret file whose problems must not be quoted).
 */
export async function problemsBefore(ws: Workspace, abs: string, secret: boolean): Promise<DiagnosticInfo[] | undefined> {
  if (!ws.diagnostics || secret) return undefined;
  try {
    return (await ws.diagnostics([abs])).filter(serious);
  } catch {
    return undefined;
  }
}

/** What changed in the file's errors and warnings once the write landed (and the services caught up). */
export async function reportAfterWrite(ws: Workspace, abs: string, before: readonly DiagnosticInfo[] | undefined, signal?: AbortSignal): Promise<DiagnosticsReport> {
  if (!ws.diagnostics) return { available: false, note: 'This host has no language services, so no diagnostics were checked.' };
  if (!before) return { available: false, note: 'Diagnostics are not reported for this file.' };
  let after: DiagnosticInfo[];
  try {
    after = (await ws.diagnostics([abs], { settleMs: SETTLE_AFTER_WRITE_MS, ...(signal ? { signal } : {}) })).filter(serious);
  } catch {
    return { available: false, note: 'The language services did not answer.' };
  }
  const fresh = newProblems(before, after);
  const { shown, omitted, errors, warnings } = await viewOf(ws, fresh);
  return { available: true, new: shown, newErrors: errors, newWarnings: warnings, omitted };
}
