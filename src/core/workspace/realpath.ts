import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * `realpath` that also works for paths that do not exist yet (a file about to be created): the
 * nearest existing ancestor is resolved and the rest appended, so a symlinked parent is still seen.
 * `resolve` is the strict realpath to use (the Node adapter passes the synchronous one).
 */
export async function realpathLenient(abs: string, resolve: (p: string) => string | Promise<string> = realpathNative): Promise<string> {
  const rest: string[] = [];
  let current = abs;
  for (;;) {
    try {
      const real = await resolve(current);
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

/** `fs.realpath.native` as a promise: the callback form costs about half of `fs/promises`' (it runs on every tool call). */
function realpathNative(p: string): Promise<string> {
  return new Promise((resolve, reject) => fs.realpath.native(p, (err, real) => (err ? reject(err) : resolve(real))));
}
