import * as fs from 'node:fs';
import * as path from 'node:path';

/** Symbolic links followed by hand for a path that does not resolve, as many as the system follows before ELOOP. */
const MAX_LINK_HOPS = 40;

/** Too many links followed (a loop); `visited` are the places they led, for the caller to tell whether one is outside. */
export class LinkLoopError extends Error {
  readonly code = 'ELOOP';
  constructor(
    abs: string,
    readonly visited: readonly string[],
  ) {
    super(`too many symbolic links: ${abs}`);
  }
}

/**
 * `realpath` that also works for paths that do not exist yet (a file about to be created): the
 * nearest existing ancestor is resolved and the rest appended, so a symlinked parent is still seen.
 * A symbolic link whose target is missing is followed to that target, never taken as a name of its
 * own: otherwise a link to a missing path outside the project would look inside it (NOT_FOUND)
 * while one to an existing outside path is refused, telling the agent what exists out there.
 * `resolve` is the strict realpath to use (the Node adapter passes the synchronous one).
 */
export async function realpathLenient(abs: string, resolve: (p: string) => string | Promise<string> = realpathNative): Promise<string> {
  return lenient(abs, resolve, { left: MAX_LINK_HOPS, visited: [] });
}

async function lenient(abs: string, resolve: (p: string) => string | Promise<string>, hops: { left: number; visited: string[] }): Promise<string> {
  const rest: string[] = [];
  let current = abs;
  for (;;) {
    try {
      const real = await resolve(current);
      return rest.length ? path.join(real, ...rest.reverse()) : real;
    } catch {
      // Missing, not a folder, unreadable or a loop: any of them, answered differently, would tell
      // what lies where a link points. A link is followed; anything else resolves its parent.
      const target = linkTarget(current);
      if (target !== undefined) {
        if (--hops.left < 0) throw new LinkLoopError(abs, hops.visited);
        current = path.resolve(await lenient(path.dirname(current), resolve, hops), target);
        hops.visited.push(current);
        continue;
      }
      const parent = path.dirname(current);
      if (parent === current) return abs;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

function linkTarget(p: string): string | undefined {
  try {
    return fs.readlinkSync(p);
  } catch {
    return undefined; // not a link, or nothing there
  }
}

/** `fs.realpath.native` as a promise: the callback form costs about half of `fs/promises`' (it runs on every tool call). */
function realpathNative(p: string): Promise<string> {
  return new Promise((resolve, reject) => fs.realpath.native(p, (err, real) => (err ? reject(err) : resolve(real))));
}
