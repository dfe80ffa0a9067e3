// One build script for every entry point: the extension, the headless host, the dev backend,
// and the extension-host test suite. `vscode` is provided by the host; mocha is loaded from
// node_modules at test time because it requires its reporters dynamically.
import * as fs from 'node:fs';
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  // jsonc-parser's `main` is a UMD build that requires its own modules at run time (a bundle cannot
  // follow that); its ESM build bundles like any other.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

// tsx is only looked up when the code runs from its TypeScript sources (parsePool.ts starting a
// worker under tests); a bundle never does, so it stays a plain require there.
const fromSources = ['tsx/cjs'];
const builds = [
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode', ...fromSources] },
  { entryPoints: ['src/node/host.ts'], outfile: 'dist/host.js', banner: { js: '#!/usr/bin/env node' }, external: fromSources },
  { entryPoints: ['src/devBackend/main.ts'], outfile: 'dist/devBackend.js', external: fromSources },
  // The code index's parse worker (src/core/code/index/parsePool.ts looks for it beside the bundle).
  { entryPoints: ['src/core/code/index/parseWorker.ts'], outfile: 'dist/codeWorker.js', external: fromSources },
  // NotebookEditCell's worker (src/core/edit/notebookOffThread.ts looks for it beside the bundle).
  { entryPoints: ['src/core/edit/notebookWorker.ts'], outfile: 'dist/notebookWorker.js', external: fromSources },
  // The headless TypeScript language service's worker (src/core/code/tsService/tsLanguageIntel.ts looks for it beside the bundle).
  { entryPoints: ['src/core/code/tsService/tsServiceWorker.ts'], outfile: 'dist/tsServiceWorker.js', external: fromSources },
  // The in-process search's worker (src/core/search/fallback.ts looks for it beside the bundle).
  { entryPoints: ['src/core/search/fallbackWorker.ts'], outfile: 'dist/searchWorker.js', external: fromSources },
];
// The chat webview runs in a browser frame: one IIFE script plus chat.css, with the codicon font
// (imported by webview/main.ts) copied beside it as codicon.ttf.
builds.push({
  entryPoints: ['webview/main.ts'],
  outfile: 'dist/webview/chat.js',
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  loader: { '.ttf': 'file' },
  assetNames: '[name]',
});
if (!production) {
  builds.push({ entryPoints: ['test/host/suite/index.ts'], outfile: 'out/test/suite/index.js', external: ['vscode', 'mocha', ...fromSources] });
}

// The JDK signature table (src/core/code/java/jdkStubs.ts) is read beside the bundle that uses it.
fs.mkdirSync('dist', { recursive: true });
fs.copyFileSync('src/core/code/java/jdk-signatures.txt', 'dist/jdk-signatures.txt');
// The TypeScript worker's lib.*.d.ts files, read from dist/ts-lib beside it (the bundle has no typescript package folder).
fs.mkdirSync('dist/ts-lib', { recursive: true });
for (const f of fs.readdirSync('node_modules/typescript/lib')) if (/^lib\..*d\.ts$|^lib\.d\.ts$/.test(f)) fs.copyFileSync(`node_modules/typescript/lib/${f}`, `dist/ts-lib/${f}`);

const contexts = await Promise.all(builds.map((b) => esbuild.context({ ...common, ...b })));
if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
}
