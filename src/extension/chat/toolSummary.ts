/** How a tool call looks in the chat: one line of what it is about, its outcome, and a written change as a short diff. */
import { patchCounts } from '../../core/edit/patch';
import { toolOutcome } from '../../core/tools/outcome';

/** Params worth showing, most telling first; the rest (bodies of edits, ids) would only be noise. */
const KEY_PARAMS = [
  'pattern', 'relativePath', 'file_path', 'notebook_path', 'className', 'methodName', 'method', 'direction', 'depth',
  'start_line', 'end_line', 'line', 'mode', 'description',
] as const;

const MAX_VALUE = 60;

function short(value: string): string {
  const oneLine = value.replace(/\s+/g, ' ').trim();
  return oneLine.length <= MAX_VALUE ? oneLine : `${oneLine.slice(0, MAX_VALUE - 1)}…`;
}

/** Shown as the bare value: a path speaks for itself, a pattern in quotes. */
const BARE = new Set(['relativePath', 'file_path', 'notebook_path']);

export function summarizeParams(params: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of KEY_PARAMS) {
    const v = params[key];
    if (typeof v === 'string' && v.length > 0) parts.push(key === 'pattern' ? `"${short(v)}"` : BARE.has(key) ? short(v) : `${key}: ${short(v)}`);
    else if (typeof v === 'number' || typeof v === 'boolean') parts.push(`${key}: ${String(v)}`);
    if (parts.length >= 4) break;
  }
  return parts.join(' · ');
}

/**
 * A tool answer's outcome (`core/tools/outcome.ts`, read from its structured data) cut to fit the
 * collapsed row, so the row tells what the tool found without being opened.
 */
export function rowOutcome(toolName: string, structured: unknown): string | undefined {
  const line = toolOutcome(toolName, structured);
  return line === undefined ? undefined : short(line);
}

/** The transcript entry of a tool call. */
export const toolEntryId = (callId: string): string => `tool-${callId}`;

/** Lines of a compact diff shown in the chat; the rest is counted. */
const DIFF_LINES = 40;

/**
 * The change a writing tool reports (`path` and `structuredPatch` in its structured answer, as
 * every writing tool answers) as the first lines of its hunks, for the chat. Undefined for anything else.
 */
export function compactDiff(structured: unknown): { path: string; added: number; removed: number; lines: string[]; more: number } | undefined {
  if (typeof structured !== 'object' || structured === null) return undefined;
  const r = structured as { path?: unknown; filePath?: unknown; structuredPatch?: unknown };
  const where = typeof r.path === 'string' ? r.path : typeof r.filePath === 'string' ? r.filePath : undefined;
  if (!where || !Array.isArray(r.structuredPatch)) return undefined;
  const hunks = (r.structuredPatch as Array<{ oldStart?: number; newStart?: number; oldLines?: unknown; newLines?: unknown; lines?: unknown }>)
    .filter((h) => Array.isArray(h.lines))
    .map((h) => ({ ...h, lines: (h.lines as unknown[]).filter((l): l is string => typeof l === 'string') }));
  const all = hunks.flatMap((h) => [`@@ -${h.oldStart ?? '?'} +${h.newStart ?? '?'} @@`, ...h.lines.map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l))]);
  // A large change's hunk lists no lines (docs/protocol.md §7.4): its counts are the hunk's own.
  const unlisted = hunks.filter((h) => h.lines.length === 0);
  const counts = patchCounts(hunks);
  for (const h of unlisted) {
    counts.removed += typeof h.oldLines === 'number' ? h.oldLines : 0;
    counts.added += typeof h.newLines === 'number' ? h.newLines : 0;
  }
  return { path: where, ...counts, lines: all.slice(0, DIFF_LINES), more: Math.max(0, all.length - DIFF_LINES) };
}
