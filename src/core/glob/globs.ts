/**
 * Globs as ripgrep reads them, parsed into tokens: the syntax and matching of ripgrep 13's `globset`
 * (gitignore flavour: `*` and `?` do not cross '/', `**` only as a whole path component,
 * `[...]`/`[!...]` classes, `{a,b}`, `\` escapes). The in-process search must match the paths ripgrep
 * matches (search/ignore.ts builds its rules on them); the access policy reads its globs the same way
 * (workspace/globSet.ts). Every glob is matched by globAutomaton.ts, which reads a path once and never
 * backtracks; no glob becomes a RegExp here (test/support/globRegExp.ts keeps that translation as the
 * reference the automaton is checked against).
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

/**
 * Code units a glob may hold. The automaton has a few states per code unit and building it holds the
 * host in proportion: a one-megabyte ignore line held it far past its bound. Honest globs are far shorter;
 * ripgrep has no such bound, so the in-process search may show a file ripgrep ignores, never fewer.
 */
export const MAX_GLOB_CHARS = 1024;

/** The tokens of a glob within the length bound. Throws GlobError. */
export function parseBoundedGlob(glob: string): Token[] {
  if (glob.length > MAX_GLOB_CHARS) throw new GlobError(`glob of ${glob.length} characters is longer than ${MAX_GLOB_CHARS}`);
  return parseGlob(glob);
}

/** Escapes a literal path so that it can be put inside a glob. */
export function escapeGlob(literal: string): string {
  return literal.replace(/[\\*?[\]{},]/g, (c) => `\\${c}`);
}
