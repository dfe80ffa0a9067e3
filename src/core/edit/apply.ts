/**
 * Applying search/replace edits to a text, purely: the callers read the file, call these, and write
 * the result back only if they return. A failing edit throws ToolError and nothing changes.
 */
import type { Translate } from '../l10n';
import { ToolError } from '../protocol/errors';
import type { Sliced } from '../code/index/slices';
import { MAX_FILE_BYTES } from '../policy/safeRead';
import { EDIT_LIMITS, refuseUnmatchable, runEditWhole } from './budget';
import { textOccurrences } from './linearSearch';
import { findMatchSliced } from './match';
import { reindent } from './indent';
import { dominantEol, dropFinalEol, endsWithEol, withEol } from './eol';
import { lineNumberAt, lineNumberAtSliced, splitSearchLines } from './lines';
import { ENGLISH, matchError, nothingChanged, notExactForReplaceAll } from './errors';
import type { ApplyResult, EditNames, EditReport, EditSpec, EditsResult, LineRange, MatchOutcome } from './types';

export const applyChangeNames = (path: string): EditNames => ({ path, search: 'searchContent', replace: 'replaceContent' });
const editNames = (path: string): EditNames => ({ path, search: 'old_string', replace: 'new_string' });

/** Empty, or holding nothing but a BOM. */
const isEmptyText = (t: string): boolean => t === '' || t === '\ufeff';

/** The replacement as the file writes it: its line endings are the file's dominant ones. */
function inFileEols(original: string, replacement: string): string {
  const eol = dominantEol(original);
  return eol ? withEol(replacement, eol) : replacement;
}

/**
 * Puts `insert` over [start, end). When the region reached the end of the text, the text keeps
 * whether it ended with a line terminator: agents drop or add the final newline by accident, and
 * a diff that only flips it is noise the developer has to review. Only the region's own text is
 * adjusted (a terminator is added after the insert, or the insert's last one dropped), never the
 * untouched text before it.
 */
function* splice(original: string, start: number, end: number, insert: string): Sliced<{ text: string; newRange: LineRange }> {
  const atEnd = end === original.length;
  // Dropped from the insert itself: in the joined text a CR before it could pair with its LF.
  if (atEnd && !endsWithEol(original)) insert = dropFinalEol(insert);
  let text = original.slice(0, start) + insert + original.slice(end);
  if (atEnd && endsWithEol(original) && !endsWithEol(text) && !isEmptyText(text)) text += dominantEol(original) ?? '\n';
  const startLine = yield* lineNumberAtSliced(text, start);
  const insertEnd = Math.min(start + insert.length, text.length);
  const endLine = insertEnd > start ? yield* lineNumberAtSliced(text, insertEnd - 1) : startLine;
  return { text, newRange: { startLine, endLine } };
}

/** The text with the one match of a 'match' outcome replaced; the replacement re-indented if the match needed it. */
function* applyMatch(original: string, outcome: Extract<MatchOutcome, { kind: 'match' }>, search: string, replace: string): Sliced<{ text: string; newRange: LineRange }> {
  const shifted = outcome.indent ? reindent(replace, outcome.indent, splitSearchLines(search)) : replace;
  return yield* splice(original, outcome.range.start, outcome.range.end, inFileEols(original, shifted));
}

/**
 * apply_change: replaces the one place `search` means (match.ts's ladder) with `replace`. Returns
 * 'already-applied' with the text unchanged when only the replacement is found; throws NOT_FOUND or
 * CONFLICT otherwise. An empty search means "create the file" and must be routed before this.
 * Errors are worded by `t`, the developer's language.
 */
export function applySearchReplace(original: string, search: string, replace: string, names: EditNames = applyChangeNames('the file'), t: Translate = ENGLISH): ApplyResult {
  return runEditWhole(applySearchReplaceSliced(original, search, replace, names, t), t);
}

/** applySearchReplace as a generator that yields every few thousand steps, to be run in slices (budget.ts). */
export function* applySearchReplaceSliced(original: string, search: string, replace: string, names: EditNames, t: Translate): Sliced<ApplyResult> {
  if (search === '') {
    throw new ToolError('VALIDATION_FAILED', t('{0} is empty; an empty {0} means "create the file", and {1} already has content. Send the text to replace.', names.search, names.path));
  }
  if (search === replace) {
    throw new ToolError('VALIDATION_FAILED', identical(names, t));
  }
  refuseUnmatchable(original, names.path, t);
  const outcome = yield* findMatchSliced(original, search, replace);
  if (outcome.kind === 'already-applied') {
    return { kind: 'already-applied', newText: original, strategy: outcome.strategy, range: outcome.range };
  }
  if (outcome.kind !== 'match') throw matchError(outcome, names, false, t);
  const { text, newRange } = yield* applyMatch(original, outcome, search, replace);
  return { kind: 'applied', newText: text, strategy: outcome.strategy, oldRange: outcome.range, newRange };
}

const identical = (names: EditNames, t: Translate): string => t('{0} and {1} are identical; there is nothing to change.', names.search, names.replace);

/** replace_all: every exact, non-overlapping occurrence (line endings adapted to the file's if that is what it takes). */
function* replaceAll(text: string, edit: EditSpec, names: EditNames, t: Translate): Sliced<{ text: string; occurrences: number; newRange: LineRange }> {
  let old = edit.old_string;
  let found = yield* textOccurrences(text, old, Infinity, false);
  if (found.count === 0 && inFileEols(text, old) !== old) {
    old = inFileEols(text, old);
    found = yield* textOccurrences(text, old, Infinity, false);
  }
  if (found.count === 0) throw notExactForReplaceAll(yield* findMatchSliced(text, edit.old_string, edit.new_string), names, t);
  const insert = inFileEols(text, edit.new_string);
  // A short old_string replaced by a long text many times over could build a string of gigabytes.
  const newLength = text.length + found.count * (insert.length - old.length);
  if (newLength > MAX_FILE_BYTES) {
    throw new ToolError('BAD_REQUEST', t('replace_all would make {0} larger than {1} MB ({2} occurrences); Agent Bridge does not write files that large. Nothing was changed.', names.path, MAX_FILE_BYTES / (1024 * 1024), found.count));
  }
  // Joined a group at a time between yields: one join of millions of parts held the thread for long.
  const groups: string[] = [];
  let parts: string[] = [];
  let from = 0;
  for (const at of found.starts) {
    parts.push(text.slice(from, at));
    from = at + old.length;
    if (parts.length === 65_536) {
      groups.push(parts.join(insert));
      parts = [];
      yield;
    }
  }
  parts.push(text.slice(from));
  groups.push(parts.join(insert));
  const first = found.starts[0];
  const tail = text.length - from;
  const joined = groups.join(insert);
  // Delegate the final-newline rule and the line arithmetic to splice, over the span from first to last occurrence.
  const span = yield* splice(text, first, text.length - tail, joined.slice(first, joined.length - tail));
  return { text: span.text, occurrences: found.count, newRange: span.newRange };
}

function* applyOne(text: string, edit: EditSpec, names: EditNames, isFirst: boolean, t: Translate): Sliced<{ text: string; report: Omit<EditReport, 'editIndex'> }> {
  if (edit.old_string === '') {
    // MultiEdit (docs/protocol.md §5.10) creates a file with a first edit whose old_string is empty.
    if (isFirst && isEmptyText(text)) {
      const created = text + edit.new_string;
      return { text: created, report: { occurrences: 1, strategy: 'exact', newRange: { startLine: 1, endLine: yield* lineNumberAtSliced(created, created.length) } } };
    }
    throw new ToolError('VALIDATION_FAILED', t('{0} is empty; only the first edit of a new (empty) file may have an empty {0}.', names.search));
  }
  if (edit.old_string === edit.new_string) {
    throw new ToolError('VALIDATION_FAILED', identical(names, t));
  }
  if (edit.replace_all) {
    const r = yield* replaceAll(text, edit, names, t);
    return { text: r.text, report: { occurrences: r.occurrences, strategy: 'exact', newRange: r.newRange } };
  }
  const outcome = yield* findMatchSliced(text, edit.old_string, edit.new_string);
  if (outcome.kind !== 'match') throw matchError(outcome, names, true, t);
  const r = yield* applyMatch(text, outcome, edit.old_string, edit.new_string);
  return { text: r.text, report: { occurrences: 1, strategy: outcome.strategy, newRange: r.newRange } };
}

/**
 * MultiEdit: the edits in order, each on the result of the ones before, all or nothing. A failing
 * edit throws its error prefixed "Error in edit k of n:" (the wording of docs/protocol.md §5.10) and nothing is applied.
 * With a single edit this is the Edit tool, and its errors carry no prefix.
 */
export function applyEdits(original: string, edits: readonly EditSpec[], path = 'the file', t: Translate = ENGLISH): EditsResult {
  return runEditWhole(applyEditsSliced(original, edits, path, t), t);
}

/** applyEdits as a generator that yields every few thousand steps and between edits, to be run in slices (budget.ts). */
export function* applyEditsSliced(original: string, edits: readonly EditSpec[], path: string, t: Translate): Sliced<EditsResult> {
  if (edits.length === 0) throw new ToolError('VALIDATION_FAILED', t('edits: at least one edit is required.'));
  if (edits.length > EDIT_LIMITS.maxEdits) {
    throw new ToolError('VALIDATION_FAILED', t('edits: {0} edits in one call; at most {1} are accepted. Split the change into several calls. Nothing was changed.', edits.length, EDIT_LIMITS.maxEdits));
  }
  const names = editNames(path);
  refuseUnmatchable(original, path, t);
  let text = original;
  const reports: EditReport[] = [];
  for (let i = 0; i < edits.length; i++) {
    try {
      // Each edit matches on the text the ones before made, which may have grown past the bounds.
      if (i > 0) refuseUnmatchable(text, path, t);
      const r = yield* applyOne(text, edits[i], names, i === 0, t);
      text = r.text;
      reports.push({ editIndex: i + 1, ...r.report });
      yield;
    } catch (e) {
      if (!(e instanceof ToolError) || edits.length === 1) throw e;
      const ending = nothingChanged(t);
      const why = e.message.endsWith(ending) ? e.message.slice(0, -ending.length) : e.message;
      const message =
        i > 0
          ? t('Error in edit {0} of {1} (line numbers are as after edits 1-{2}): {3} None of the {1} edits were applied.', i + 1, edits.length, i, why)
          : t('Error in edit {0} of {1}: {2} None of the {1} edits were applied.', i + 1, edits.length, why);
      throw new ToolError(e.code, message);
    }
  }
  return { newText: text, edits: reports };
}

/** Edit: one search/replace (or replace_all) with old_string / new_string. */
export function applyEdit(original: string, edit: EditSpec, path = 'the file', t: Translate = ENGLISH): EditsResult {
  return applyEdits(original, [edit], path, t);
}

/**
 * Creating a file that may already exist (apply_change with an empty searchContent): write when it
 * doesn't exist or is empty, do nothing when it already holds this content (a retried call; line
 * endings aside), and refuse with CONFLICT otherwise so a create never silently overwrites work.
 */
export function planCreate(existing: string | undefined, content: string, names: EditNames = applyChangeNames('the file'), t: Translate = ENGLISH): 'write' | 'unchanged' {
  if (existing === undefined || isEmptyText(existing)) return 'write';
  if (withEol(existing.replace(/^\ufeff/, ''), '\n') === withEol(content, '\n')) return 'unchanged';
  const lines = lineNumberAt(existing, existing.length);
  throw new ToolError(
    'CONFLICT',
    t('{0} already exists ({1} lines) with different content, so it was not created. To change it, read it and send a non-empty {2} that matches the part to replace.', names.path, lines, names.search),
  );
}
