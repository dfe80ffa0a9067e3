import * as path from 'node:path';
import type { Tree } from 'web-tree-sitter';
import { extractCSharp } from './csharp';
import { extractGo } from './golang';
import { extractJava } from './java';
import { javaOutline } from '../java/outline';
import { extractKotlin } from './kotlin';
import { LANGUAGE_EXTENSIONS } from '../languageTable';
import type { FileSymbols, ParamSymbol, LanguageId } from '../model';
import { packSymbols, type PackedJson } from '../packedSymbols';
import { withTree } from '../parse/parser';
import { extractPython } from './python';
import { extractTypeScript } from './typescript';

/**
 * The languages the code index understands, by file extension. Adding a language means a grammar
 * in `parser.ts`, an extractor producing `FileSymbols`, and a line here. Java call sites are
 * resolved by `java/resolver.ts`, every other language's by `index/nameResolver.ts`.
 */
export interface LanguageSupport {
  readonly id: LanguageId;
  readonly extensions: readonly string[];
  /**
   * `relPath`: the file's project-relative path (module names are derived from it);
   * `declarationsOnly`: the tree is of an outline (below), whose bodies hold no calls.
   */
  extract(tree: Tree, lineCount: number, relPath: string, declarationsOnly?: boolean): FileSymbols;
  /**
   * The file's outline: its text with every body emptied and its lines kept (java/outline.ts),
   * for a first pass that needs the declarations only. Languages without one are parsed whole.
   */
  readonly outline?: (text: string) => string;
}

const EXTRACTORS: readonly Omit<LanguageSupport, 'extensions'>[] = [
  { id: 'java', extract: (t, n, _rel, declarationsOnly) => extractJava(t, n, declarationsOnly), outline: javaOutline },
  { id: 'kotlin', extract: extractKotlin },
  { id: 'typescript', extract: (t, n, rel) => extractTypeScript(t, n, rel, 'typescript') },
  { id: 'tsx', extract: (t, n, rel) => extractTypeScript(t, n, rel, 'tsx') },
  { id: 'javascript', extract: (t, n, rel) => extractTypeScript(t, n, rel, 'javascript') },
  { id: 'python', extract: extractPython },
  { id: 'go', extract: extractGo },
  { id: 'csharp', extract: extractCSharp },
];

export const LANGUAGES: readonly LanguageSupport[] = EXTRACTORS.map((l) => ({ ...l, extensions: LANGUAGE_EXTENSIONS[l.id] }));

/**
 * What a parse gives: `full`, every declaration and call site; `outline`, the declarations alone,
 * from the file's outline where its language has one (about 40 % of the work for a Java file).
 */
export type ExtractMode = 'full' | 'outline';

/**
 * The symbols of one file's text, packed for the index (packedSymbols.ts), or undefined for a file
 * in no supported language. The declarations travel as JSON, which the index parses back: a copy,
 * so no string cut from the text (a V8 sliced string) keeps all of it alive, and the same result
 * whether a parse worker or the main thread made it. `outline` is set when the call sites were
 * left out (`mode` outline, in a language with an outline).
 */
export async function extractPacked(rel: string, text: string, mode: ExtractMode = 'full'): Promise<PackedJson | undefined> {
  const lang = languageForPath(rel);
  if (!lang) return undefined;
  if (mode === 'outline' && lang.outline) {
    const outline = lang.outline(text);
    const symbols = outline === text ? undefined : await extractWith(lang, rel, outline, true);
    // An outline that does not parse cleanly (a brace missing, a file mid-edit) may not place the
    // declarations where the full text does: such a file is parsed whole, call sites and all.
    if (symbols && !symbols.hasErrors) return { ...packSymbols(symbols), outline: true };
  }
  return packSymbols(await extractWith(lang, rel, text));
}

/** The symbols of one file's text (`rel`: its project-relative path), or undefined for a file in no supported language. */
export async function extractFile(rel: string, text: string): Promise<FileSymbols | undefined> {
  const lang = languageForPath(rel);
  return lang && extractWith(lang, rel, text);
}

function extractWith(lang: LanguageSupport, rel: string, text: string, declarationsOnly = false): Promise<FileSymbols> {
  let lineCount = text === '' || text.endsWith('\n') ? 0 : 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineCount++;
  return withTree(lang.id, text, (tree) => withoutParamLines(lang.extract(tree, lineCount, rel, declarationsOnly)));
}

/**
 * A method's parameters carry no line (`ParamSymbol`): nothing reads it. The extractors make them
 * as `VarSymbol`s, since record components and Kotlin's constructor properties come from the same
 * lists and keep their lines.
 */
function withoutParamLines(f: FileSymbols): FileSymbols {
  for (const t of f.types) {
    for (const m of t.methods) {
      if (!m.params.length) continue;
      (m as { params: readonly ParamSymbol[] }).params = m.params.map(({ name, type, modifiers }) => (modifiers ? { name, type, modifiers } : { name, type }));
    }
  }
  return f;
}

export function languageForPath(file: string): LanguageSupport | undefined {
  const ext = path.extname(file).toLowerCase();
  return LANGUAGES.find((l) => l.extensions.includes(ext));
}

/**
 * Files the parser answers for even when a language server is there: Java, whose parser is
 * measured against javap. Every other language asks the editor's server first.
 */
export const parserFirst = (file: string): boolean => languageForPath(file)?.id === 'java';

