/**
 * Git directories under any name. git accepts a folder as a repository when it holds a `HEAD` file
 * and `objects/` and `refs/` folders (or a `commondir` file that points at another repository's),
 * whatever the folder is called, and then runs what its `config` and `hooks/` say: a `docs/` made
 * of those pieces runs `core.fsmonitor` on the next `git status` there, which VS Code's git
 * extension runs on its own.
 *
 * The agent writes one file per call, so the rule must hold for any order and for calls that run
 * at once, judged against the disk as it is when each write is decided:
 *
 *  1. a file named `HEAD` is always protected (protectedFiles.ts), so no repository is completed
 *     without a person deciding on its `HEAD`, or without a `HEAD` that was already there;
 *  2. a write inside a folder that holds a `HEAD` is protected when that folder already has
 *     `objects/`, `refs/` or `commondir`, or the write itself creates one of them.
 *
 * With both, every write that could be the last piece of a repository asks: a repository needs all
 * of `HEAD`, `objects/` and `refs/`; if `HEAD` comes last it asks by (1); otherwise `HEAD` is there
 * when `objects/` or `refs/` is written, which asks by (2), and so does everything after. Pieces
 * written beside no `HEAD` are plain files: without a `HEAD` git does not read them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** What must sit beside a `HEAD` for git to take the folder as a repository (lowercase: a case-insensitive disk finds `Objects`). */
const BESIDE_HEAD = ['objects', 'refs', 'commondir'] as const;

async function exists(abs: string): Promise<boolean> {
  try {
    await fs.promises.lstat(abs);
    return true;
  } catch {
    return false;
  }
}

/**
 * The folder (absolute) of the git directory that a write to `abs` would change or complete, or
 * undefined when there is none. Every folder from the file's own up to `root` is looked at: git
 * reads `docs/objects/pack/…` as part of `docs/`.
 */
export async function gitDirectoryOf(root: string, abs: string): Promise<string | undefined> {
  const within = path.relative(root, abs);
  if (within === '' || within.startsWith('..') || path.isAbsolute(within)) return undefined;
  const parts = within.split(path.sep);
  // Folders from the nearest to the root; `first` is the write's first step below that folder.
  for (let depth = parts.length - 1; depth >= 0; depth--) {
    const folder = path.join(root, ...parts.slice(0, depth));
    const first = parts[depth].toLowerCase();
    if (!(await exists(path.join(folder, 'HEAD')))) continue;
    if (first === 'head') continue; // the HEAD itself: protected by name
    if ((BESIDE_HEAD as readonly string[]).includes(first)) return folder;
    const beside = await Promise.all(BESIDE_HEAD.map((name) => exists(path.join(folder, name))));
    if (beside.some(Boolean)) return folder;
  }
  return undefined;
}
