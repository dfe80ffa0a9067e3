/**
 * Brace expansion as VS Code-style settings write it (`{a,{b,c}}`, `{1..3}`, `a{,b}`), ahead of the
 * ripgrep parser, which allows one level of braces only. Each result holds no brace group: the braces
 * a setting means literally (`{a}`, `{}`, a lone `}`) come out escaped, as minimatch read them.
 */
import { GlobError } from './globs';

/** Globs one entry may expand to: `{a,b}` ten times over is already 1,024. */
export const MAX_BRACE_EXPANSIONS = 1024;

/** The globs `glob` stands for, in order. Throws GlobError past MAX_BRACE_EXPANSIONS. */
export function expandBraces(glob: string): string[] {
  const out = expand(glob);
  if (out.length > MAX_BRACE_EXPANSIONS) throw tooMany(glob);
  return out;
}

function tooMany(glob: string): GlobError {
  return new GlobError(`glob '${glob}' expands to more than ${MAX_BRACE_EXPANSIONS} globs`);
}

function expand(glob: string): string[] {
  const group = firstGroup(glob);
  if (!group) return [escapeStrayBraces(glob)];
  const pre = escapeStrayBraces(glob.slice(0, group.open));
  const body = glob.slice(group.open + 1, group.close);
  const posts = expand(glob.slice(group.close + 1));
  const parts = topLevelParts(body);
  let middles: string[];
  if (parts.length > 1) middles = parts.flatMap(expand);
  else middles = sequence(body) ?? expand(body).map((inner) => `\\{${inner}\\}`);
  if (middles.length * posts.length > MAX_BRACE_EXPANSIONS) throw tooMany(glob);
  return middles.flatMap((m) => posts.map((p) => pre + m + p));
}

/** The first `{` that has its `}` (nested groups balanced, `\` escapes skipped), or undefined. */
function firstGroup(glob: string): { open: number; close: number } | undefined {
  for (let open = 0; open < glob.length; open++) {
    if (glob[open] === '\\') {
      open++;
      continue;
    }
    if (glob[open] !== '{') continue;
    let depth = 0;
    for (let i = open; i < glob.length; i++) {
      const c = glob[i];
      if (c === '\\') i++;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) return { open, close: i };
    }
  }
  return undefined;
}

/** The comma-separated parts of a group's body, commas inside nested groups and escaped ones kept. */
function topLevelParts(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

/** `1..3`, `01..10..3`, `a..e`: the values in order; undefined for any other body. */
function sequence(body: string): string[] | undefined {
  const numbers = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(body);
  const letters = /^([a-zA-Z])\.\.([a-zA-Z])(?:\.\.(-?\d+))?$/.exec(body);
  const m = numbers ?? letters;
  if (!m) return undefined;
  const from = numbers ? Number(m[1]) : (m[1] as string).charCodeAt(0);
  const to = numbers ? Number(m[2]) : (m[2] as string).charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(m[3] ?? 1)));
  if (Math.abs(to - from) / step >= MAX_BRACE_EXPANSIONS) throw tooMany(`{${body}}`);
  // `{01..10}` pads every number to the wider end, as shells do.
  const padded = numbers !== null && (/^-?0\d/.test(m[1] as string) || /^-?0\d/.test(m[2] as string));
  const width = padded ? Math.max((m[1] as string).length, (m[2] as string).length) : 0;
  const out: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) {
    out.push(numbers ? pad(v, width) : escapeGlobChar(String.fromCharCode(v)));
  }
  return out;
}

function pad(n: number, width: number): string {
  const digits = String(Math.abs(n)).padStart(width - (n < 0 ? 1 : 0), '0');
  return n < 0 ? `-${digits}` : digits;
}

/** Letters between `Z` and `a` include `[`, `\`, `]`: literal in the expansion. */
function escapeGlobChar(c: string): string {
  return /[\\*?[\]{},]/.test(c) ? `\\${c}` : c;
}

/** Braces outside any group are literal text. */
function escapeStrayBraces(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\') {
      out += text.slice(i, i + 2);
      i++;
    } else out += c === '{' || c === '}' ? `\\${c}` : c;
  }
  return out;
}
