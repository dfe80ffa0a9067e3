import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { readHead } from '../policy/safeRead';
import { GlobAutomaton, lastComponentGlob, literalEnding, type StepBudget } from '../glob/globAutomaton';
import { escapeGlob, GlobError, parseBoundedGlob, type Token } from '../glob/globs';

/**
 * Which files a search considers, written once for both engines.
 *
 * ripgrep decides with its `globset` and `ignore` crates; the in-process fallback must decide the
 * same, so this module re-implements the parts ripgrep uses with the flags we pass it (the glob
 * syntax and matching of `globset` is in glob/globs.ts):
 *  - gitignore lines exactly as `GitignoreBuilder::add_line` reads them (comments, trailing spaces,
 *    `!` whitelists, leading '/' anchors, trailing '/' = folders only, no slash = any depth, `x/**`
 *    = only what is inside x), last matching line wins;
 *  - the precedence between `.rgignore`, `.ignore` and `.gitignore` files (the closest folder with a
 *    matching line decides, per kind; then `.rgignore` beats `.ignore` beats `.gitignore`), and the
 *    lowest-precedence "explicit" rules (`--ignore-file`).
 */

// ---------------------------------------------------------------------------------------------
// Gitignore rules

/**
 * Bounds on a repository's ignore files, which are hostile input like the rest of it: at most
 * MAX_IGNORE_FILE_BYTES of one file are read (cut at its last whole line) and its first
 * MAX_IGNORE_RULES rules used; the ignore files of the folders a walk is inside hold at most
 * MAX_IGNORE_BYTES_HELD together. What lies past a bound is skipped, and so is an entry whose
 * matching would take more than MAX_MATCH_STEPS_PER_ENTRY steps (it is kept, not ignored).
 * Skipping ignore rules only makes a search show MORE files, never a secret one: secret files are
 * left out by the access policy on their own (the walk's `isSecret`, then `hidesFound` on every
 * file found, in index.ts), whatever the ignore files say.
 */
export const MAX_IGNORE_FILE_BYTES = 1024 * 1024;
const MAX_IGNORE_RULES = 10_000;
export const MAX_IGNORE_BYTES_HELD = 8 * 1024 * 1024;
/** A few milliseconds of automaton steps: honest ignore files need a small fraction of it per entry. */
const MAX_MATCH_STEPS_PER_ENTRY = 100_000;

/** Code units of a rule's literal ending used as its index key: enough to tell rules apart, few lookups per name. */
const ENDING_KEY_CHARS = 16;

/** How long building a matcher holds the event loop at most before it gives it back. */
const BUILD_SLICE_MS = 8;

/** What building an automaton costs per code unit of its glob, in matching steps (measured: as long as ~46 steps). */
const BUILD_STEPS_PER_CHAR = 48;

/** Automata kept built per matcher; past that a rule's automaton is built for each test (its cost counted as steps). */
const MAX_BUILT_AUTOMATA = 1000;

interface Rule {
  /** The glob matched; for a rule of the last component only (see lastComponentGlob), that component's. */
  readonly glob: string;
  readonly lastComponent: boolean;
  readonly whitelist: boolean;
  readonly onlyDir: boolean;
  automaton?: GlobAutomaton;
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
function splitIgnoreFile(text: string): string[] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = body.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `unjudged`: matching ran out of steps; the entry is kept (see MAX_MATCH_STEPS_PER_ENTRY). */
export type IgnoreVerdict = 'ignore' | 'whitelist' | 'unjudged' | undefined;

/** A budget for one entry's matching. */
export const entryBudget = (): StepBudget => ({ steps: MAX_MATCH_STEPS_PER_ENTRY });

/**
 * The rules of one ignore file (or a list of lines): paths relative to its folder, last matching
 * rule wins. A rule whose glob ends in literal text (`*.log`, `node_modules`) is indexed by it, so a
 * name is tried only against the rules that could match it and those without such an ending.
 */
export class GitignoreMatcher {
  private readonly rules: Rule[] = [];
  /** Rule indexes (ascending) by the last ENDING_KEY_CHARS of their literal ending. */
  private readonly byEnding = new Map<string, number[]>();
  /** The lengths of the keys of `byEnding`, each once. */
  private readonly keyLengths: number[] = [];
  /** Rules with no literal ending, ascending. */
  private readonly unindexed: number[] = [];
  private built = 0;

  /** At most `maxRules` rules are used, the first ones (comments, blanks and bad lines do not count). */
  constructor(
    lines: readonly string[],
    private readonly maxRules = MAX_IGNORE_RULES,
  ) {
    for (const raw of lines) if (!this.add(raw)) break;
  }

  /** The same matcher, built in slices: parsing 10,000 rules takes a tenth of a second, too long to hold the host. */
  static async build(lines: readonly string[]): Promise<GitignoreMatcher> {
    const matcher = new GitignoreMatcher([]);
    let turned = performance.now();
    for (const raw of lines) {
      if (!matcher.add(raw)) break;
      if (performance.now() - turned > BUILD_SLICE_MS) {
        await nextTurn();
        turned = performance.now();
      }
    }
    return matcher;
  }

  /** Adds one line; false once the matcher holds `maxRules` rules. */
  private add(raw: string): boolean {
    if (this.rules.length >= this.maxRules) return false;
    const parsed = parseLine(raw);
    if (!parsed) return true;
    let tokens: Token[];
    try {
      tokens = parseBoundedGlob(parsed.glob);
    } catch (err) {
      // ripgrep reports a bad line and keeps the others: so do we (silently).
      if (!(err instanceof GlobError)) throw err;
      return true;
    }
    const index = this.rules.length;
    const component = lastComponentGlob(parsed.glob, tokens);
    this.rules.push({ glob: component ?? parsed.glob, lastComponent: component !== undefined, whitelist: parsed.whitelist, onlyDir: parsed.onlyDir });
    const key = literalEnding(tokens).slice(-ENDING_KEY_CHARS);
    if (key === '') {
      this.unindexed.push(index);
      return true;
    }
    const bucket = this.byEnding.get(key);
    if (bucket) bucket.push(index);
    else {
      this.byEnding.set(key, [index]);
      if (!this.keyLengths.includes(key.length)) this.keyLengths.push(key.length);
    }
    return true;
  }

  get isEmpty(): boolean {
    return this.rules.length === 0;
  }

  match(relPath: string, isDir: boolean, budget: StepBudget = entryBudget()): IgnoreVerdict {
    const slash = relPath.lastIndexOf('/');
    const name = relPath.slice(slash + 1);
    // What `**/` reads: a rule of the last component cannot match past a folder name holding '\n'.
    const componentReachable = !relPath.slice(0, Math.max(slash, 0)).includes('\n');
    const lists: number[][] = [this.unindexed];
    for (const n of this.keyLengths) {
      if (n > name.length) continue;
      const bucket = this.byEnding.get(name.slice(-n));
      if (bucket) lists.push(bucket);
    }
    // The candidates, last rule first (the last match wins): a merge of the ascending lists from their ends.
    const at = lists.map((l) => l.length - 1);
    for (;;) {
      let pick = -1;
      let index = -1;
      for (let i = 0; i < lists.length; i++) {
        const j = at[i] as number;
        const candidate = j >= 0 ? ((lists[i] as number[])[j] as number) : -1;
        if (candidate > index) {
          pick = i;
          index = candidate;
        }
      }
      if (pick === -1) return undefined;
      at[pick] = (at[pick] as number) - 1;
      const rule = this.rules[index] as Rule;
      budget.steps -= 1;
      if (budget.steps < 0) return 'unjudged';
      if (rule.onlyDir && !isDir) continue;
      if (rule.lastComponent && !componentReachable) continue;
      const automaton = this.automaton(rule, budget);
      if (automaton === undefined) return 'unjudged';
      const matched = automaton.matches(rule.lastComponent ? name : relPath, budget);
      if (matched === undefined) return 'unjudged';
      if (matched) return rule.whitelist ? 'whitelist' : 'ignore';
    }
  }

  /** The rule's automaton, built and paid for from `budget` if need be; undefined when the budget cannot pay. */
  private automaton(rule: Rule, budget: StepBudget): GlobAutomaton | undefined {
    if (rule.automaton) return rule.automaton;
    budget.steps -= rule.glob.length * BUILD_STEPS_PER_CHAR;
    if (budget.steps < 0) return undefined;
    const built = new GlobAutomaton(rule.glob);
    if (this.built < MAX_BUILT_AUTOMATA) {
      rule.automaton = built;
      this.built++;
    }
    return built;
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

/**
 * The lines of an ignore file, of its first `maxBytes` (cut at the last whole line), through
 * safeRead: a FIFO, a hard link or an unreadable file is undefined, as ripgrep skips it.
 */
export async function readIgnoreFile(abs: string, maxBytes = MAX_IGNORE_FILE_BYTES): Promise<{ lines: string[]; bytes: number } | undefined> {
  const head = await readHead(abs, maxBytes + 1);
  if (head === undefined) return undefined;
  const whole = head.length <= maxBytes ? head : head.subarray(0, head.lastIndexOf(0x0a, maxBytes - 1) + 1);
  return { lines: splitIgnoreFile(whole.toString('utf8')), bytes: whole.length };
}

/**
 * The explicit (lowest precedence, root-relative) ignore rules of a search: the root's
 * `.git/info/exclude`, then the ignore files of each folder from the root down to the target's
 * parent, rebased onto the root. A search of the whole project only gets `.git/info/exclude` here:
 * ripgrep reads the root's own ignore files itself. Folders above the project root are never read.
 * At most MAX_IGNORE_RULES rules in all, the first (lowest precedence) ones: both engines get this
 * list, so they skip the same rules.
 */
export async function explicitIgnoreLines(root: string, target: string): Promise<string[]> {
  const out: string[] = [];
  const add = (line: string | undefined): boolean => {
    if (line !== undefined && out.length < MAX_IGNORE_RULES) out.push(line);
    return out.length < MAX_IGNORE_RULES;
  };
  try {
    if ((await fs.stat(path.join(root, '.git'))).isDirectory()) {
      const exclude = await readIgnoreFile(path.join(root, '.git', 'info', 'exclude'));
      for (const line of exclude?.lines ?? []) if (!add(parseLine(line) ? line : undefined)) return out;
    }
  } catch {
    // no .git folder
  }
  if (target === '.') return out;
  const parts = target.split('/');
  for (let depth = 0; depth < parts.length; depth++) {
    const dir = parts.slice(0, depth).join('/');
    for (const name of IGNORE_FILES) {
      const file = await readIgnoreFile(path.join(root, ...parts.slice(0, depth), name));
      for (const line of file?.lines ?? []) {
        if (!add(dir === '' ? (parseLine(line) ? line : undefined) : rebaseIgnoreLine(line, dir))) return out;
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
      parseBoundedGlob(parsed.glob);
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

/**
 * The exclusion globs as one matcher (root-relative paths): a match means the entry is skipped. Built
 * in slices: a workspace's settings are repository input and may hold thousands of long globs.
 */
export function excludeMatcher(excludeGlobs: readonly string[]): Promise<GitignoreMatcher> {
  return GitignoreMatcher.build(excludeGlobs);
}
