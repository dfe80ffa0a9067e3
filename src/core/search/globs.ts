/**
 * Globs as ripgrep reads them, for the in-process fallback that must match the same paths (see
 * ignore.ts for the rules built on them): the glob syntax and matching of ripgrep 13's `globset`
 * (gitignore flavour: `*` and `?` do not cross '/', `**` only as a whole path component,
 * `[...]`/`[!...]` classes, `{a,b}`, `\` escapes), compiled to a RegExp.
 */

export type Token =
  | { readonly k: 'lit'; readonly c: string }
  | { readonly k: 'any' }
  | { readonly k: 'star' }
  | { readonly k: 'rprefix' }
  | { readonly k: 'rsuffix' }
  | { readonly k: 'rzero' }
  | { readonly k: 'class'; readonly negated: boolean; readonly ranges: ReadonlyArray<readonly [number, number]> }
  | { readonly k: 'alt'; readonly branches: readonly Token[][] };

export class GlobError extends Error {}

/** Parses a glob like globset 0.4 (ripgrep 13) with literal_separator and backslash_escape on. */
function parseGlob(glob: string): Token[] {
  const chars = Array.from(glob);
  let pos = 0;
  let prev: string | undefined;
  let cur: string | undefined;
  const stack: Token[][] = [[]];
  const bump = (): string | undefined => {
    prev = cur;
    cur = chars[pos++];
    return cur;
  };
  const peek = (): string | undefined => chars[pos];
  const top = (): Token[] => stack[stack.length - 1] as Token[];
  const push = (t: Token): void => {
    top().push(t);
  };

  const parseStar = (): void => {
    const before = prev;
    if (peek() !== '*') {
      push({ k: 'star' });
      return;
    }
    bump();
    if (top().length === 0) {
      const next = peek();
      if (next !== undefined && next !== '/') {
        push({ k: 'star' });
        push({ k: 'star' });
      } else {
        push({ k: 'rprefix' });
        bump();
      }
      return;
    }
    if (before !== '/') {
      if (stack.length <= 1 || (before !== ',' && before !== '{')) {
        push({ k: 'star' });
        push({ k: 'star' });
        return;
      }
    }
    let isSuffix: boolean;
    const next = peek();
    if (next === undefined) {
      bump();
      isSuffix = true;
    } else if ((next === ',' || next === '}') && stack.length >= 2) {
      isSuffix = true;
    } else if (next === '/') {
      bump();
      isSuffix = false;
    } else {
      push({ k: 'star' });
      push({ k: 'star' });
      return;
    }
    const popped = top().pop();
    if (popped?.k === 'rprefix') push({ k: 'rprefix' });
    else if (popped?.k === 'rsuffix') push({ k: 'rsuffix' });
    else push({ k: isSuffix ? 'rsuffix' : 'rzero' });
  };

  const parseClass = (): void => {
    const ranges: Array<[number, number]> = [];
    let negated = false;
    if (peek() === '!' || peek() === '^') {
      bump();
      negated = true;
    }
    let first = true;
    let inRange = false;
    for (;;) {
      const c = bump();
      if (c === undefined) throw new GlobError(`unclosed character class in glob '${glob}'`);
      if (c === ']') {
        if (first) ranges.push([0x5d, 0x5d]);
        else break;
      } else if (c === '-') {
        if (first) ranges.push([0x2d, 0x2d]);
        else if (inRange) {
          const r = ranges[ranges.length - 1] as [number, number];
          r[1] = 0x2d;
          if (r[1] < r[0]) throw new GlobError(`invalid range in glob '${glob}'`);
          inRange = false;
        } else inRange = true;
      } else {
        const cp = c.codePointAt(0) as number;
        if (inRange) {
          const r = ranges[ranges.length - 1] as [number, number];
          r[1] = cp;
          if (r[1] < r[0]) throw new GlobError(`invalid range in glob '${glob}'`);
        } else ranges.push([cp, cp]);
        inRange = false;
      }
      first = false;
    }
    if (inRange) ranges.push([0x2d, 0x2d]);
    push({ k: 'class', negated, ranges });
  };

  for (let c = bump(); c !== undefined; c = bump()) {
    switch (c) {
      case '?':
        push({ k: 'any' });
        break;
      case '*':
        parseStar();
        break;
      case '[':
        parseClass();
        break;
      case '{':
        if (stack.length > 1) throw new GlobError(`nested alternate groups are not allowed in glob '${glob}'`);
        stack.push([]);
        break;
      case '}': {
        const branches: Token[][] = [];
        while (stack.length >= 2) branches.push(stack.pop() as Token[]);
        push({ k: 'alt', branches });
        break;
      }
      case ',':
        if (stack.length <= 1) push({ k: 'lit', c: ',' });
        else stack.push([]);
        break;
      case '\\': {
        const next = bump();
        if (next === undefined) throw new GlobError(`dangling '\\' in glob '${glob}'`);
        push({ k: 'lit', c: next });
        break;
      }
      default:
        push({ k: 'lit', c });
    }
  }
  if (stack.length > 1) throw new GlobError(`unclosed alternate group in glob '${glob}'`);
  return stack[0] as Token[];
}

function escapeChar(c: string): string {
  return /^[A-Za-z0-9_]$/.test(c) ? c : `\\u{${(c.codePointAt(0) as number).toString(16)}}`;
}

function tokensToRegex(tokens: readonly Token[]): string {
  let re = '';
  tokens.forEach((t, i) => {
    switch (t.k) {
      case 'lit':
        re += escapeChar(t.c);
        break;
      case 'any':
        re += '[^/]';
        break;
      case 'star':
        // `**` inside a name is one `*`: two in a row would only backtrack more.
        if (tokens[i - 1]?.k !== 'star') re += '[^/]*';
        break;
      case 'rprefix':
        re += '(?:/?|[^\\n]*/)';
        break;
      case 'rsuffix':
        re += '/[^\\n]*';
        break;
      case 'rzero':
        re += '(?:/|/[^\\n]*/)';
        break;
      case 'class':
        re += `[${t.negated ? '^' : ''}${t.ranges
          .map(([a, b]) => (a === b ? `\\u{${a.toString(16)}}` : `\\u{${a.toString(16)}}-\\u{${b.toString(16)}}`))
          .join('')}]`;
        break;
      case 'alt': {
        const parts = t.branches.map((b) => tokensToRegex(b)).filter((p) => p !== '');
        if (parts.length > 0) re += `(?:${parts.join('|')})`;
        break;
      }
    }
  });
  return re;
}

/**
 * Wildcards a glob may hold. Each `*` becomes `[^/]*`, and JavaScript's regexes backtrack: a
 * repository's ignore line `*a*a*a*a*a*a*a*a*b` held the host for good on a long file name. Ignore
 * rules are now matched by globAutomaton.ts, which does not backtrack; the bound stays so that both
 * engines skip the same lines, and the RegExp is left to the file-type globs, tried on names only.
 */
const MAX_GLOB_STARS = 3;

function starsIn(tokens: readonly Token[]): number {
  let n = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.k === 'star' && tokens[i - 1]?.k !== 'star') n++;
    else if (t.k === 'alt') n += Math.max(0, ...t.branches.map(starsIn));
  }
  return n;
}

/** The tokens of a glob within the wildcard bound. Throws GlobError. */
export function parseBoundedGlob(glob: string): Token[] {
  const tokens = parseGlob(glob);
  if (starsIn(tokens) > MAX_GLOB_STARS) throw new GlobError(`glob '${glob}' has more than ${MAX_GLOB_STARS} wildcards`);
  return tokens;
}

/** A glob (ripgrep syntax, gitignore flavour) as an anchored RegExp over a '/'-separated path. Throws GlobError. */
export function globToRegExp(glob: string): RegExp {
  const tokens = parseBoundedGlob(glob);
  const body = tokens.length === 1 && tokens[0]?.k === 'rprefix' ? '[^\\n]*' : tokensToRegex(tokens);
  return new RegExp(`^${body}$`, 'u');
}

/** Escapes a literal path so that it can be put inside a glob. */
export function escapeGlob(literal: string): string {
  return literal.replace(/[\\*?[\]{},]/g, (c) => `\\${c}`);
}

/** File-name globs of a file type as one matcher over names. */
export class NameMatcher {
  private readonly res: RegExp[];
  constructor(globs: readonly string[]) {
    this.res = globs.map((g) => globToRegExp(g));
  }
  test(name: string): boolean {
    return this.res.some((re) => re.test(name));
  }
}
