/** Helpers over a source file's lines, shared by the parser's answers and the language-server adapter. */

/** First line of a member including the Javadoc comment right above it, if any. */
export function startWithDoc(textLines: readonly string[], line: number): number {
  const end = line - 2; // 0-based index of the line above the member
  if (!(textLines[end] ?? '').trim().endsWith('*/')) return line;
  for (let j = end; j >= 0 && j >= end - 400; j--) {
    const t = (textLines[j] ?? '').trim();
    if (j < end && t.endsWith('*/')) return line;
    if (t.startsWith('/**')) return j + 1;
    if (t.startsWith('/*')) return line;
  }
  return line;
}

/** A package, import or using line: what a reader needs above a class to know its names. */
const HEADER_LINE = /^\s*(package\s|import\s|import\(|using\s|from\s+\S+\s+import\s|#include\s|require\s*\()/;

/**
 * The first line of a declaration as a reader needs it: with the annotations or decorators right
 * above it (`@Service`, `@dataclass`) and its doc comment (`/** … *\/`, or a run of `//` / `///`
 * lines as Go and C# write them).
 */
export function startWithDocAndAnnotations(textLines: readonly string[], line: number): number {
  let start = line;
  for (;;) {
    const above = (textLines[start - 2] ?? '').trim();
    if (start > 1 && (above.startsWith('@') || (above.startsWith('[') && above.endsWith(']')))) {
      start--;
      continue;
    }
    const withDoc = startWithDoc(textLines, start);
    if (withDoc < start) {
      start = withDoc;
      continue;
    }
    // A run of line comments right above (no blank line between) is the doc in Go, C# and often TypeScript.
    if (start > 1 && above.startsWith('//')) {
      start--;
      continue;
    }
    return start;
  }
}

/**
 * Lines `[start, end]` of the file's header: from its first package / import / using line to the
 * line before `before` (the first declaration, with its doc), trailing blank lines left out.
 * Undefined when the file has none above `before` (a licence comment alone is not a header).
 */
export function headerLines(textLines: readonly string[], before: number): { start: number; end: number } | undefined {
  let start = 0;
  for (let n = 1; n < before; n++) {
    if (HEADER_LINE.test(textLines[n - 1] ?? '')) {
      start = n;
      break;
    }
  }
  if (!start) return undefined;
  let end = before - 1;
  while (end >= start && !(textLines[end - 1] ?? '').trim()) end--;
  return end >= start ? { start, end } : undefined;
}
