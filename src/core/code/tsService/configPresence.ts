import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

/**
 * Whether a folder holds a tsconfig.json or jsconfig.json, looked for on the host's own thread
 * without holding it (one folder read at a time, asynchronously), so a folder with none never starts
 * the language service's worker: while a worker starts, every code question waits for it. Past the
 * bounds the answer is yes, and the worker, which looks again, decides.
 */

const CONFIG_NAMES = new Set(['tsconfig.json', 'jsconfig.json']);
const SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

export interface PresenceBounds {
  readonly maxEntries: number;
  readonly maxMs: number;
}

const DEFAULT_BOUNDS: PresenceBounds = { maxEntries: 200_000, maxMs: 2_000 };

export async function holdsTsConfig(root: string, bounds: PresenceBounds = DEFAULT_BOUNDS): Promise<boolean> {
  const started = Date.now();
  const queue = [root];
  let seen = 0;
  while (queue.length) {
    const dir = queue.shift() as string;
    let entries;
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
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
