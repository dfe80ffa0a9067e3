/**
 * Re-indentation for the indentation tier: the agent's search text matched lines whose indentation
 * differs (it dropped a nesting level, or wrote spaces where the file has tabs), so its replacement
 * is in the agent's indentation too and must be moved onto the file's before it is inserted.
 */
import type { IndentShift, IndentStyle } from './types';
import { isBlank, leadingBlanks } from './blanks';

const DEFAULT_UNIT = 4;

/** Tabs when some indented line starts with a tab, spaces when some starts with a space, else unknown. */
function indentStyle(lines: readonly string[]): IndentStyle {
  let tabs = 0;
  let spaces = 0;
  for (const line of lines) {
    if (isBlank(line)) continue;
    if (line.startsWith('\t')) tabs++;
    else if (line.startsWith(' ')) spaces++;
  }
  if (tabs === 0 && spaces === 0) return 'unknown';
  return tabs >= spaces ? 'tabs' : 'spaces';
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The step between indentation levels of space-indented lines (their widths' GCD), 4 when unclear. */
function spaceUnit(lines: readonly string[]): number {
  let unit = 0;
  for (const line of lines) {
    if (isBlank(line)) continue;
    const lead = leadingBlanks(line);
    if (lead.length > 0 && !lead.includes('\t')) unit = gcd(lead.length, unit);
  }
  return unit >= 2 && unit <= 8 ? unit : DEFAULT_UNIT;
}

/** The shift from the search's first non-blank line to the file line it matched (same index in the region). */
export function indentShift(searchLines: readonly string[], fileLines: readonly string[]): IndentShift {
  const first = searchLines.findIndex((l) => !isBlank(l));
  const at = first < 0 ? 0 : first;
  const fileStyle = indentStyle(fileLines);
  return {
    from: leadingBlanks(searchLines[at] ?? ''),
    to: leadingBlanks(fileLines[at] ?? ''),
    fileStyle,
    fileUnit: fileStyle === 'spaces' ? spaceUnit(fileLines) : DEFAULT_UNIT,
  };
}

function widthOf(ws: string, tabSize: number): number {
  let w = 0;
  for (const ch of ws) w += ch === '\t' ? tabSize : 1;
  return w;
}

function render(width: number, style: IndentStyle, tabSize: number): string {
  if (style !== 'tabs') return ' '.repeat(width);
  return '\t'.repeat(Math.floor(width / tabSize)) + ' '.repeat(width % tabSize);
}

/**
 * The replacement moved onto the file's indentation, keeping the relative indentation of its lines.
 * When both sides indent with the same character the shift is a plain prefix added or removed; when
 * they differ (spaces vs tabs), each line's width is measured in the agent's units and redrawn in the
 * file's. Whitespace-only lines become empty: their blanks were in the agent's indentation anyway.
 */
export function reindent(replacement: string, shift: IndentShift, searchLines: readonly string[]): string {
  const parts = replacement.split(/(\r\n|\n|\r)/);
  const contentLines = parts.filter((_, i) => i % 2 === 0);
  const agentStyle = indentStyle([...searchLines, ...contentLines]);
  const sameStyle = agentStyle === 'unknown' || shift.fileStyle === 'unknown' || agentStyle === shift.fileStyle;

  let move: (line: string) => string;
  if (sameStyle && shift.to.startsWith(shift.from)) {
    const add = shift.to.slice(shift.from.length);
    move = (line) => add + line;
  } else if (sameStyle && shift.from.startsWith(shift.to)) {
    const cut = shift.from.length - shift.to.length;
    move = (line) => line.slice(Math.min(cut, leadingBlanks(line).length));
  } else {
    // Agent's tabs are as wide as the file's space unit; agent's spaces step by their own unit.
    const tabSize = agentStyle === 'tabs' ? shift.fileUnit : spaceUnit([...searchLines, ...contentLines]);
    const delta = widthOf(shift.to, tabSize) - widthOf(shift.from, tabSize);
    move = (line) => {
      const lead = leadingBlanks(line);
      const width = Math.max(0, widthOf(lead, tabSize) + delta);
      return render(width, shift.fileStyle, tabSize) + line.slice(lead.length);
    };
  }
  return parts.map((part, i) => (i % 2 === 1 ? part : isBlank(part) ? '' : move(part))).join('');
}
