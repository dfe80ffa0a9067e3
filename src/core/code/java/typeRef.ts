/** Java type text (`Map.Entry<K, ? extends V>[]`) parsed into a small tree, with a cache. */

export interface TypeRef {
  /** Dotted name without type arguments: `Map.Entry`; `?` for a wildcard. */
  readonly name: string;
  /** Type arguments of the last name segment. */
  readonly args: readonly TypeRef[];
  /** Array dimensions (varargs count as one). */
  readonly dims: number;
  /** For wildcards: the bound's kind; `bound` is in `args[0]`. */
  readonly wildcard?: 'any' | 'extends' | 'super';
}

export const PRIMITIVES = new Set(['boolean', 'byte', 'char', 'short', 'int', 'long', 'float', 'double', 'void']);

const cache = new Map<string, TypeRef>();
/**
 * Longer type texts are not parsed: no real type is this long, and a hostile file's
 * `L<L<L<…>>>` 20,000 levels deep overflowed the stack of every query that met it. Such a type
 * names nothing, as an empty text does. Only short texts are cached, so the cache stays small.
 */
const MAX_TYPE_TEXT = 1000;
const MAX_CACHED_TEXT = 256;
const NOTHING: TypeRef = { name: '', args: [], dims: 0 };

export function parseType(text: string): TypeRef {
  if (text.length > MAX_TYPE_TEXT) return NOTHING;
  let hit = cache.get(text);
  if (!hit) {
    const p = new TypeParser(text);
    hit = p.type();
    if (text.length > MAX_CACHED_TEXT) return hit;
    if (cache.size > 50_000) cache.clear();
    cache.set(text, hit);
  }
  return hit;
}

/** `List<String>[]` → `List[]`-like display without arguments: `List`. */
export function rawName(text: string): string {
  return parseType(text).name;
}

/** Simple name of the erasure as javap prints it (`java.util.Map.Entry<K,V>[]` → `Entry[]`, `T...` → `T[]`). */
export function erasedSimple(text: string): string {
  const t = parseType(text);
  const simple = t.name.slice(t.name.lastIndexOf('.') + 1);
  return simple + '[]'.repeat(t.dims);
}

class TypeParser {
  private i = 0;
  constructor(private readonly s: string) {}

  private skip(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i] ?? '')) this.i++;
  }

  private peek(): string {
    this.skip();
    return this.s[this.i] ?? '';
  }

  private ident(): string {
    this.skip();
    const m = /^[\p{L}\p{N}_$]+/u.exec(this.s.slice(this.i));
    if (!m) return '';
    this.i += m[0].length;
    return m[0];
  }

  type(): TypeRef {
    if (this.peek() === '?') {
      this.i++;
      const word = this.ident();
      if (word === 'extends' || word === 'super') return { name: '?', args: [this.type()], dims: 0, wildcard: word };
      return { name: '?', args: [], dims: 0, wildcard: 'any' };
    }
    const parts: string[] = [];
    let args: TypeRef[] = [];
    for (;;) {
      const id = this.ident();
      if (!id) break;
      parts.push(id);
      args = [];
      if (this.peek() === '<') args = this.typeArgs();
      if (this.peek() === '.' && this.s[this.i + 1] !== '.') {
        this.i++;
        continue;
      }
      break;
    }
    let dims = 0;
    for (;;) {
      const c = this.peek();
      if (c === '[') {
        const close = this.s.indexOf(']', this.i);
        if (close < 0) break;
        this.i = close + 1;
        dims++;
      } else if (this.s.startsWith('...', this.i)) {
        this.i += 3;
        dims++;
      } else break;
    }
    return { name: parts.join('.'), args, dims };
  }

  private typeArgs(): TypeRef[] {
    this.i++; // <
    const out: TypeRef[] = [];
    while (this.i < this.s.length) {
      if (this.peek() === '>') {
        this.i++;
        break;
      }
      const before = this.i;
      out.push(this.type());
      while (this.peek() === '&') {
        this.i++;
        this.type();
      }
      if (this.peek() === ',') this.i++;
      if (this.i === before) this.i++;
    }
    return out;
  }
}

/** Splits on `sep` outside brackets (`<…>`, `(…)`, `[…]`, `{…}`; `=>` is no bracket), trimming each part. */
export function splitTopLevel(text: string, sep = ','): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if ('<([{'.includes(ch)) depth++;
    else if ('>)]}'.includes(ch) && !(ch === '>' && cur.endsWith('='))) depth = Math.max(0, depth - 1);
    if (ch === sep && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}
