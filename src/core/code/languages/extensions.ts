import type { LanguageId } from '../model';

/**
 * The file extensions of each language the code index reads. Kept apart from `languages.ts` (the
 * extractors and the parser) so the editor can watch these files without loading any of that.
 */
export const LANGUAGE_EXTENSIONS: Readonly<Record<LanguageId, readonly string[]>> = {
  java: ['.java'],
  kotlin: ['.kt', '.kts'],
  typescript: ['.ts', '.mts', '.cts'],
  tsx: ['.tsx'],
  javascript: ['.js', '.mjs', '.cjs', '.jsx'],
  python: ['.py', '.pyi'],
  go: ['.go'],
  csharp: ['.cs'],
};

/** Every file extension the index reads, without dots: `java`, `kt`, `ts`, … (file watchers). */
export const SOURCE_EXTENSIONS: readonly string[] = Object.values(LANGUAGE_EXTENSIONS).flatMap((list) => list.map((e) => e.slice(1)));
