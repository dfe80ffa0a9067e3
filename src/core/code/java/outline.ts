/**
 * A Java file's outline: its text with the contents of every method, constructor and initializer
 * body replaced by the body's line breaks alone, so tree-sitter parses only the declarations. The
 * index's first pass parses outlines: a body's statements are most of a file's tokens, and
 * declarations are all the type lookups need. Call sites come from a full parse later.
 *
 * Every line of the outline is the original's line (not every column or offset: only whole
 * bodies shrink), so declarations parsed from it carry the original's lines, signatures and doc
 * comments. Only braces the lexer is sure of are emptied: a type body (`class … {`), an array or
 * annotation value (`= {`, `({`, `default {`) and anything after `=` are left as written, as is
 * every brace it cannot place, so a wrong guess costs speed, never a declaration. A string or
 * char literal left open at a line's end means the lexer cannot follow the file (tree-sitter
 * reads such a file its own way): the text is then returned whole.
 */

const enum Frame {
  /** A type body (or the file): members are declared here. */
  Type,
  /** A body being blanked. */
  Code,
  /** A brace left as written (array values, field initializers, unknown): nothing inside is blanked. */
  Other,
}

const TYPE_WORDS: ReadonlySet<string> = new Set(['class', 'interface', 'enum', 'record']);

const isIdentStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c > 127;
const isIdentPart = (c: number): boolean => isIdentStart(c) || (c >= 48 && c <= 57);

/** What the lexer saw of the member declaration being read in a type body, since its last `;`, `{` or `}`. */
interface Header {
  /** Tokens seen at parenthesis depth 0. */
  tokens: number;
  parens: number;
  /** A type keyword at depth 0: the next brace opens a type body. */
  typeWord: boolean;
  /** `=` at depth 0 (a field initializer) or an annotation element's `default`: the braces are a value, left alone. */
  assigns: boolean;
  /** `throws` at depth 0. */
  throwsClause: boolean;
  /** A parenthesised list closed at depth 0 (a method's parameters, so a `default` after it is a value). */
  closedParens: boolean;
  /** The last token at depth 0: `)`, an identifier, `static`, or another character. */
  last: 'paren' | 'ident' | 'static' | 'other' | 'none';
}

const freshHeader = (): Header => ({ tokens: 0, parens: 0, typeWord: false, assigns: false, throwsClause: false, closedParens: false, last: 'none' });

/** Whether a `{` after this header opens a body to blank. */
function opensBody(h: Header): boolean {
  if (h.parens > 0 || h.typeWord || h.assigns) return false;
  if (h.tokens === 0 || (h.tokens === 1 && h.last === 'static')) return true; // an initializer block
  if (h.last === 'paren' || h.throwsClause) return true; // a method or constructor; an enum constant's class body
  return h.last === 'ident'; // a record's compact constructor (`public Point {`), an enum constant's body (`B {`)
}

/** The outline of a Java file's text (see above): as many line breaks as `text`, each on its line; `text` itself when it cannot be followed. */
export function javaOutline(text: string): string {
  const n = text.length;
  const out: string[] = [];
  /** Start of the text not yet copied to `out`. */
  let copied = 0;
  const frames: Frame[] = [Frame.Type];
  /** Headers of enclosing frames, to resume after an `Other` brace inside a declaration. */
  const saved: Header[] = [];
  let header = freshHeader();
  /** Where the body being blanked starts (just after its `{`), and its nesting depth. */
  let blankFrom = -1;
  let depth = 0;

  const blank = (from: number, to: number): void => {
    out.push(text.slice(copied, from));
    // Only the line breaks: tree-sitter's lexer reads blanks one character at a time too.
    let breaks = 0;
    for (let k = text.indexOf('\n', from); k >= 0 && k < to; k = text.indexOf('\n', k + 1)) breaks++;
    out.push('\n'.repeat(breaks));
    copied = to;
  };

  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    // Comments, strings, text blocks and char literals: skipped whole, so no brace in them counts.
    if (c === 47 /* / */ && text.charCodeAt(i + 1) === 47) {
      const e = text.indexOf('\n', i);
      i = e < 0 ? n : e;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42 /* * */) {
      const e = text.indexOf('*/', i + 2);
      i = e < 0 ? n : e + 2;
      continue;
    }
    if (c === 34 /* " */ || c === 39 /* ' */) {
      const textBlock = c === 34 && text.startsWith('"""', i);
      let j = i + (textBlock ? 3 : 1);
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d === 92 /* \ */) j++;
        else if (textBlock ? d === 34 && text.startsWith('"""', j) : d === c) break;
        else if (!textBlock && d === 10) return text; // unterminated: not followed (see above)
      }
      if (j >= n) return text; // open at the end of the file
      i = textBlock ? j + 3 : j + 1;
      if (frames[frames.length - 1] === Frame.Type) note(header, 'other');
      continue;
    }
    const frame = frames[frames.length - 1] as Frame;
    if (c === 123 /* { */) {
      if (frame === Frame.Code) depth++;
      else if (frame === Frame.Type && opensBody(header)) {
        frames.push(Frame.Code);
        blankFrom = i + 1;
        depth = 1;
      } else if (frame === Frame.Type && header.typeWord && header.parens === 0 && !header.assigns) {
        frames.push(Frame.Type);
        header = freshHeader();
      } else {
        frames.push(Frame.Other);
        if (frame === Frame.Type) saved.push(header);
      }
      i++;
      continue;
    }
    if (c === 125 /* } */) {
      if (frame === Frame.Code) {
        if (--depth === 0) {
          blank(blankFrom, i);
          frames.pop();
          header = freshHeader();
        }
      } else if (frames.length > 1) {
        frames.pop();
        const outer = frames[frames.length - 1];
        if (frame === Frame.Other && outer === Frame.Type) header = saved.pop() ?? freshHeader();
        else if (frame === Frame.Type) header = freshHeader();
      }
      i++;
      continue;
    }
    if (frame !== Frame.Type) {
      // Inside a body only the lexing above matters; identifiers are skipped whole (a `'` in none).
      i = isIdentStart(c) ? skipIdent(text, i) : i + 1;
      continue;
    }
    if (isIdentStart(c)) {
      const e = skipIdent(text, i);
      if (header.parens === 0) {
        const word = text.slice(i, e);
        if (TYPE_WORDS.has(word) && text.charCodeAt(i - 1) !== 46 /* . */) header.typeWord = true;
        if (word === 'throws') header.throwsClause = true;
        if (word === 'default' && header.closedParens) header.assigns = true; // an annotation element's default value
        note(header, word === 'static' ? 'static' : 'ident');
      }
      i = e;
      continue;
    }
    if (c === 59 /* ; */ && header.parens === 0) header = freshHeader();
    else if (c === 40 /* ( */) {
      if (header.parens === 0) header.tokens++;
      header.parens++;
    } else if (c === 41 /* ) */) {
      if (header.parens > 0) header.parens--;
      if (header.parens === 0) {
        header.last = 'paren';
        header.closedParens = true;
      }
    } else if (c > 32 && header.parens === 0) {
      if (c === 61 /* = */) header.assigns = true;
      note(header, 'other');
    }
    i++;
  }
  // A body still open at the end (a file cut off) is left as written: where it ends is the parser's to say.
  out.push(text.slice(copied));
  return out.join('');
}

function note(h: Header, last: Header['last']): void {
  if (h.parens > 0) return;
  h.tokens++;
  h.last = last;
}

function skipIdent(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length && isIdentPart(text.charCodeAt(j))) j++;
  return j;
}
