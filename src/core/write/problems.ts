/** Problems as the agent reads them: which are new since a write, and which it may see; pure, apart from asking the editor around a write (diagnostics.ts). */
import * as path from 'node:path';
import { accessPolicy } from '../policy/accessPolicy';
import type { DiagnosticInfo, Workspace } from '../workspace/workspace';

/** At most this many problems go into an answer; the rest are counted. */
export const MAX_DIAGNOSTICS = 50;

/** A problem as the agent reads it: the path relative to the project. */
export interface DiagnosticView {
  readonly path: string;
  readonly line: number;
  readonly column: number;
  readonly severity: DiagnosticInfo['severity'];
  readonly message: string;
  readonly source?: string;
  readonly code?: string;
}

const key = (d: DiagnosticInfo): string => `${d.severity}\u0000${d.source ?? ''}\u0000${d.code ?? ''}\u0000${d.message}`;

/**
 * The problems in `after` that were not there `before`. Compared by severity, source, code and
 * message, not by line: an edit moves the lines below it, and an old problem that moved is not new.
 * Each old problem cancels one new one of the same kind (so a second copy of an error is new).
 */
export function newProblems(before: readonly DiagnosticInfo[], after: readonly DiagnosticInfo[]): DiagnosticInfo[] {
  const left = new Map<string, number>();
  for (const d of before) left.set(key(d), (left.get(key(d)) ?? 0) + 1);
  return after.filter((d) => {
    const n = left.get(key(d)) ?? 0;
    if (n === 0) return true;
    left.set(key(d), n - 1);
    return false;
  });
}

/**
 * Problems the agent may see: only in files of the project that the access policy shows (a
 * message can quote a secret file's line), as project-relative paths, errors first, capped.
 */
export function viewOf(ws: Workspace, found: readonly DiagnosticInfo[], max = MAX_DIAGNOSTICS): { shown: DiagnosticView[]; omitted: number } {
  const policy = accessPolicy(ws);
  const visible = found
    .map((d) => ({ d, rel: path.relative(ws.root, d.path).split(path.sep).join('/') }))
    .filter(({ rel }) => rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) && !policy.hides(rel))
    .sort((a, b) => rank(a.d) - rank(b.d) || a.rel.localeCompare(b.rel) || a.d.line - b.d.line);
  const shown = visible.slice(0, max).map(({ d, rel }) => ({
    path: rel,
    line: d.line,
    column: d.column,
    severity: d.severity,
    message: d.message.length > 500 ? `${d.message.slice(0, 500)}…` : d.message,
    ...(d.source ? { source: d.source } : {}),
    ...(d.code ? { code: d.code } : {}),
  }));
  return { shown, omitted: visible.length - shown.length };
}

const RANK = { error: 0, warning: 1, information: 2, hint: 3 } as const;
const rank = (d: DiagnosticInfo): number => RANK[d.severity];
