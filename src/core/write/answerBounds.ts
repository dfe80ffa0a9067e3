/**
 * A write's answer is bounded before it is built: texts it would echo (the file before the edit,
 * the content written, the strings sent) are left out past a size, and a patch too large to list
 * keeps only its line numbers and counts. Built whole, a large edit's answer held the host for
 * seconds before the link cut it down to its message limit anyway.
 */
import { t } from '../l10n';
import { MAX_LISTED_PATCH_CHARS } from '../edit/patch';
import { wireCost } from '../protocol/answerBudget';

/** Bytes on the wire (JSON-escaped: a control character costs 6) up to which one echoed text is put in an answer. */
const MAX_ECHOED_BYTES = 1024 * 1024;

/** What a write answer says about the parts it left out; both absent when nothing was. */
export interface Omissions {
  /** The fields left out, and `structuredPatch.lines` when the hunks list no lines. */
  readonly omitted?: string[];
  /** The same in words, for the agent. */
  readonly note?: string;
}

/**
 * The texts of `echoes` that fit in an answer (absent ones stay absent), and the omissions: the fields left out and, when
 * `patch.linesOmitted`, that the hunks hold numbers and counts only.
 */
export function boundedEchoes<K extends string>(
  echoes: Partial<Record<K, string>>,
  patch: { readonly linesOmitted: boolean; readonly added: number; readonly removed: number },
): { fields: Partial<Record<K, string>>; omissions: Omissions } {
  const fields: Partial<Record<K, string>> = {};
  const left: string[] = [];
  for (const key of Object.keys(echoes) as K[]) {
    const text = echoes[key];
    if (text === undefined) continue;
    // A text longer in characters costs at least as many bytes: no need to scan it.
    if (text.length > MAX_ECHOED_BYTES || wireCost(text) > MAX_ECHOED_BYTES) left.push(key);
    else fields[key] = text;
  }
  const notes: string[] = [];
  if (left.length > 0) notes.push(t('Left out of this answer, each larger than {0} MB: {1}.', MAX_ECHOED_BYTES / (1024 * 1024), left.join(', ')));
  if (patch.linesOmitted) {
    notes.push(t('structuredPatch gives the changed lines\' numbers and counts ({0} removed, {1} added) but not the lines: the change is larger than {2} MB. Read the file to see it.', patch.removed, patch.added, MAX_LISTED_PATCH_CHARS / (1024 * 1024)));
  }
  const omitted = patch.linesOmitted ? [...left, 'structuredPatch.lines'] : left;
  return { fields, omissions: omitted.length > 0 ? { omitted, note: notes.join(' ') } : {} };
}
