import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { TsLanguageIntel, type TsServiceOptions } from '../../src/core/code/tsService/tsLanguageIntel';
import { lineLogger } from '../../src/core/log';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

/**
 * The headless TypeScript language service against configs made to hold it: `paths` that make
 * module resolution explode, `include` patterns that make TypeScript's expressions backtrack, and
 * projects that stop the worker. Each is refused before the damage (the parser answers, the log
 * says why), a request has one deadline however many projects it loads, and a config that
 * stopped a worker is not loaded again until it changes.
 */

/** A service over `files`; `lines` collects its log. */
function service(files: Record<string, string>, o: Omit<TsServiceOptions, 'log'> = {}): { intel: TsLanguageIntel; root: string; lines: string[] } {
  const lines: string[] = [];
  const ws = new NodeWorkspace(makeTree(files, 'ab-ts-bounds-'), { typescriptService: { log: lineLogger((l) => lines.push(l), true), ...o } });
  const intel = ws.typescript as TsLanguageIntel;
  after(() => intel.close());
  return { intel, root: ws.root, lines };
}

const MAIN = 'export function target(): number {\n  return 1;\n}\n';

/** `n` imports that resolve nowhere, then `target`. */
const unresolved = (n: number): string => `${Array.from({ length: n }, (_, i) => `import { x${i} } from 'mod${i}';`).join('\n')}\n${MAIN}`;

test('a "paths" pattern with more substitutions than the bound is refused before any import is resolved', async () => {
  const paths = { '*': Array.from({ length: 5 }, (_, k) => `nope${k}/*`) };
  const { intel, root, lines } = service({ 'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths }, include: ['src'] }), 'src/a.ts': unresolved(3) }, { bounds: { maxPathSubstitutions: 4 } });
  await assert.rejects(intel.documentSymbols(path.join(root, 'src/a.ts')), /5 substitutions for the "paths" pattern "\*", more than the 4/);
  assert.ok(lines.some((l) => /more than the 4 the language service takes; the parser answers for that project/.test(l)), lines.join('\n'));
});

test('a project whose imports take more disk lookups than the budget is refused while it loads', async () => {
  const paths = { '*': Array.from({ length: 8 }, (_, k) => `nope${k}/*`) };
  const files = { 'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths, types: [] }, include: ['src'] }), 'src/a.ts': unresolved(200) };
  const { intel, root, lines } = service(files, { bounds: { maxLookups: 2_000 } });
  await assert.rejects(intel.documentSymbols(path.join(root, 'src/a.ts')), /looked for more than 2000 files and folders while loading/);
  assert.ok(lines.some((l) => /looked for more than 2000 files .*; the parser answers for that project/.test(l)), lines.join('\n'));
  // The same project under the default budget loads.
  const fine = service(files);
  assert.equal((await fine.intel.documentSymbols(path.join(fine.root, 'src/a.ts'))).length, 1);
});

test('include patterns that would make TypeScript backtrack are refused at once, in the config or one it extends', async () => {
  const hostile = { include: [`src/${'a*'.repeat(20)}c.ts`, 'src/**/*.ts'] };
  const names: Record<string, string> = { 'src/main.ts': MAIN };
  for (let i = 0; i < 10; i++) names[`src/${'a'.repeat(60)}${i}b.ts`] = 'export const x = 1;\n';
  const configs: Record<string, string>[] = [{ 'tsconfig.json': JSON.stringify(hostile) }, { 'tsconfig.json': '{ "extends": "./base.json" }', 'base.json': JSON.stringify(hostile) }];
  for (const files of configs) {
    // Were it handed to TypeScript, the load's time would run out instead.
    const { intel, root, lines } = service({ ...files, ...names }, { loadMs: 5_000 });
    const started = Date.now();
    await assert.rejects(intel.documentSymbols(path.join(root, 'src/main.ts')), /pattern with 20 "\*" in one name, more than 2/);
    assert.ok(Date.now() - started < 4_000, `refused after ${Date.now() - started} ms`);
    assert.ok(lines.some((l) => /"\*" in one name.*the parser answers for that project/.test(l)), lines.join('\n'));
  }
});

test('a request has one deadline, however many projects it loads', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-ts-deadline-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const script = path.join(dir, 'loads.js');
  // A worker that keeps saying it loads another project and never answers.
  fs.writeFileSync(script, `const { parentPort } = require('worker_threads');\nlet n = 0;\nparentPort.on('message', () => setInterval(() => parentPort.postMessage({ loading: '/p' + n++ + '/tsconfig.json' }), 100));\n`);
  const { intel, root } = service({ 'tsconfig.json': '{}\n', 'a.ts': MAIN }, { script, requestMs: 300, loadMs: 600 });
  const started = Date.now();
  const outcome = await Promise.race([
    intel.documentSymbols(path.join(root, 'a.ts')).then(() => 'answered', (e: Error) => e.message),
    new Promise<string>((r) => setTimeout(() => r('still running after 3 s'), 3_000).unref()),
  ]);
  assert.match(outcome, /did not answer within 0\.6 s/);
  assert.ok(Date.now() - started < 1_500, `stopped after ${Date.now() - started} ms`);
});

test('a config whose load stopped the worker is left to the parser by the next workers until it changes', async () => {
  // A load allowance of 1 ms: the watchdog stops the worker while it loads the project.
  const { intel, root, lines } = service({ 'tsconfig.json': '{ "compilerOptions": { "lib": ["esnext", "dom"] }, "include": ["src"] }', 'src/a.ts': MAIN }, { loadMs: 1, retryMs: 100 });
  const a = path.join(root, 'src/a.ts');
  await assert.rejects(intel.documentSymbols(a), /did not answer within 0\.001 s/);
  assert.ok(lines.some((l) => /tsconfig\.json is left to the parser until it changes/.test(l)), lines.join('\n'));
  await new Promise((r) => setTimeout(r, 150));
  // The next worker refuses it before loading anything: it is not stopped again.
  await assert.rejects(intel.documentSymbols(a), /tsconfig\.json stopped the language service \(it did not answer within 0\.001 s\) before; the parser answers for it until it changes/);
  await assert.rejects(intel.documentSymbols(a), /before; the parser answers for it/);
  assert.equal(lines.filter((l) => /language service stopped/.test(l)).length, 1, lines.join('\n'));
  // Changed, it is loaded again (and stopped again by the 1 ms allowance).
  fs.appendFileSync(path.join(root, 'tsconfig.json'), '\n');
  await assert.rejects(intel.documentSymbols(a), /did not answer within 0\.001 s/);
});
