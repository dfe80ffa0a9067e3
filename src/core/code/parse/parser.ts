import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Tree } from 'web-tree-sitter';
import { perLanguage, type LanguageId } from '../languageTable';
// `require`, not `import`: esbuild then bundles web-tree-sitter's CommonJS build. Its ES module
// build calls createRequire(import.meta.url), which is undefined in our CommonJS bundle.
// eslint-disable-next-line @typescript-eslint/no-require-imports
import TreeSitter = require('web-tree-sitter');

const { Language, Parser } = TreeSitter;
export const { Query } = TreeSitter;
type Parser = InstanceType<typeof TreeSitter.Parser>;

/**
 * Tree-sitter, loaded once and lazily. Two kinds of WebAssembly files are needed at run time:
 *
 *  - `web-tree-sitter.wasm`: the runtime, from the npm package `web-tree-sitter`
 *    (node_modules/web-tree-sitter/web-tree-sitter.wasm);
 *  - one grammar per language, `tree-sitter-<lang>.wasm`: from `@vscode/tree-sitter-wasm`
 *    (node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter-java.wasm for Java, and TypeScript,
 *    TSX, JavaScript, Python, Go, C#), and Kotlin's from `@tree-sitter-grammars/tree-sitter-kotlin`
 *    (node_modules/@tree-sitter-grammars/tree-sitter-kotlin/tree-sitter-kotlin.wasm).
 *
 * Where they are looked for, in order: the folder given to `configureGrammarDirectory`; a
 * `grammars` folder beside the running script (a bundle in dist/ finds dist/grammars/, which
 * `node scripts/fetch-grammars.mjs` fills); node_modules (tests, running from the repo).
 */

/** Grammar file of each language (from the language table). */
export const GRAMMAR_FILES: Readonly<Record<LanguageId, string>> = perLanguage((l) => l.grammar);

/** The npm package each grammar file comes from, when it is not `@vscode/tree-sitter-wasm`. */
const GRAMMAR_PACKAGES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(perLanguage((l) => l)).flatMap((l): [string, string][] => (l.grammarPackage ? [[l.grammar, l.grammarPackage]] : [])),
);
export const RUNTIME_WASM = 'web-tree-sitter.wasm';

let configuredDir: string | undefined;
let runtime: Promise<void> | undefined;
const parsers = new Map<LanguageId, Promise<Parser>>();

/** The folder given to `configureGrammarDirectory`, if any (handed on to parse workers). */
export const grammarDirectory = (): string | undefined => configuredDir;

/** The folder holding `web-tree-sitter.wasm` and the `tree-sitter-<lang>.wasm` grammars. Call before the first parse. */
export function configureGrammarDirectory(dir: string): void {
  if (runtime) throw new Error('configureGrammarDirectory must be called before the first parse');
  configuredDir = dir;
}

function fromNodeModules(file: string): string | undefined {
  try {
    if (file === RUNTIME_WASM) return require.resolve('web-tree-sitter/web-tree-sitter.wasm');
    const own = GRAMMAR_PACKAGES[file];
    if (own) return path.join(path.dirname(require.resolve(`${own}/package.json`)), file);
    return path.join(path.dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm', file);
  } catch {
    return undefined;
  }
}

/** Where a wasm file is: the configured folder, dist/grammars beside the bundle, node_modules. */
function locateWasm(file: string): string {
  const besideScript = typeof __dirname === 'string' ? path.join(__dirname, 'grammars', file) : undefined;
  const candidates = [configuredDir && path.join(configuredDir, file), besideScript, fromNodeModules(file)];
  for (const c of candidates) if (c && fs.existsSync(c)) return c;
  throw new Error(`Tree-sitter file ${file} not found (looked in ${candidates.filter(Boolean).join(', ') || 'nowhere'})`);
}

function initRuntime(): Promise<void> {
  runtime ??= Parser.init({ locateFile: (name: string) => (name.endsWith('.wasm') ? locateWasm(RUNTIME_WASM) : name) });
  return runtime;
}

/** A parser for the language, created once. Parsing is synchronous; one parser serves all callers in turn. */
function parserFor(language: LanguageId): Promise<Parser> {
  let p = parsers.get(language);
  if (!p) {
    p = (async () => {
      await initRuntime();
      const lang = await Language.load(locateWasm(GRAMMAR_FILES[language]));
      const parser = new Parser();
      parser.setLanguage(lang);
      return parser;
    })();
    p.catch(() => parsers.delete(language));
    parsers.set(language, p);
  }
  return p;
}

/**
 * Parses `text` and hands the tree to `use`; the tree's WebAssembly memory is freed afterwards,
 * so nothing from it (nodes) may escape `use`.
 */
export async function withTree<T>(language: LanguageId, text: string, use: (tree: Tree) => T): Promise<T> {
  const parser = await parserFor(language);
  const tree = parser.parse(text);
  if (!tree) throw new Error('tree-sitter returned no tree');
  try {
    return use(tree);
  } finally {
    tree.delete();
  }
}
