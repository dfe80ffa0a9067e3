/**
 * The words an agent reads when an edit does not land. Each message says what was tried, what was
 * found instead and what to send next; line numbers are 1-based as read_file shows them. Messages
 * follow the developer's language through `t` (src/core/l10n.ts); the wire names in them
 * (old_string, replace_all, …) stay as they are.
 *
 * Codes: text not found (also: found only its replacement, i.e. already applied) is NOT_FOUND, the
 * thing looked for does not exist; more than one place is CONFLICT, the request contradicts the
 * file (it names several places); bad arguments (empty or identical strings) are VALIDATION_FAILED.
 */
import { english, type Translate } from '../l10n';
import { ToolError } from '../protocol/errors';
import type { EditNames, MatchOutcome, MatchStrategy, TextRange } from './types';

export const ENGLISH: Translate = english;

function how(strategy: MatchStrategy, t: Translate): string {
  switch (strategy) {
    case 'exact':
      return t('exact text');
    case 'whitespace':
      return t('ignoring line endings and trailing blanks');
    case 'indentation':
      return t('ignoring indentation');
  }
}

/** Ends every message after which the file is as it was; MultiEdit swaps it for its own ending. */
export const nothingChanged = (t: Translate): string => t(' Nothing was changed.');

function lineLabel(startLine: number, endLine: number, t: Translate = ENGLISH): string {
  return startLine === endLine ? t('line {0}', startLine) : t('lines {0}-{1}', startLine, endLine);
}

function notFoundMessage(outcome: Extract<MatchOutcome, { kind: 'not-found' }>, names: EditNames, t: Translate = ENGLISH): string {
  const head = t('{0} not found in {1}: no exact match, and none ignoring line endings, trailing blanks or indentation.', names.search, names.path);
  const c = outcome.closest;
  if (!c) {
    return t('{0} Nothing in the file ({1} lines) resembles it; check the path, or read the file and copy the text exactly.', head, outcome.lineCount);
  }
  return [
    t('{0} Closest region: {1} (similarity {2}). Differences (- {3}, + file):', head, lineLabel(c.startLine, c.endLine, t), c.similarity.toFixed(2), names.search),
    ...c.diff,
    t('Copy those lines exactly from the file and retry.'),
  ].join('\n');
}

/** "lines 3, 9" (and how many more were counted than listed). */
function linesList(lines: readonly number[], count: number, t: Translate): string {
  const listed = lines.join(', ');
  return count > lines.length ? t('lines {0} and {1} more', listed, count - lines.length) : t('lines {0}', listed);
}

function ambiguousMessage(outcome: Extract<MatchOutcome, { kind: 'ambiguous' }>, names: EditNames, allowReplaceAll: boolean, t: Translate = ENGLISH): string {
  const args = [names.search, outcome.count, names.path, how(outcome.strategy, t), linesList(outcome.lines, outcome.count, t)];
  const body = allowReplaceAll
    ? t('{0} matches {1} places in {2} ({3}), at {4}. Include more surrounding lines so it matches exactly one place, or set replace_all to change every occurrence.', ...args)
    : t('{0} matches {1} places in {2} ({3}), at {4}. Include more surrounding lines so it matches exactly one place.', ...args);
  return body + nothingChanged(t);
}

function alreadyAppliedMessage(strategy: MatchStrategy, range: TextRange, names: EditNames, t: Translate = ENGLISH): string {
  const where = lineLabel(range.startLine, range.endLine, t);
  return t('{0} not found in {1}, but {2} is already there at {3} ({4}): the change looks already applied.', names.search, names.path, names.replace, where, how(strategy, t)) + nothingChanged(t);
}

/** The error for an outcome that is not a single match. */
export function matchError(outcome: Exclude<MatchOutcome, { kind: 'match' }>, names: EditNames, allowReplaceAll = false, t: Translate = ENGLISH): ToolError {
  switch (outcome.kind) {
    case 'ambiguous':
      return new ToolError('CONFLICT', ambiguousMessage(outcome, names, allowReplaceAll, t));
    case 'already-applied':
      return new ToolError('NOT_FOUND', alreadyAppliedMessage(outcome.strategy, outcome.range, names, t));
    case 'not-found':
      return new ToolError('NOT_FOUND', notFoundMessage(outcome, names, t));
  }
}

/** replace_all only replaces exact text; say so when the looser rungs would have found it. */
export function notExactForReplaceAll(outcome: MatchOutcome, names: EditNames, t: Translate = ENGLISH): ToolError {
  if (outcome.kind === 'match' || outcome.kind === 'ambiguous') {
    const where = outcome.kind === 'match' ? lineLabel(outcome.range.startLine, outcome.range.endLine, t) : t('lines {0}', outcome.lines.join(', '));
    return new ToolError(
      'NOT_FOUND',
      t('{0} not found in {1} as exact text, which replace_all requires; it matches {2} at {3}. Copy the text exactly from the file, or drop replace_all.', names.search, names.path, how(outcome.strategy, t), where) +
        nothingChanged(t),
    );
  }
  return matchError(outcome, names, false, t);
}
