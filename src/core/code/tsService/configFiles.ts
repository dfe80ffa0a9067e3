import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GuardedFiles } from './guardedFiles';

/**
 * The tsconfig.json and jsconfig.json files of a folder, looked for two ways with the same rules
 * (node_modules and .git skipped, links not followed): whether there is any, on the host's own
 * thread without holding it, so a folder with none never starts the language service's worker
 * (while a worker starts, every code question waits for it); and the list of them, in the worker,
 * each judged by GuardedFiles.
 */

const CONFIG_NAMES = new Set(['tsconfig.json', 'jsconfig.json']);
const SKIPPED_FOLDERS = new Set(['node_modules', '.git']);
/** Folder entries either walk reads at most. */
const MAX_WALK_ENTRIES = 200_000;

export interface PresenceBounds {
  readonly maxEntries: number;
  readonly maxMs: number;
}

const DEFAULT_BOUNDS: PresenceBounds = { maxEntries: MAX_WALK_ENTRIES, maxMs: 2_000 };

/** Whether there is any config; past the bounds the answer is yes, and the worker, which lists them, decides. */
export async function holdsTsConfig(root: string, bounds: PresenceBounds = DEFAULT_BOUNDS): Promise<boolean> {
  const started = Date.now();
  const queue = [root];
  let seen = 0;
  while (queue.length) {
    const dir = queue.shift() as string;
    let entries;
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable, or gone meanwhile
    }
    seen += entries.length;
    if (seen > bounds.maxEntries || Date.now() - started > bounds.maxMs) return true;
    for (const e of entries) {
      // Links are not followed (a Dirent of a link is neither a file nor a folder), as in the worker.
      if (e.isFile() && CONFIG_NAMES.has(e.name)) return true;
      if (e.isDirectory() && !SKIPPED_FOLDERS.has(e.name)) queue.push(path.join(dir, e.name));
    }
  }
  return false;
}

/** The config files in the folder, breadth first, at most `max` (node_modules, .git, links and secret files left out). */
export function findConfigs(root: string, files: Pick<GuardedFiles, 'allowed'>, max: number): string[] {
  const found: string[] = [];
  const queue = [root];
  let seen = 0;
  while (queue.length && found.length < max && seen < MAX_WALK_ENTRIES) {
    const dir = queue.shift() as string;
    let list: fs.Dirent[];
    try {
      list = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    seen += list.length;
    for (const e of list.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory() && !SKIPPED_FOLDERS.has(e.name)) queue.push(abs);
      else if (e.isFile() && CONFIG_NAMES.has(e.name) && files.allowed(abs) === abs) found.push(abs.split(path.sep).join('/'));
    }
  }
  return found.slice(0, max);
}
