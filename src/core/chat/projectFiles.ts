/** The project's files for `@` completion: the set grep_file searches (ripgrep's walk, .gitignore and search excludes, no secret files), apart from ranking them. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { accessPolicy } from '../policy/accessPolicy';
import { withSecretExcludes } from '../policy/secrets';
import { normalizeExcludes } from '../search/ignore';
import { ripgrepPaths, runRipgrepText } from '../search/ripgrep';
import type { Workspace } from '../workspace/workspace';

/** The most files listed (a larger tree is listed up to here: the completion says what it can). */
export const MAX_LISTED_FILES = 200_000;
const LIST_TIMEOUT_MS = 10_000;
const WALK_SKIP = new Set(['.git', 'node_modules', '.svn', '.hg']);

/** The project's files, project-relative with `/`; listed by ripgrep, or by a bounded walk without it. */
export async function listProjectFiles(ws: Workspace): Promise<string[]> {
  const policy = accessPolicy(ws);
  const rg = ws.ripgrepPath();
  let files: string[] | undefined;
  if (rg) {
    const args = ['--files', '--no-config', '--hidden', '--no-require-git', '--no-ignore-parent', '--no-ignore-global', '--null'];
    for (const glob of normalizeExcludes(withSecretExcludes(ws.searchExcludes(), policy.secrets))) args.push('--glob', `!${glob}`);
    const out = await runRipgrepText(rg, args, { cwd: ws.root, timeoutMs: LIST_TIMEOUT_MS, maxBytes: 32 * 1024 * 1024 });
    files = out === undefined ? undefined : ripgrepPaths(out).slice(0, MAX_LISTED_FILES);
  }
  files ??= await walk(ws.root);
  return files.filter((rel) => !policy.hides(rel)).sort();
}

/** Without ripgrep: the tree, not through links, skipping VCS folders and node_modules, bounded in entries and time. */
async function walk(root: string): Promise<string[]> {
  const out: string[] = [];
  const deadline = Date.now() + LIST_TIMEOUT_MS;
  const pending = [''];
  while (pending.length && out.length < MAX_LISTED_FILES && Date.now() < deadline) {
    const dir = pending.pop() as string;
    const entries = await fs.promises.readdir(path.join(root, dir), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!WALK_SKIP.has(e.name)) pending.push(rel);
      } else if (e.isFile()) out.push(rel);
    }
  }
  return out;
}
