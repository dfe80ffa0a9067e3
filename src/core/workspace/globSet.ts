/**
 * Judges a project-relative path against a list of globs: secret files (`agentBridge.excludeGlobs`),
 * protected files (the built-in list and `agentBridge.protectedGlobs`), and every listing or search
 * answer filtered by them. It matches with the project's one glob engine (glob/globAutomaton.ts, in
 * ripgrep's dialect, the one the search uses for .gitignore and `files.exclude`), so no glob here
 * is ever a backtracking RegExp. ripgrep, which cannot ask, is given the secret globs to skip; every
 * file either search finds is judged here again.
 *
 * What users write in VS Code-style settings beyond ripgrep's dialect is read as minimatch read it
 * before: nested braces and `{1..3}` are expanded (glob/braces.ts), a leading `!` matches what the
 * rest does not. Extglob groups (`@(a|b)`) and POSIX classes (`[[:alpha:]]`) mean something else to
 * ripgrep, so such a glob is refused rather than read differently.
 */
import { expandBraces } from '../glob/braces';
import { GlobAutomaton, type GlobOptions, type StepBudget } from '../glob/globAutomaton';
import { GlobError } from '../glob/globs';

/** A glob the engine cannot read, and why. */
export interface RefusedGlob {
  readonly glob: string;
  readonly reason: string;
}

interface CompiledGlob {
  readonly glob: string;
  readonly needle: string | undefined;
  /** A leading `!` (an odd number of them): the glob matches what the automata do not. */
  readonly negated: boolean;
  /** One automaton per brace expansion; the glob matches when one of them does. */
  readonly automata: readonly GlobAutomaton[];
}

/**
 * A compiled list of globs over project-relative paths (forward slashes), matched the one way every
 * check here matches: dotfiles included, without case (a case-insensitive disk opens `.GIT/config`
 * as `.git/config`), `**` reading any folder name (one holding a newline too), and without regard to
 * Unicode normalization (glob and path both in NFC: `ä` may be stored as `a` plus a combining mark,
 * and macOS opens either spelling). On a system where `\` is a name character, a path with one is
 * matched as written and with `/` in its place, the stricter answer winning. Answers are remembered:
 * agents ask about the same files again and again, and each path is matched twice (as itself and as
 * a folder's contents).
 *
 * A glob is read as the search engines read it (search/ignore.ts `normalizeExcludes`), so that a
 * file the search never enters is also one the policy refuses: anchored at the project root (a
 * leading `/` or `./` is dropped), a trailing `/` names the folder, and a glob that matches a folder
 * covers everything inside it (`secrets` hides `secrets/prod.key`, as in `files.exclude`).
 *
 * Fail closed: while any glob is refused (too long, invalid, too many expansions), every path
 * matches it, so a secret is never readable because its glob was mistyped. `refused` says which
 * globs, for the host to tell the user.
 */
export class GlobSet {
  readonly globs: readonly string[];
  /** The globs the engine could not read; while there is one, it matches every path. */
  readonly refused: readonly RefusedGlob[];
  private readonly compiled: readonly CompiledGlob[];
  /** Remembered answers: the glob that matched, or null for none. */
  private readonly seen = new Map<string, string | null>();
  /** The same for the folders holding the paths asked about: far fewer, and each asked for many files. */
  private readonly folders = new Map<string, string | null>();

  constructor(globs: readonly string[]) {
    this.globs = globs.map((g) => g.trim()).filter((g) => g !== '' && !g.startsWith('#'));
    const compiled: CompiledGlob[] = [];
    const refused: RefusedGlob[] = [];
    for (const glob of this.globs) {
      try {
        compiled.push(compile(glob));
      } catch (err) {
        if (!(err instanceof GlobError)) throw err;
        refused.push({ glob, reason: err.message });
      }
    }
    this.compiled = compiled;
    this.refused = refused;
  }

  /**
   * The first glob that matches `rel`, else the one that matches the nearest folder holding it, or
   * undefined. A folder matches when its contents would (`.git`). While a glob is refused, that glob
   * for every path.
   */
  match(rel: string): string | undefined {
    if (this.refused.length > 0) return this.refused[0]?.glob;
    const known = this.seen.get(rel);
    if (known !== undefined) return known ?? undefined;
    const nfc = rel.normalize('NFC');
    const slashed = nfc.replace(/\\/g, '/');
    const glob =
      this.matchClean(slashed) ?? (BACKSLASH_IS_A_NAME_CHARACTER && slashed !== nfc ? this.matchClean(nfc) : undefined) ?? this.matchFolderOf(slashed);
    if (this.seen.size >= MATCH_MEMO_SIZE) this.seen.clear();
    this.seen.set(rel, glob ?? null);
    return glob;
  }

  /** The glob that matches the folder holding `rel` (forward slashes), or one above it. */
  private matchFolderOf(rel: string): string | undefined {
    const clean = rel.replace(/^\.\/+/, '').replace(/\/+$/, '');
    const cut = clean.lastIndexOf('/');
    if (cut <= 0) return undefined;
    const folder = clean.slice(0, cut);
    const known = this.folders.get(folder);
    if (known !== undefined) return known ?? undefined;
    const glob = this.matchClean(folder) ?? this.matchFolderOf(folder);
    if (this.folders.size >= MATCH_MEMO_SIZE) this.folders.clear();
    this.folders.set(folder, glob ?? null);
    return glob;
  }

  private matchClean(rel: string): string | undefined {
    const clean = rel.replace(/^\.\/+/, '').replace(/\/+$/, '');
    if (clean === '' || clean === '.') return undefined;
    const inside = `${clean}/x`;
    // A glob is tried only on a path that has its literal part: a search answer of 16,000 files was
    // otherwise matched against every glob, costing more than ripgrep's whole search.
    const lower = inside.toLowerCase();
    return this.compiled.find((c) => (c.needle === undefined || lower.includes(c.needle)) && (matches(c, clean) || matches(c, inside)))?.glob;
  }
}

/**
 * The longest literal part of a glob that every path it matches must contain (lowercased: the
 * globs match without case), or undefined when there is none to rely on. Only text outside braces,
 * classes and extglob groups counts, cut at wildcards and at `/` (`**\/` may match no folder).
 */
export function needleOf(glob: string): string | undefined {
  if (glob.startsWith('!')) return undefined; // a negation matches what lacks its text
  let depth = 0;
  let run = '';
  let best = '';
  const flush = (): void => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (const ch of glob) {
    if (ch === '{' || ch === '[' || ch === '(') {
      flush();
      depth++;
    } else if (ch === '}' || ch === ']' || ch === ')') {
      flush();
      depth = Math.max(0, depth - 1);
    } else if (depth > 0 || '*?!+@\\/,|'.includes(ch)) {
      flush();
    } else {
      run += ch;
    }
  }
  flush();
  return best ? best.toLowerCase() : undefined;
}

/** A glob as the search engines anchor it: no leading `/` or `./`, no trailing `/` (unless nothing else is left). */
function asSearchReadsIt(glob: string): string {
  const anchored = glob.replace(/^(?:\.?\/)+/, '');
  const folder = anchored.replace(/\/+$/, '');
  return folder === '' ? glob : folder;
}

/** Throws GlobError for a glob the engine cannot read, or one ripgrep would read otherwise than minimatch did. */
function compile(glob: string): CompiledGlob {
  const read = asSearchReadsIt(glob).normalize('NFC');
  const bangs = /^!*/.exec(read)?.[0].length ?? 0;
  const body = read.slice(bangs);
  if (EXTGLOB.test(body)) throw new GlobError(`extglob groups such as '@(a|b)' are not supported in glob '${glob}': use braces, '{a,b}'`);
  if (POSIX_CLASS.test(body)) throw new GlobError(`POSIX classes such as '[[:alpha:]]' are not supported in glob '${glob}': use ranges, '[a-z]'`);
  const automata = expandBraces(body).map((g) => new GlobAutomaton(g, GLOB_OPTIONS));
  return { glob, needle: needleOf(read), negated: bangs % 2 === 1, automata };
}

function matches(c: CompiledGlob, path: string): boolean {
  return c.automata.some((a) => a.matches(path, NO_STEP_BOUND) === true) !== c.negated;
}

/** `@(`, `!(`, `+(`, `*(` or `?(` opening a group that closes: minimatch's extglobs. */
const EXTGLOB = /(?:^|[^\\])[@!+*?]\([^)]*\)/;
const POSIX_CLASS = /\[\[:[a-z]+:\]/;
const GLOB_OPTIONS: GlobOptions = { ignoreCase: true, newlineInNames: true };
/**
 * The automaton never backtracks: a test costs at most (path length × states), and a glob holds at
 * most MAX_GLOB_CHARS, so a policy check needs no step bound (nor an answer for running out).
 */
const NO_STEP_BOUND: StepBudget = { steps: Number.POSITIVE_INFINITY };
const BACKSLASH_IS_A_NAME_CHARACTER = process.platform !== 'win32';
/** Paths whose answer `GlobSet.match` remembers; the memo starts over when full. */
const MATCH_MEMO_SIZE = 10_000;

/** The secret globs: `agentBridge.excludeGlobs`, or the headless host's defaults plus `--exclude-glob`. */
export class SecretGuard extends GlobSet {
  isSecret(rel: string): boolean {
    return this.match(rel) !== undefined;
  }
}
