import * as path from 'node:path';
import { readRegularFile, MAX_FILE_BYTES } from '../policy/safeRead';
import type { LinkedCheck } from '../workspace/workspace';
import { decodeForSearch } from './decode';
import { cancelledError, clipLine, stripCr, type FileMatches } from './types';

/**
 * ripgrep opens the files itself, so what it read cannot be judged on its handle: a hard link to a
 * secret renamed over a name while ripgrep reads it, and a plain file renamed back before the
 * policy looks at the name, would show the secret's lines. So every file an answer shows is read
 * again here through safeRead (the policy's check on the open handle), and kept only when each line
 * shown is the line that judged read holds. Only the files shown are read (at most the limit), each
 * bounded like read_file; a file that changed meanwhile, or cannot be read so, is left out.
 */
export async function confirmShown(
  root: string,
  files: readonly FileMatches[],
  linked: LinkedCheck,
  signal: AbortSignal,
): Promise<{ confirmed: FileMatches[]; dropped: FileMatches[] }> {
  const confirmed: FileMatches[] = [];
  const dropped: FileMatches[] = [];
  for (const file of files) {
    if (signal.aborted) throw cancelledError(signal);
    if (await holdsShownLines(path.join(root, file.path), file, linked)) confirmed.push(file);
    else dropped.push(file);
  }
  return { confirmed, dropped };
}

async function holdsShownLines(abs: string, file: FileMatches, linked: LinkedCheck): Promise<boolean> {
  let text: string | undefined;
  try {
    text = decodeForSearch(await readRegularFile(abs, MAX_FILE_BYTES, linked));
  } catch {
    return false;
  }
  if (text === undefined) return false;
  const lines = text.split('\n');
  const shown = (lineNo: number): string | undefined => {
    const line = lines[lineNo - 1];
    return line === undefined ? undefined : clipLine(stripCr(line));
  };
  return file.matches.every((m) => {
    const line = lines[m.line - 1];
    if (line === undefined || clipLine(stripCr(line), m.column) !== m.text) return false;
    const first = m.line - m.before.length;
    return m.before.every((t, i) => shown(first + i) === t) && m.after.every((t, i) => shown(m.line + 1 + i) === t);
  });
}
