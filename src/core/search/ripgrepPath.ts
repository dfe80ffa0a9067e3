/**
 * A path as ripgrep prints it (run in the project root: `./src/a.ts`, or `src\a.ts` on Windows),
 * project-relative with forward slashes. Only on Windows is `\` a separator: elsewhere it is a
 * character of the name, and reading it as `/` would name another file than the one searched.
 */
export function ripgrepRelative(printed: string): string {
  let rel = process.platform === 'win32' ? printed.replace(/\\/g, '/') : printed;
  while (rel.startsWith('./')) rel = rel.slice(2);
  return rel;
}
