/** Indentation and trailing blanks, which the matcher's looser rungs, the re-indenter and the closest-region search forgive. */

/** Only spaces and tabs count as indentation or trailing blanks: a BOM or NBSP is content. */
export function stripTrailingBlanks(line: string): string {
  let end = line.length;
  while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
  return end === line.length ? line : line.slice(0, end);
}

export function leadingBlanks(line: string): string {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
  return line.slice(0, i);
}

/** A line with its indentation and trailing blanks removed: the key of the indentation tier. */
export function trimBlanks(line: string): string {
  return stripTrailingBlanks(line).slice(leadingBlanks(line).length);
}

export function isBlank(line: string): boolean {
  return trimBlanks(line) === '';
}
