/**
 * The words an agent reads when an edit does not land. Each message says what was tried, what was
 * found instead and what to send next; line numbers are 1-based as read_file shows them.
 *
 * Codes: text not found (also: found only its replacement, i.e. already applied) is NOT_FOUND, the
 * thing looked for does not exist; more than one place is CONFLICT, the request contradicts the
 * file (it names several places); bad arguments (empty or identical strings) are VALIDATION_FAILED.
 */
import { ToolError } from '../protocol/errors';
import type { EditNames, MatchOutcome, MatchStrategy, TextRange } from './types';

const HOW: Record<MatchStrategy, string> = {
  exact: 'exact text',
  whitespace: 'ignoring line endings and trailing blanks',
  indentation: 'ignoring indentation',
};

export function lineLabel(startLine: number, endLine: number): string {
  return startLine === endLine ? `line ${startLine}` : `lines ${startLine}-${endLine}`;
}

export function notFoundMessage(outcome: Extract<MatchOutcome, { kind: 'not-found' }>, names: EditNames): string {
  const head = `${names.search} not found in ${names.path}: no exact match, and none ignoring line endings, trailing blanks or indentation.`;
  const c = outcome.closest;
  if (!c) {
    return `${head} Nothing in the file (${outcome.lineCount} lines) resembles it; check the path, or read the file and copy the text exactly.`;
  }
  return [
    `${head} Closest region: ${lineLabel(c.startLine, c.endLine)} (similarity ${c.similarity.toFixed(2)}). Differences (- ${names.search}, + file):`,
    ...c.diff,
    `Copy those lines exactly from the file and retry.`,
  ].join('\n');
}

export function ambiguousMessage(outcome: Extract<MatchOutcome, { kind: 'ambiguous' }>, names: EditNames, allowReplaceAll: boolean): string {
  const more = outcome.count > outcome.lines.length ? ` and ${outcome.count - outcome.lines.length} more` : '';
  const where = `lines ${outcome.lines.join(', ')}${more}`;
  const fix = allowReplaceAll ? ', or set replace_all to change every occurrence' : '';
  return (
    `${names.search} matches ${outcome.count} places in ${names.path} (${HOW[outcome.strategy]}), at ${where}. ` +
    `Include more surrounding lines so it matches exactly one place${fix}. Nothing was changed.`
  );
}

export function alreadyAppliedMessage(strategy: MatchStrategy, range: TextRange, names: EditNames): string {
  return (
    `${names.search} not found in ${names.path}, but ${names.replace} is already there at ${lineLabel(range.startLine, range.endLine)} ` +
    `(${HOW[strategy]}): the change looks already applied. Nothing was changed.`
  );
}

/** The error for an outcome that is not a single match. */
export function matchError(outcome: Exclude<MatchOutcome, { kind: 'match' }>, names: EditNames, allowReplaceAll = false): ToolError {
  switch (outcome.kind) {
    case 'ambiguous':
      return new ToolError('CONFLICT', ambiguousMessage(outcome, names, allowReplaceAll));
    case 'already-applied':
      return new ToolError('NOT_FOUND', alreadyAppliedMessage(outcome.strategy, outcome.range, names));
    case 'not-found':
      return new ToolError('NOT_FOUND', notFoundMessage(outcome, names));
  }
}

/** replace_all only replaces exact text; say so when the looser rungs would have found it. */
export function notExactForReplaceAll(outcome: MatchOutcome, names: EditNames): ToolError {
  if (outcome.kind === 'match' || outcome.kind === 'ambiguous') {
    const where = outcome.kind === 'match' ? lineLabel(outcome.range.startLine, outcome.range.endLine) : `lines ${outcome.lines.join(', ')}`;
    return new ToolError(
      'NOT_FOUND',
      `${names.search} not found in ${names.path} as exact text, which replace_all requires; it matches ${HOW[outcome.strategy]} at ${where}. ` +
        `Copy the text exactly from the file, or drop replace_all. Nothing was changed.`,
    );
  }
  return matchError(outcome, names);
}
