/**
 * The one glob engine for judging a project-relative path: secret files (`agentBridge.excludeGlobs`),
 * protected files (the built-in list and `agentBridge.protectedGlobs`), and every listing or search
 * answer filtered by them. It wraps minimatch, and nothing else in the source imports minimatch:
 * minimatch is already a dependency, reads the glob dialect users write in VS Code settings
 * (`**`, braces, classes, extglobs), and matches without case and with dotfiles by option.
 *
 * The search engines select files (.gitignore, `files.exclude`) in ripgrep's own dialect (search/globs.ts
 * emulates it for the in-process search, checked against ripgrep): that decides what is searched,
 * never what is secret. The in-process search asks this engine which paths are secret; ripgrep,
 * which cannot ask, is given the secret globs to skip; every file either finds is judged here again.
 */
import { Minimatch } from 'minimatch';

/**
 * A compiled list of globs over project-relative paths (forward slashes), matched the one way every
 * check here matches: minimatch, dotfiles included, without case (a case-insensitive disk opens
 * `.GIT/config` as `.git/config`), and without regard to Unicode normalization (glob and path both
 * in NFC: `ä` may be stored as `a` plus a combining mark, and macOS opens either spelling). On a
 * system where `\` is a name character, a path with one is matched as written and with `/` in its
 * place, the stricter answer winning. Answers are remembered: agents ask about the same files again
 * and again, and each path is matched twice (as itself and as a folder's contents).
 *
 * A glob is read as the search engines read it (search/ignore.ts `normalizeExcludes`), so that a
 * file the search never enters is also one the policy refuses: anchored at the project root (a
 * leading `/` or `./` is dropped), a trailing `/` names the folder, and a glob that matches a folder
 * covers everything inside it (`secrets` hides `secrets/prod.key`, as in `files.exclude`).
 */
export class GlobSet {
  readonly globs: readonly string[];
  private readonly matchers: readonly { glob: string; needle: string | undefined; m: Minimatch }[];
  /** Remembered answers: the glob that matched, or null for none. */
  private readonly seen = new Map<string, string | null>();
  /** The same for the folders holding the paths asked about: far fewer, and each asked for many files. */
  private readonly folders = new Map<string, string | null>();

  constructor(globs: readonly string[]) {
    this.globs = globs.map((g) => g.trim()).filter((g) => g !== '' && !g.startsWith('#'));
    this.matchers = this.globs.map((glob) => {
      const nfc = asSearchReadsIt(glob).normalize('NFC');
      return { glob, needle: needleOf(nfc), m: new Minimatch(nfc, OPTIONS) };
    });
  }

  /**
   * The first glob that matches `rel`, else the one that matches the nearest folder holding it, or
   * undefined. A folder matches when its contents would (`.git`).
   */
  match(rel: string): string | undefined {
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
    return this.matchers.find(({ needle, m }) => (needle === undefined || lower.includes(needle)) && (m.match(clean) || m.match(inside)))?.glob;
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

const OPTIONS = { dot: true, nocase: true, nocomment: true } as const;
const BACKSLASH_IS_A_NAME_CHARACTER = process.platform !== 'win32';
/** Paths whose answer `GlobSet.match` remembers; the memo starts over when full. */
const MATCH_MEMO_SIZE = 10_000;

/** The secret globs: `agentBridge.excludeGlobs`, or the headless host's defaults plus `--exclude-glob`. */
export class SecretGuard extends GlobSet {
  isSecret(rel: string): boolean {
    return this.match(rel) !== undefined;
  }
}
