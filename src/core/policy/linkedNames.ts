/**
 * The project walk behind the access policy's judgement of files with several names: hard links
 * (by inode, how many of their names were found and whether one is secret or protected) and
 * symbolic links with a secret or protected name (what they lead to). Bounded in time and entries,
 * and it yields to the event loop inside large folders.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { OpenedFile } from '../workspace/workspace';
import type { SecretGuard } from '../workspace/globSet';

const INODES_SCAN_MS = 2_000;
const INODES_SCAN_ENTRIES = 200_000;
/** Entries of one folder the walk handles between two yields to the event loop. */
const WALK_YIELD_EVERY = 256;

/**
 * What the project's files with more than one name (hard links) are, by inode (dev:ino): how many
 * of their names were found in the project, and whether one of those names is secret or protected.
 */
export interface LinkedNames {
  readonly guard: SecretGuard;
  readonly at: number;
  readonly byId: ReadonlyMap<string, { names: number; secret: boolean; protected: boolean; secretAt?: string }>;
  /** False when the walk ran out of time or entries: no hard-linked file can be cleared then. */
  readonly complete: boolean;
  /**
   * What symbolic links with a secret or protected name lead to (`.git/hooks/pre-commit ->
   * ../../scripts/pre-commit.sh`): a file by its inode, a folder by its real path.
   */
  readonly ledTo: LedTo;
}

export interface LedTo {
  readonly files: ReadonlyMap<string, { secret: boolean; protected: boolean }>;
  readonly folders: readonly { real: string; secret: boolean; protected: boolean }[];
}

export const NOTHING_LED: LedTo = { files: new Map(), folders: [] };

export const idOf = (st: OpenedFile): string => `${st.dev}:${st.ino}`;

/** Records where a symbolic link with a secret or protected name leads, when that is inside the project. */
function noteLink(root: string, rel: string, guard: SecretGuard, isProtectedName: (rel: string) => boolean, files: Map<string, { secret: boolean; protected: boolean }>, folders: { real: string; secret: boolean; protected: boolean }[]): void {
  const secret = guard.isSecret(rel);
  const isProtected = isProtectedName(rel);
  if (!secret && !isProtected) return;
  let real: string;
  let st: fs.Stats;
  try {
    real = fs.realpathSync(path.join(root, rel));
    st = fs.statSync(real);
  } catch {
    return; // dangling, or gone meanwhile
  }
  if (st.isDirectory()) {
    folders.push({ real, secret, protected: isProtected });
  } else if (st.isFile()) {
    const seen = files.get(idOf(st));
    files.set(idOf(st), { secret: secret || !!seen?.secret, protected: isProtected || !!seen?.protected });
  }
}

/** Walks the project (not node_modules, whose package managers link files from stores outside it), dot-folders first. */
export async function walkLinkedNames(root: string, guard: SecretGuard, isProtectedName: (rel: string) => boolean): Promise<LinkedNames> {
  const byId = new Map<string, { names: number; secret: boolean; protected: boolean; secretAt?: string }>();
  const deadline = Date.now() + INODES_SCAN_MS;
  let entries = 0;
  const ledFiles = new Map<string, { secret: boolean; protected: boolean }>();
  const ledFolders: { real: string; secret: boolean; protected: boolean }[] = [];
  const pending: string[] = [''];
  const dotFirst: string[] = [];
  while (pending.length || dotFirst.length) {
    if (Date.now() > deadline || entries > INODES_SCAN_ENTRIES) return { guard, at: Date.now(), byId, complete: false, ledTo: { files: ledFiles, folders: ledFolders } };
    const dir = (dotFirst.pop() ?? pending.pop()) as string;
    let list: fs.Dirent[];
    try {
      list = await fs.promises.readdir(path.join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    entries += list.length;
    let sinceYield = 0;
    for (const e of list) {
      // A folder of hundreds of thousands of entries: yield to the event loop, and stop at the bounds.
      if (++sinceYield >= WALK_YIELD_EVERY) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (Date.now() > deadline) return { guard, at: Date.now(), byId, complete: false, ledTo: { files: ledFiles, folders: ledFolders } };
      }
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) {
        // Dot-folders (.git, .husky, .github) and what is in them first: a walk cut short has seen their links.
        if (e.name !== 'node_modules') (/(^|\/)\./.test(rel) ? dotFirst : pending).push(rel);
        continue;
      }
      if (e.isSymbolicLink()) {
        noteLink(root, rel, guard, isProtectedName, ledFiles, ledFolders);
        continue;
      }
      if (!e.isFile()) continue;
      let st: fs.Stats;
      try {
        st = fs.statSync(path.join(root, rel));
      } catch {
        continue; // gone meanwhile
      }
      // A secret is recorded by inode even with one name: a walk during a swap race may see it
      // alone while its other names (a link being moved into place) are counted elsewhere.
      const secret = guard.isSecret(rel);
      if (st.nlink <= 1 && !secret) continue;
      const id = idOf(st);
      const seen = byId.get(id) ?? { names: 0, secret: false, protected: false };
      const secretAt = seen.secretAt ?? (secret ? rel : undefined);
      byId.set(id, { names: seen.names + 1, secret: seen.secret || secret, protected: seen.protected || isProtectedName(rel), ...(secretAt ? { secretAt } : {}) });
    }
  }
  return { guard, at: Date.now(), byId, complete: true, ledTo: { files: ledFiles, folders: ledFolders } };
}
