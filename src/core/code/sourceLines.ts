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
