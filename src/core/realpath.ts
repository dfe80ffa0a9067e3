import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/**
 * `realpath` that also works for paths that do not exist yet (a file about to be created): the
 * nearest existing ancestor is resolved and the rest appended, so a symlinked parent is still seen.
 */
export async function realpathLenient(abs: string): Promise<string> {
  const rest: string[] = [];
  let current = abs;
  for (;;) {
    try {
      const real = await fs.realpath(current);
      return rest.length ? path.join(real, ...rest.reverse()) : real;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
      const parent = path.dirname(current);
      if (parent === current) return abs;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}
