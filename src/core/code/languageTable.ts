/**
 * Every language the code index reads: its file extensions and its tree-sitter grammar. Nothing
 * here loads a parser, so the editor can watch these files without loading any of that.
 *
 * Adding a language: a line here, its extractor (one file in languages/, producing
 * `FileSymbols`), and a line in `languages/registry.ts`. scripts/fetch-grammars.mjs copies the grammar files
 * (the VSIX end-to-end test checks it copied every one listed here).
 */
export interface LanguageInfo {
  /** File extensions, with the dot. */
  readonly extensions: readonly string[];
  /** The tree-sitter grammar's wasm file. */
  readonly grammar: string;
  /** The npm package the grammar comes from, when it is not `@vscode/tree-sitter-wasm`. */
  readonly grammarPackage?: string;
}

const LANGUAGE_TABLE = {
  java: { extensions: ['.java'], grammar: 'tree-sitter-java.wasm' },
  kotlin: { extensions: ['.kt', '.kts'], grammar: 'tree-sitter-kotlin.wasm', grammarPackage: '@tree-sitter-grammars/tree-sitter-kotlin' },
  typescript: { extensions: ['.ts', '.mts', '.cts'], grammar: 'tree-sitter-typescript.wasm' },
  // TypeScript with JSX: a grammar of its own.
  tsx: { extensions: ['.tsx'], grammar: 'tree-sitter-tsx.wasm' },
  javascript: { extensions: ['.js', '.mjs', '.cjs', '.jsx'], grammar: 'tree-sitter-javascript.wasm' },
  python: { extensions: ['.py', '.pyi'], grammar: 'tree-sitter-python.wasm' },
  go: { extensions: ['.go'], grammar: 'tree-sitter-go.wasm' },
  csharp: { extensions: ['.cs'], grammar: 'tree-sitter-c-sharp.wasm' },
} as const satisfies Record<string, LanguageInfo>;

/** The parser's languages. */
export type LanguageId = keyof typeof LANGUAGE_TABLE;

/** One value per language, from its row of the table. */
export function perLanguage<T>(pick: (info: LanguageInfo) => T): Record<LanguageId, T> {
  const table: Record<LanguageId, LanguageInfo> = LANGUAGE_TABLE;
  return Object.fromEntries(Object.entries(table).map(([id, info]) => [id, pick(info)])) as Record<LanguageId, T>;
}

/** The file extensions of each language (with the dot). */
export const LANGUAGE_EXTENSIONS: Readonly<Record<LanguageId, readonly string[]>> = perLanguage((l) => l.extensions);

/** Every file extension the index reads, without dots: `java`, `kt`, `ts`, … (file watchers). */
export const SOURCE_EXTENSIONS: readonly string[] = Object.values(LANGUAGE_EXTENSIONS).flatMap((list) => list.map((e) => e.slice(1)));
