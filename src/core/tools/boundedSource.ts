import { type AnswerBudget, wireCost } from '../protocol/answerBudget';

/** A longer source line (minified code, a huge literal) is cut here, in every tool that shows source. */
export const MAX_SOURCE_LINE_CHARS = 2000;

/** The line as an answer shows it: past MAX_SOURCE_LINE_CHARS cut, with a mark saying how long it was. */
export const shownLine = (line: string): string =>
  line.length > MAX_SOURCE_LINE_CHARS ? `${line.slice(0, MAX_SOURCE_LINE_CHARS)} … [line cut: ${line.length} characters]` : line;

export interface BoundedSource {
  /** The file's lines up to `to`, those from `from` on cut to MAX_SOURCE_LINE_CHARS with a mark. */
  readonly lines: readonly string[];
  /** The last line that fit the budget (`from - 1` when none did). */
  readonly to: number;
  /** Lines cut at MAX_SOURCE_LINE_CHARS. */
  readonly longLines: number;
  /** The budget ran out before the range's end. */
  readonly bytesCut: boolean;
}

/**
 * Lines `from`..`to` of a file for an answer that shows them `copies` times (Markdown and
 * `structured`), each line charged to `budget` in bytes on the wire before it is kept.
 */
export function boundedSource(text: readonly string[], from: number, to: number, budget: AnswerBudget, copies = 2): BoundedSource {
  const lines = text.slice(0, Math.max(0, to));
  let longLines = 0;
  for (let n = from; n <= to; n++) {
    const whole = text[n - 1] ?? '';
    if (whole.length > MAX_SOURCE_LINE_CHARS) longLines++;
    const line = shownLine(whole);
    // The line, its number and the joins around it.
    if (!budget.spend(copies * (wireCost(line) + 16))) {
      lines.length = n - 1;
      return { lines, to: n - 1, longLines, bytesCut: true };
    }
    lines[n - 1] = line;
  }
  return { lines, to, longLines, bytesCut: false };
}
