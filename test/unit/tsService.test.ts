import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { silentLogger } from '../support/silentLogger';
import type { TsLanguageIntel } from '../../src/core/code/tsService/tsLanguageIntel';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

/** The headless TypeScript language service sees edits and new files without a watcher, and leaves other languages and files of no project to the parser. */

test('an edited file is seen on the next question, a new file within seconds; other files get empty answers', async () => {
  const root = makeTree({
    'tsconfig.json': '{ "include": ["src"] }\n',
    'src/a.ts': 'export function target(): number {\n  return 1;\n}\nexport function first(): number {\n  return target();\n}\n',
    'src/tool.py': 'def target():\n    return 1\n',
    'loose/b.ts': 'export function loose(): number {\n  return 2;\n}\n',
  });
  const ws = new NodeWorkspace(root, { typescriptService: { log: silentLogger } });
  const intel = ws.typescript as TsLanguageIntel;
  const a = path.join(ws.root, 'src/a.ts');
  const callers = async (): Promise<string[]> => {
    const [item] = await intel.prepareCallHierarchy(a, { line: 0, character: 17 });
    assert.ok(item);
    return (await intel.incomingCalls(item)).map((c) => c.item.name).sort();
  };
  try {
    assert.deepEqual(await callers(), ['first']);
    fs.appendFileSync(a, 'export function second(): number {\n  return target() + 1;\n}\n');
    assert.deepEqual(await callers(), ['first', 'second']);
    fs.writeFileSync(path.join(ws.root, 'src/c.ts'), "import { target } from './a';\nexport function third(): number {\n  return target();\n}\n");
    const since = Date.now();
    while (!(await callers()).includes('third')) {
      assert.ok(Date.now() - since < 10_000, 'the new file was not seen within 10 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(await intel.documentSymbols(path.join(ws.root, 'src/tool.py')), []);
    // A file no tsconfig lists: the parser answers for it.
    assert.deepEqual(await intel.documentSymbols(path.join(ws.root, 'loose/b.ts')), []);
    assert.equal((await intel.documentSymbols(a)).length, 3);
  } finally {
    intel.close();
  }
});

test('a folder with no tsconfig or jsconfig never loads TypeScript: after the first question the code tools go straight to the parser', async () => {
  const root = makeTree({ 'src/a.ts': 'export function a(): number {\n  return 1;\n}\n' });
  const ws = new NodeWorkspace(root, { typescriptService: { log: silentLogger } });
  try {
    assert.equal(ws.languageIntel, ws.typescript, 'asked until it knows');
    assert.deepEqual(await ws.typescript?.workspaceSymbols('a'), []);
    assert.deepEqual(await ws.typescript?.documentSymbols(path.join(ws.root, 'src/a.ts')), []);
    assert.equal(ws.languageIntel, undefined);
    assert.ok((ws.typescript?.heapBytes ?? 0) < 64 * 1024 * 1024, `the worker's heap: ${ws.typescript?.heapBytes} bytes, no typescript package loaded`);
  } finally {
    ws.typescript?.close();
  }
});

test('a JavaScript project with a jsconfig.json is answered too', async () => {
  const root = makeTree({
    'jsconfig.json': '{ "compilerOptions": { "checkJs": false } }\n',
    'lib/util.js': 'export function helper(x) {\n  return x * 2;\n}\n',
    'app.js': "import { helper } from './lib/util.js';\nexport function start() {\n  return helper(2);\n}\n",
  });
  const ws = new NodeWorkspace(root, { typescriptService: { log: silentLogger } });
  try {
    const intel = ws.typescript as TsLanguageIntel;
    const [item] = await intel.prepareCallHierarchy(path.join(ws.root, 'lib/util.js'), { line: 0, character: 17 });
    assert.equal(item?.name, 'helper');
    assert.deepEqual((await intel.incomingCalls(item)).map((c) => [path.basename(c.item.path), c.item.name]), [['app.js', 'start']]);
  } finally {
    ws.typescript?.close();
  }
});

test('a project file whose name starts with two dots is answered for: only `..` as a whole name leads out of the folder', async () => {
  const root = makeTree({
    // Listed by name: TypeScript's wildcards skip names that start with a dot.
    'tsconfig.json': '{ "files": ["..util.ts", "main.ts"] }\n',
    '..util.ts': 'export function helper(): number {\n  return 2;\n}\n',
    'main.ts': "import { helper } from './..util';\nexport function start(): number {\n  return helper();\n}\n",
  });
  const ws = new NodeWorkspace(root, { typescriptService: { log: silentLogger } });
  try {
    const intel = ws.typescript as TsLanguageIntel;
    const [item] = await intel.prepareCallHierarchy(path.join(ws.root, '..util.ts'), { line: 0, character: 17 });
    assert.equal(item?.name, 'helper');
    assert.deepEqual((await intel.incomingCalls(item)).map((c) => c.item.name), ['start']);
    const [start] = await intel.prepareCallHierarchy(path.join(ws.root, 'main.ts'), { line: 1, character: 17 });
    assert.ok(start);
    assert.deepEqual((await intel.outgoingCalls(start)).map((c) => path.basename(c.item.path)), ['..util.ts']);
  } finally {
    ws.typescript?.close();
  }
});

test('a folder with no tsconfig or jsconfig never starts the worker: code questions wait for nothing', async () => {
  const root = makeTree({ 'src/Main.java': 'class Main { void run() {} }\n', 'web/app.js': 'export function f() {}\n', 'node_modules/x/tsconfig.json': '{}\n' });
  // A worker script that cannot run: a question reaching a worker would fail.
  const ws = new NodeWorkspace(root, { typescriptService: { log: silentLogger, script: path.join(root, 'no-such-worker.js') } });
  const intel = ws.typescript as TsLanguageIntel;
  assert.equal(ws.languageIntel, intel);
  assert.deepEqual(await intel.workspaceSymbols('Main'), []);
  assert.equal(ws.languageIntel, undefined, 'the code tools go straight to the parser from then on');
  assert.deepEqual(await intel.documentSymbols(path.join(ws.root, 'web/app.js')), []);
});

test('a folder with a tsconfig below it is found without a worker, within bounds', async () => {
  const { holdsTsConfig } = await import('../../src/core/code/tsService/configFiles');
  assert.equal(await holdsTsConfig(makeTree({ 'a/b/c/tsconfig.json': '{}\n', 'z.txt': '' })), true);
  assert.equal(await holdsTsConfig(makeTree({ 'a/jsconfig.json': '{}\n' })), true);
  assert.equal(await holdsTsConfig(makeTree({ 'node_modules/p/tsconfig.json': '{}\n', '.git/tsconfig.json': '{}\n', 'a.ts': '' })), false);
  // Past the bounds the worker decides: the answer is yes.
  assert.equal(await holdsTsConfig(makeTree({ 'a/1.ts': '', 'a/2.ts': '', 'b/3.ts': '' }), { maxEntries: 2, maxMs: 60_000 }), true);
});
