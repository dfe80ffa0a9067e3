/**
 * The reference translation of a glob (globs.ts) into a RegExp, for tests only: the glob automaton
 * is checked against it, and it against ripgrep. The search itself never compiles a glob to a
 * RegExp: JavaScript's regexes backtrack, and `{a,a}{a,a}…` or `a/**\/a/**\/…` held the host for
 * seconds on a long name or a deep path.
 */
import { parseBoundedGlob, type Token } from '../../src/core/glob/globs';

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

/** A glob (ripgrep syntax, gitignore flavour) as an anchored RegExp over a '/'-separated path. Throws GlobError. */
export function globToRegExp(glob: string): RegExp {
  const tokens = parseBoundedGlob(glob);
  const body = tokens.length === 1 && tokens[0]?.k === 'rprefix' ? '[^\\n]*' : tokensToRegex(tokens);
  return new RegExp(`^${body}$`, 'u');
}
