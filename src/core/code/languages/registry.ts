import * as fsSync from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Tree } from 'web-tree-sitter';
import { toRelative } from '../../workspace/paths';
import { extractCSharp } from './csharp';
import { extractGo } from './golang';
import { extractJava } from './java';
import { javaOutline } from '../java/outline';
import { extractKotlin } from './kotlin';
import { LANGUAGE_EXTENSIONS, SOURCE_EXTENSIONS } from './table';
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

export { SOURCE_EXTENSIONS };

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

/** Folders never indexed (hidden folders are skipped too). */
const ALWAYS_SKIPPED: ReadonlySet<string> = new Set(['node_modules', '__pycache__', 'bazel-bin', 'bazel-out', 'bazel-testlogs']);
/**
 * Build output folders, skipped only beside a build file or at the root: `com/acme/build/` deep
 * in a source tree is a package, `module/build/` next to `build.gradle` is output.
 */
const OUTPUT_DIRS: ReadonlySet<string> = new Set(['build', 'out', 'target', 'dist', 'bin', 'obj']);
const BUILD_FILES: ReadonlySet<string> = new Set([
  'pom.xml', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts', 'build.xml', 'package.json',
  'BUILD', 'BUILD.bazel', 'Makefile', 'go.mod', 'pyproject.toml', 'setup.py', 'Cargo.toml',
]);

const isBuildFile = (name: string): boolean => BUILD_FILES.has(name) || name.endsWith('.iml') || name.endsWith('.csproj');

/**
 * Whether `listSourceFiles` would list this project-relative path (forward slashes), decided
 * from its folders alone: for the few files a search turns up, without walking the project.
 */
export function isIndexedPath(root: string, rel: string): boolean {
  const parts = rel.split('/');
  if (!languageForPath(rel) || parts.some((p) => p === '' || p === '..')) return false;
  for (let i = 0; i < parts.length - 1; i++) {
    const name = parts[i] as string;
    if (name.startsWith('.') || ALWAYS_SKIPPED.has(name)) return false;
    if (OUTPUT_DIRS.has(name)) {
      if (i === 0) return false;
      let siblings: string[];
      try {
        siblings = fsSync.readdirSync(path.join(root, ...parts.slice(0, i)));
      } catch {
        return false;
      }
      if (siblings.some(isBuildFile)) return false;
    }
  }
  return true;
}

/** Folders read at once by `listSourceFiles`: one at a time, 60,000 files took seconds of thread-pool round trips. */
const READDIR_CONCURRENCY = 16;

/**
 * Project-relative paths (forward slashes, sorted) of every source file in a supported language
 * under `root`. Symbolic links to folders are not followed (no cycles, nothing outside the root).
 */
export async function listSourceFiles(root: string, signal?: AbortSignal): Promise<string[]> {
  const out: string[] = [];
  const pending = [root];
  const visit = (dir: string, entries: import('node:fs').Dirent[]): void => {
    const moduleRoot = dir === root || entries.some((e) => isBuildFile(e.name));
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        const skip = e.name.startsWith('.') || ALWAYS_SKIPPED.has(e.name) || (moduleRoot && OUTPUT_DIRS.has(e.name));
        if (!skip) pending.push(abs);
      } else if ((e.isFile() || e.isSymbolicLink()) && languageForPath(e.name)) {
        out.push(toRelative(root, abs));
      }
    }
  };
  await new Promise<void>((resolve, reject) => {
    let active = 0;
    let done = false;
    const pump = (): void => {
      if (done) return;
      if (signal?.aborted) {
        done = true;
        reject(new Error('cancelled'));
        return;
      }
      while (active < READDIR_CONCURRENCY && pending.length) {
        const dir = pending.pop() as string;
        active++;
        fs.readdir(dir, { withFileTypes: true })
          .then((entries) => visit(dir, entries), () => undefined) // unreadable: skipped
          .finally(() => {
            active--;
            pump();
          });
      }
      if (active === 0 && !pending.length) {
        done = true;
        resolve();
      }
    };
    pump();
  });
  return out.sort();
}
