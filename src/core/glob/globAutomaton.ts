import { parseBoundedGlob, type Token } from './globs';

/**
 * A glob (the syntax of globs.ts) matched by a finite automaton instead of a RegExp. JavaScript's
 * regexes backtrack: one three-wildcard ignore line tried on a deep path of long names is slow,
 * and a repository's ignore files hold thousands of lines tried on every entry. Here a path is read
 * once, code point by code point, keeping the set of automaton states it can be in, so one test
 * costs at most (code points × states) steps, and the caller can cap the steps.
 *
 * It is the only glob matcher in the source: the search's ignore files, exclusion globs and file-type
 * globs, and (through workspace/globSet.ts) the access policy's secret and protected globs. It accepts exactly what the reference RegExp of the same glob accepts
 * (test/support/globRegExp.ts; searchGlobs.test.ts compares them, and that RegExp with ripgrep).
 */

/** What one transition accepts. */
const enum Accepts {
  /** One code point, `arg`. */
  Char,
  /** Any code point but '/' (`?`, `*`). */
  NotSlash,
  /** Any code point but '\n' (the `**` parts, as ripgrep reads them). */
  NotNewline,
  /** Any code point (the `**` parts of a GlobSet, where a folder name may hold a '\n'). */
  Any,
  /** A class of `classes[arg]`. */
  Class,
}

interface Transition {
  readonly accepts: Accepts;
  readonly arg: number;
  readonly to: number;
}

interface CharClass {
  readonly negated: boolean;
  readonly ranges: ReadonlyArray<readonly [number, number]>;
}

const SLASH = 0x2f;
const NEWLINE = 0x0a;

/** How a glob reads a path beyond ripgrep's defaults. */
export interface GlobOptions {
  /** Letters match without case (the access policy: a case-insensitive disk opens `.GIT/config`). */
  readonly ignoreCase?: boolean;
  /** `**` reads folder names holding '\n', which ripgrep's `**` does not. */
  readonly newlineInNames?: boolean;
}

/** Steps left for the matching of one entry, shared by every rule it is tried against. */
export interface StepBudget {
  steps: number;
}

export class GlobAutomaton {
  // Built as lists, then flattened into typed arrays for matching.
  private empty: number[][] = [];
  private moves: Transition[][] = [];
  private readonly classes: CharClass[] = [];
  /** The states of `closures` reachable from state s without reading are closures[closureAt[s] .. closureAt[s + 1]). */
  private readonly closureAt: Int32Array;
  private readonly closures: Int32Array;
  /** The transitions of state s are moveAt[s] .. moveAt[s + 1] in the three arrays after it. */
  private readonly moveAt: Int32Array;
  private readonly moveAccepts: Uint8Array;
  private readonly moveArg: Int32Array;
  private readonly moveTo: Int32Array;
  private readonly accept: number;
  private readonly ignoreCase: boolean;
  /** What the `**` parts read: NotNewline as in ripgrep, or Any. */
  private readonly anyPath: Accepts;
  /** The state sets before and after a code point, and a mark per state: no allocation per step. */
  private current: Int32Array;
  private next: Int32Array;
  private readonly mark: Uint32Array;
  private stamp = 0;

  /** Throws GlobError for a glob ripgrep would refuse or one over the length bound. */
  constructor(glob: string, options: GlobOptions = {}) {
    this.ignoreCase = options.ignoreCase === true;
    this.anyPath = options.newlineInNames === true ? Accepts.Any : Accepts.NotNewline;
    const tokens = parseBoundedGlob(glob);
    const start = this.state();
    if (tokens.length === 1 && tokens[0]?.k === 'rprefix') {
      // A lone `**` matches every path (but, as in ripgrep, one holding '\n').
      this.move(start, this.anyPath, 0, start);
      this.accept = start;
    } else {
      this.accept = this.sequence(tokens, start);
    }
    const states = this.empty.length;
    this.mark = new Uint32Array(states);
    this.current = new Int32Array(states);
    this.next = new Int32Array(states);
    const closureAt: number[] = [];
    const closures: number[] = [];
    for (let s = 0; s < states; s++) {
      closureAt.push(closures.length);
      this.stamp++;
      const stack = [s];
      while (stack.length > 0) {
        const t = stack.pop() as number;
        if (this.mark[t] === this.stamp) continue;
        this.mark[t] = this.stamp;
        closures.push(t);
        for (const u of this.empty[t] as number[]) stack.push(u);
      }
    }
    closureAt.push(closures.length);
    this.closureAt = Int32Array.from(closureAt);
    this.closures = Int32Array.from(closures);
    const all = this.moves.flat();
    this.moveAt = new Int32Array(states + 1);
    for (let s = 0, n = 0; s < states; s++) {
      this.moveAt[s] = n;
      n += (this.moves[s] as Transition[]).length;
      this.moveAt[s + 1] = n;
    }
    this.moveAccepts = Uint8Array.from(all, (m) => m.accepts);
    this.moveArg = Int32Array.from(all, (m) => m.arg);
    this.moveTo = Int32Array.from(all, (m) => m.to);
    this.empty = [];
    this.moves = [];
  }

  /**
   * Whether the whole of `text` matches; undefined when `budget` ran out first. Each state visited
   * and each transition tried costs a step.
   */
  matches(text: string, budget: StepBudget): boolean | undefined {
    let size = this.addClosure(this.current, 0, 0, this.nextStamp());
    for (let i = 0; i < text.length; i++) {
      let cp = text.charCodeAt(i);
      if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
        const low = text.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          cp = (cp - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
          i++;
        }
      }
      if (this.ignoreCase) cp = lowerCodePoint(cp);
      const stamp = this.nextStamp();
      let nextSize = 0;
      let cost = size;
      for (let k = 0; k < size; k++) {
        const s = this.current[k] as number;
        const last = this.moveAt[s + 1] as number;
        cost += last - (this.moveAt[s] as number);
        for (let m = this.moveAt[s] as number; m < last; m++) {
          if (this.takes(m, cp)) nextSize = this.addClosure(this.next, nextSize, this.moveTo[m] as number, stamp);
        }
      }
      budget.steps -= cost;
      if (budget.steps < 0) return undefined;
      if (nextSize === 0) return false;
      [this.current, this.next] = [this.next, this.current];
      size = nextSize;
    }
    for (let k = 0; k < size; k++) if (this.current[k] === this.accept) return true;
    return false;
  }

  private nextStamp(): number {
    if (this.stamp === 0xffffffff) {
      this.mark.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }

  /** Adds the closure of `state` to `set` (of `size` states so far, marked with `stamp`); returns the new size. */
  private addClosure(set: Int32Array, size: number, state: number, stamp: number): number {
    let n = size;
    const last = this.closureAt[state + 1] as number;
    for (let c = this.closureAt[state] as number; c < last; c++) {
      const t = this.closures[c] as number;
      if (this.mark[t] === stamp) continue;
      this.mark[t] = stamp;
      set[n++] = t;
    }
    return n;
  }

  private takes(m: number, cp: number): boolean {
    switch (this.moveAccepts[m] as Accepts) {
      case Accepts.Char:
        return cp === this.moveArg[m];
      case Accepts.NotSlash:
        return cp !== SLASH;
      case Accepts.NotNewline:
        return cp !== NEWLINE;
      case Accepts.Any:
        return true;
      case Accepts.Class: {
        const c = this.classes[this.moveArg[m] as number] as CharClass;
        // Without case, `cp` arrives lowercased: `[A-Z]` must still take it.
        const inRanges = (x: number): boolean => c.ranges.some(([a, b]) => x >= a && x <= b);
        return (inRanges(cp) || (this.ignoreCase && inRanges(upperCodePoint(cp)))) !== c.negated;
      }
    }
  }

  private state(): number {
    this.empty.push([]);
    this.moves.push([]);
    return this.empty.length - 1;
  }

  private move(from: number, accepts: Accepts, arg: number, to: number): void {
    this.moves[from]?.push({ accepts, arg, to });
  }

  private link(from: number, to: number): void {
    this.empty[from]?.push(to);
  }

  /** Appends `tokens` after state `from`; returns the state reached once they are read. */
  private sequence(tokens: readonly Token[], from: number): number {
    let at = from;
    for (const t of tokens) at = this.token(t, at);
    return at;
  }

  // Each token reads what its piece of the reference RegExp reads (test/support/globRegExp.ts).
  private token(t: Token, from: number): number {
    switch (t.k) {
      case 'lit': {
        const to = this.state();
        const cp = t.c.codePointAt(0) as number;
        this.move(from, Accepts.Char, this.ignoreCase ? lowerCodePoint(cp) : cp, to);
        return to;
      }
      case 'any': {
        const to = this.state();
        this.move(from, Accepts.NotSlash, 0, to);
        return to;
      }
      case 'class': {
        const to = this.state();
        this.classes.push({ negated: t.negated, ranges: t.ranges });
        this.move(from, Accepts.Class, this.classes.length - 1, to);
        return to;
      }
      case 'star': {
        // `[^/]*`
        const loop = this.state();
        this.link(from, loop);
        this.move(loop, Accepts.NotSlash, 0, loop);
        return loop;
      }
      case 'rprefix': {
        // `(?:/?|[^\n]*/)`
        const to = this.state();
        const any = this.state();
        this.link(from, to);
        this.move(from, Accepts.Char, SLASH, to);
        this.link(from, any);
        this.move(any, this.anyPath, 0, any);
        this.move(any, Accepts.Char, SLASH, to);
        return to;
      }
      case 'rsuffix': {
        // `/[^\n]*`
        const rest = this.state();
        this.move(from, Accepts.Char, SLASH, rest);
        this.move(rest, this.anyPath, 0, rest);
        return rest;
      }
      case 'rzero': {
        // `(?:/|/[^\n]*/)`
        const to = this.state();
        const any = this.state();
        this.move(from, Accepts.Char, SLASH, to);
        this.move(from, Accepts.Char, SLASH, any);
        this.move(any, this.anyPath, 0, any);
        this.move(any, Accepts.Char, SLASH, to);
        return to;
      }
      case 'alt': {
        // Empty branches add nothing to the RegExp, and no branch at all leaves nothing to read.
        const branches = t.branches.filter((b) => b.length > 0);
        if (branches.length === 0) return from;
        const to = this.state();
        for (const b of branches) {
          const begin = this.state();
          this.link(from, begin);
          this.link(this.sequence(b, begin), to);
        }
        return to;
      }
    }
  }
}

/** A code point lowercased on its own, or itself where that takes more than one code point (`İ`). */
function lowerCodePoint(cp: number): number {
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? cp + 0x20 : cp;
  return singleCodePoint(String.fromCodePoint(cp).toLowerCase()) ?? cp;
}

function upperCodePoint(cp: number): number {
  if (cp < 0x80) return cp >= 0x61 && cp <= 0x7a ? cp - 0x20 : cp;
  return singleCodePoint(String.fromCodePoint(cp).toUpperCase()) ?? cp;
}

function singleCodePoint(s: string): number | undefined {
  const cp = s.codePointAt(0);
  return cp !== undefined && s.length === (cp > 0xffff ? 2 : 1) ? cp : undefined;
}

/**
 * The literal text every path a glob (its tokens) matches ends with, within its last path component (empty when
 * none): an index key that finds the few rules worth trying on a name.
 */
export function literalEnding(tokens: readonly Token[]): string {
  let out = '';
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i] as Token;
    if (t.k !== 'lit' || t.c === '/') break;
    out = t.c + out;
  }
  return out;
}

/** Whether a token can read a '/' (a negated class can). */
function mayReadSlash(t: Token): boolean {
  switch (t.k) {
    case 'lit':
      return t.c === '/';
    case 'any':
    case 'star':
      return false;
    case 'class':
      return t.negated || t.ranges.some(([a, b]) => a <= SLASH && SLASH <= b);
    case 'alt':
      return t.branches.some((b) => b.some(mayReadSlash));
    default:
      return true;
  }
}

/**
 * For a glob `**\/X` whose X cannot read a '/' (most ignore lines: `*.log`, `node_modules`), X: such a
 * glob matches a path exactly when X matches its last component and the folders before it hold no
 * '\n' (what `**` reads). Undefined for any other glob.
 */
export function lastComponentGlob(glob: string, tokens: readonly Token[]): string | undefined {
  if (tokens.length < 2 || tokens[0]?.k !== 'rprefix' || !glob.startsWith('**/')) return undefined;
  return tokens.slice(1).some(mayReadSlash) ? undefined : glob.slice(3);
}

/**
 * Steps one file name may take against the file-type globs: they come from fileTypes.ts (at most 32
 * names, a few short globs each), so a name of 255 code units needs a small fraction of it.
 */
const MAX_NAME_MATCH_STEPS = 1_000_000;

/** File-name globs of a file type as one matcher over names. Throws GlobError. */
export class NameMatcher {
  private readonly automata: GlobAutomaton[];
  constructor(globs: readonly string[]) {
    this.automata = globs.map((g) => new GlobAutomaton(g));
  }

  /** Whether a glob matches `name`; a name that would take more than the step bound is not of the type. */
  test(name: string): boolean {
    const budget: StepBudget = { steps: MAX_NAME_MATCH_STEPS };
    return this.automata.some((a) => a.matches(name, budget) === true);
  }
}
