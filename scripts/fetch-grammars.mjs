/* global process, console */
// Copies the WebAssembly files the code index needs at run time out of node_modules, into
// dist/grammars/ (or the folder given as the first argument), where the bundled extension looks
// for them (src/core/code/parse/parser.ts, whose GRAMMAR_FILES this list must match; the VSIX end-to-end
// test checks that every one is packaged). Nothing is downloaded: the packages are npm dependencies.
//
//   web-tree-sitter.wasm     node_modules/web-tree-sitter/                         (runtime)
//   tree-sitter-<lang>.wasm  node_modules/@vscode/tree-sitter-wasm/wasm/           (Java, TypeScript,
//                            TSX, JavaScript, Python, Go, C#: the grammars VS Code itself uses)
//   tree-sitter-kotlin.wasm  node_modules/@tree-sitter-grammars/tree-sitter-kotlin/
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const out = path.resolve(process.argv[2] ?? 'dist/grammars');
const packageDir = (name) => path.dirname(require.resolve(`${name}/package.json`));
const vscodeWasm = path.join(packageDir('@vscode/tree-sitter-wasm'), 'wasm');
const files = [
  require.resolve('web-tree-sitter/web-tree-sitter.wasm'),
  ...['java', 'typescript', 'tsx', 'javascript', 'python', 'go', 'c-sharp'].map((l) => path.join(vscodeWasm, `tree-sitter-${l}.wasm`)),
  require.resolve('@tree-sitter-grammars/tree-sitter-kotlin/tree-sitter-kotlin.wasm'),
];
fs.mkdirSync(out, { recursive: true });
for (const file of files) {
  fs.copyFileSync(file, path.join(out, path.basename(file)));
  console.log(`${path.relative(process.cwd(), file)} -> ${path.relative(process.cwd(), path.join(out, path.basename(file)))}`);
}
