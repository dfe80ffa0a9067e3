/* global process, console */
// Copies the WebAssembly files the Java code index needs at run time out of node_modules, into
// dist/grammars/ (or the folder given as the first argument), where the bundled extension looks
// for them (src/core/code/parser.ts). Nothing is downloaded: both packages are npm dependencies.
//
//   web-tree-sitter.wasm    node_modules/web-tree-sitter/web-tree-sitter.wasm           (runtime)
//   tree-sitter-java.wasm   node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter-java.wasm
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const out = path.resolve(process.argv[2] ?? 'dist/grammars');
const files = [
  require.resolve('web-tree-sitter/web-tree-sitter.wasm'),
  path.join(path.dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm', 'tree-sitter-java.wasm'),
];
fs.mkdirSync(out, { recursive: true });
for (const file of files) {
  fs.copyFileSync(file, path.join(out, path.basename(file)));
  console.log(`${path.relative(process.cwd(), file)} -> ${path.relative(process.cwd(), path.join(out, path.basename(file)))}`);
}
