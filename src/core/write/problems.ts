/** Problems as the agent reads them: which are new since a write, and which it may see, with the secret files' values cut out of their messages. */
import * as path from 'node:path';
import { accessPolicy } from '../policy/accessPolicy';
import { redactSecretValues, withholdsMessage } from '../policy/secretValues';
import { t } from '../l10n';
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

/** What the agent may see of a set of problems: the first ones, and how many there were. */
export interface ProblemsView {
  readonly shown: DiagnosticView[];
  /** Visible problems left out past the cap. */
  readonly omitted: number;
  /** Visible errors and warnings, shown or not. */
  readonly errors: number;
  readonly warnings: number;
}

/**
 * Problems the agent may see: only in files of the project that the access policy shows, judged
 * by the name reported and by where it really leads (a link or a second name of a secret file
 * reports that file's problems), as project-relative paths, errors first, capped; `wanted` narrows
 * them first. Every shown message has the secret files' values cut out (secretValues.ts): a
 * message in a normal file can quote a value typed in a secret one.
 */
export async function viewOf(
  ws: Workspace,
  found: readonly DiagnosticInfo[],
  max = MAX_DIAGNOSTICS,
  wanted: (rel: string, d: DiagnosticInfo) => boolean = () => true,
): Promise<ProblemsView> {
  const policy = accessPolicy(ws);
  const named = found
    .map((d) => ({ d, rel: path.relative(ws.root, d.path).split(path.sep).join('/') }))
    .filter(({ rel, d }) => inProject(rel) && !policy.hides(rel) && wanted(rel, d));
  const hiddenFiles = new Set<string>();
  for (const abs of new Set(named.map(({ d }) => d.path))) {
    if (await leadsToSecret(ws, abs)) hiddenFiles.add(abs);
  }
  const visible = named.filter(({ d }) => !hiddenFiles.has(d.path)).sort((a, b) => rank(a.d) - rank(b.d) || a.rel.localeCompare(b.rel) || a.d.line - b.d.line);
  const values = visible.length ? await policy.secretValues() : undefined;
  const shown = visible.slice(0, max).map(({ d, rel }) => {
    const message = !values ? d.message : withholdsMessage(d.path, values) ? t('(message withheld: a secret TypeScript or JavaScript file in the project could be printed in it)') : redactSecretValues(d.message, values);
    return {
      path: rel,
      line: d.line,
      column: d.column,
      severity: d.severity,
      message: message.length > 500 ? `${message.slice(0, 500)}…` : message,
      ...(d.source ? { source: d.source } : {}),
      ...(d.code ? { code: d.code } : {}),
    };
  });
  return {
    shown,
    omitted: visible.length - shown.length,
    errors: visible.filter(({ d }) => d.severity === 'error').length,
    warnings: visible.filter(({ d }) => d.severity === 'warning').length,
  };
}

const inProject = (rel: string): boolean => rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);

/** Whether a reported file is really a secret one (or outside): through a link, or as a second name (hard link). */
async function leadsToSecret(ws: Workspace, abs: string): Promise<boolean> {
  const policy = accessPolicy(ws);
  let real: string;
  try {
    real = await ws.realpath(abs);
  } catch {
    return true;
  }
  const rel = path.relative(ws.root, real).split(path.sep).join('/');
  if (real !== abs && (!inProject(rel) || policy.hides(rel))) return true;
  return (await policy.linkedKind(real)) === 'secret';
}

const RANK = { error: 0, warning: 1, information: 2, hint: 3 } as const;
const rank = (d: DiagnosticInfo): number => RANK[d.severity];
