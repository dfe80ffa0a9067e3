import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { readSmallText } from '../policy/safeRead';
import { escapeGlob, GlobError, globToRegExp } from './globs';

/**
 * Which files a search considers, written once for both engines.
 *
 * ripgrep decides with its `globset` and `ignore` crates; the in-process fallback must decide the
 * same, so this module re-implements the parts ripgrep uses with the flags we pass it (the glob
 * syntax and matching of `globset` is in globs.ts):
 *  - gitignore lines exactly as `GitignoreBuilder::add_line` reads them (comments, trailing spaces,
 *    `!` whitelists, leading '/' anchors, trailing '/' = folders only, no slash = any depth, `x/**`
 *    = only what is inside x), last matching line wins;
 *  - the precedence between `.rgignore`, `.ignore` and `.gitignore` files (the closest folder with a
 *    matching line decides, per kind; then `.rgignore` beats `.ignore` beats `.gitignore`), and the
 *    lowest-precedence "explicit" rules (`--ignore-file`).
 */

// ---------------------------------------------------------------------------------------------
// Gitignore rules

interface Rule {
  readonly re: RegExp;
  readonly whitelist: boolean;
  readonly onlyDir: boolean;
}

/** The parts of one gitignore line, as `GitignoreBuilder::add_line` understands it; undefined for comments and blanks. */
interface ParsedLine {
  readonly whitelist: boolean;
  readonly onlyDir: boolean;
  /** The glob actually matched against the path relative to the ignore file's folder. */
  readonly glob: string;
}

function parseLine(raw: string): ParsedLine | undefined {
  let line = raw;
  if (line.startsWith('#')) return undefined;
  if (!line.endsWith('\\ ')) line = line.trimEnd();
  if (line === '') return undefined;
  let whitelist = false;
  let absolute = false;
  if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
    absolute = line.startsWith('/');
  } else {
    if (line.startsWith('!')) {
      whitelist = true;
      line = line.slice(1);
    }
    if (line.startsWith('/')) {
      line = line.slice(1);
      absolute = true;
    }
  }
  let onlyDir = false;
  if (line.endsWith('/')) {
    onlyDir = true;
    line = line.slice(0, -1);
    if (line.endsWith('\\')) line = line.slice(0, -1);
  }
  let glob = line;
  if (!absolute && !line.includes('/') && !(glob.startsWith('**/') || glob === '**')) glob = `**/${glob}`;
  if (glob.endsWith('/**')) glob = `${glob}/*`;
  return { whitelist, onlyDir, glob };
}

/** The lines of an ignore file as ripgrep reads them (`BufRead::lines`: '\n' or '\r\n' ends a line). */
export function splitIgnoreFile(text: string): string[] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = body.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export type IgnoreVerdict = 'ignore' | 'whitelist' | undefined;

/** The rules of one ignore file (or a list of lines): paths relative to its folder, last matching rule wins. */
export class GitignoreMatcher {
  private readonly rules: Rule[] = [];

  constructor(lines: readonly string[]) {
    for (const raw of lines) {
      const parsed = parseLine(raw);
      if (!parsed) continue;
      try {
        this.rules.push({ re: globToRegExp(parsed.glob), whitelist: parsed.whitelist, onlyDir: parsed.onlyDir });
      } catch (err) {
        // ripgrep reports a bad line and keeps the others: so do we (silently).
        if (!(err instanceof GlobError) && !(err instanceof SyntaxError)) throw err;
      }
    }
  }

  get isEmpty(): boolean {
    return this.rules.length === 0;
  }

  match(relPath: string, isDir: boolean): IgnoreVerdict {
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i] as Rule;
      if (rule.onlyDir && !isDir) continue;
      if (rule.re.test(relPath)) return rule.whitelist ? 'whitelist' : 'ignore';
    }
    return undefined;
  }
}

/**
 * Rewrites one line of the ignore file of folder `dir` (root-relative, non-empty) so that it means
 * the same relative to the root; undefined for comments and blank lines.
 */
export function rebaseIgnoreLine(line: string, dir: string): string | undefined {
  const parsed = parseLine(line);
  if (!parsed) return undefined;
  return `${parsed.whitelist ? '!' : ''}/${escapeGlob(dir)}/${parsed.glob}${parsed.onlyDir ? '/' : ''}`;
}

/** Ignore file names, lowest precedence first (ripgrep: `.rgignore` > `.ignore` > `.gitignore`). */
export const IGNORE_FILES = ['.gitignore', '.ignore', '.rgignore'] as const;
export type IgnoreFileName = (typeof IGNORE_FILES)[number];

/** Through safeRead: an ignore file that is a FIFO (or huge) must not block the search. */
const readText = (file: string): Promise<string | undefined> => readSmallText(file);

/**
 * The explicit (lowest precedence, root-relative) ignore rules of a search: the root's
 * `.git/info/exclude`, then the ignore files of each folder from the root down to the target's
 * parent, rebased onto the root. A search of the whole project only gets `.git/info/exclude` here:
 * ripgrep reads the root's own ignore files itself. Folders above the project root are never read.
 */
export async function explicitIgnoreLines(root: string, target: string): Promise<string[]> {
  const out: string[] = [];
  try {
    if ((await fs.stat(path.join(root, '.git'))).isDirectory()) {
      const exclude = await readText(path.join(root, '.git', 'info', 'exclude'));
      if (exclude !== undefined) out.push(...splitIgnoreFile(exclude).filter((l) => parseLine(l) !== undefined));
    }
  } catch {
    // no .git folder
  }
  if (target === '.') return out;
  const parts = target.split('/');
  for (let depth = 0; depth < parts.length; depth++) {
    const dir = parts.slice(0, depth).join('/');
    for (const name of IGNORE_FILES) {
      const text = await readText(path.join(root, ...parts.slice(0, depth), name));
      if (text === undefined) continue;
      for (const line of splitIgnoreFile(text)) {
        const rebased = dir === '' ? (parseLine(line) ? line : undefined) : rebaseIgnoreLine(line, dir);
        if (rebased !== undefined) out.push(rebased);
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Exclusion globs (VS Code `files.exclude` / `search.exclude`)

/** Folders no search ever enters (VS Code's own search skips them too). */
const ALWAYS_EXCLUDED = ['**/.git', '**/.svn', '**/.hg'];

/**
 * VS Code exclusion globs → ripgrep `--glob` bodies (without the '!'), anchored at the root so they
 * keep VS Code's meaning (`node_modules` = only the root's; `**\/node_modules` = at any depth).
 * Globs ripgrep could not parse are dropped (it would refuse to run at all).
 */
export function normalizeExcludes(globs: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of [...ALWAYS_EXCLUDED, ...globs]) {
    let g = raw.trim();
    while (g.startsWith('./')) g = g.slice(2);
    while (g.startsWith('/')) g = g.slice(1);
    if (g === '' || g.startsWith('!') || g.startsWith('#')) continue;
    const body = `/${g}`;
    const parsed = parseLine(body);
    if (!parsed) continue;
    try {
      globToRegExp(parsed.glob);
    } catch {
      continue;
    }
    if (!seen.has(body)) {
      seen.add(body);
      out.push(body);
    }
  }
  return out;
}

/** The exclusion globs as one matcher (root-relative paths): a match means the entry is skipped. */
export function excludeMatcher(excludeGlobs: readonly string[]): GitignoreMatcher {
  return new GitignoreMatcher(excludeGlobs);
}
