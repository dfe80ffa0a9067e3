import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { GuardedFiles } from '../../src/core/code/tsService/guardedFiles';
import { TsLanguageIntel } from '../../src/core/code/tsService/tsLanguageIntel';
import { lineLogger } from '../../src/core/log';
import { silentLogger } from '../support/silentLogger';
import { SecretGuard } from '../../src/core/workspace/globSet';
import { startDevBackend } from '../../src/devBackend/server';
import { startHeadlessHost, type HeadlessHostOptions } from '../../src/node/headless';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { heldDuring } from '../support/loopDelay';

/**
 * The headless TypeScript language service against a hostile repository: it reads no secret
 * file and nothing outside the folder (links, `extends`, `paths`), refuses a project over its
 * bounds (the parser answers, the log says why), and a worker that hangs is stopped without
 * holding the host's event loop, then started again later.
 */

const CANARY = { secret: 'CANARY-TS-7f3a91', outside: 'CANARY-TS-OUTSIDE-c02e' };

function outsideDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-ts-outside-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function withHost(o: Omit<HeadlessHostOptions, 'serverUrl' | 'log'> & { log?: HeadlessHostOptions['log'] }, run: (call: (tool: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>, frames: string[]) => Promise<void>): Promise<void> {
  const backend = await startDevBackend({ port: 0, host: '127.0.0.1' });
  const frames: string[] = [];
  backend.onMessage((e) => frames.push(e.text));
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), log: silentLogger, stateDir: false, ...o });
  try {
    await backend.waitForSession(undefined, 5000);
    await run(async (tool, params) => (await backend.callTool(tool, params, { timeoutMs: 30_000 })).data as Record<string, unknown>, frames);
  } finally {
    host.stop();
    await backend.close();
  }
}

test('a secret TypeScript file, imported, linked or hard-linked, is never read by the language service nor quoted', async () => {
  const outside = outsideDir();
  fs.writeFileSync(path.join(outside, 'evil.ts'), `export function outsideFn(): string { return '${CANARY.outside}'; }\n`);
  const root = makeTree({
    'tsconfig.json': '{ "compilerOptions": { "strict": true }, "include": ["src"] }\n',
    'src/main.ts': `import { leakToken, SECRET_CONFIG } from './creds.secret';
import { outsideFn } from './linkedOut';
import { aliasFn } from './alias';
export function useIt(): string {
  return leakToken() + SECRET_CONFIG.key + outsideFn() + aliasFn();
}
`,
    'src/creds.secret.ts': `export const SECRET_CONFIG = { key: '${CANARY.secret}' };\nexport function leakToken(): string { return '${CANARY.secret}'; }\nexport function aliasFn(): string { return 'x'; }\n`,
  });
  fs.symlinkSync(path.join(outside, 'evil.ts'), path.join(root, 'src/linkedOut.ts'));
  fs.symlinkSync(path.join(root, 'src/creds.secret.ts'), path.join(root, 'src/alias.ts'));
  fs.linkSync(path.join(root, 'src/creds.secret.ts'), path.join(root, 'src/hard.ts'));
  await withHost({ workspace: root, excludeGlobs: ['**/*.secret.ts'] }, async (call, frames) => {
    const chain = await call('call_chain', { method: 'useIt', direction: 'both' });
    assert.equal(chain.success, true, String(chain.error));
    const structured = chain.structured as { languageServer?: string; callees: { children: { path?: string; external?: string }[] }[] };
    assert.equal(structured.languageServer, 'typescript-language-service');
    // Nothing of the secret, the links to it or the outside file became a callee in the project.
    for (const c of structured.callees[0]?.children ?? []) assert.ok(!c.path, `a callee in the project: ${JSON.stringify(c)}`);
    for (const name of ['leakToken', 'aliasFn', 'outsideFn']) await call('call_chain', { method: name });
    await call('read_class', { className: 'hard' });
    await call('read_method', { className: 'main', methodName: 'useIt' });
    for (const f of frames) for (const canary of Object.values(CANARY)) assert.ok(!f.includes(canary), `a frame quotes ${canary}: ${f.slice(0, 300)}`);
  });
  // Asked directly, the service knows none of those symbols.
  const ws = new NodeWorkspace(root, { secrets: new SecretGuard(['**/*.secret.ts']), typescriptService: { log: silentLogger } });
  try {
    for (const name of ['leakToken', 'aliasFn', 'outsideFn', 'SECRET_CONFIG']) assert.deepEqual(await ws.typescript?.workspaceSymbols(name), [], name);
    assert.deepEqual(await ws.typescript?.documentSymbols(path.join(root, 'src/creds.secret.ts')), []);
    assert.ok((await ws.typescript?.workspaceSymbols('useIt'))?.length, 'the service does answer for the project');
  } finally {
    ws.typescript?.close();
  }
});

test('GuardedFiles refuses secrets, links leading out, hard links, FIFOs and oversized files; lets TypeScript lib files through', () => {
  const outside = outsideDir();
  fs.writeFileSync(path.join(outside, 'o.ts'), 'export const o = 1;\n');
  const root = makeTree({ 'a.ts': 'export const a = 1;\n', '.env': 'X=1\n', 'big.ts': 'x'.repeat(1_500_000), 'k.secret.ts': 'export const k = 1;\n', 'node_modules/p/index.d.ts': 'export declare const p: 1;\n', 'h.ts': 'export const h = 1;\n' });
  fs.symlinkSync(path.join(outside, 'o.ts'), path.join(root, 'out.ts'));
  fs.symlinkSync(outside, path.join(root, 'outdir'));
  fs.linkSync(path.join(root, 'h.ts'), path.join(root, 'h2.ts'));
  const fifo = spawnSync('mkfifo', [path.join(root, 'pipe.ts')]).status === 0;
  const libDir = path.dirname(require.resolve('typescript/lib/lib.d.ts'));
  const files = new GuardedFiles({ root: fs.realpathSync(root), libDir, secrets: new SecretGuard(['.env*', '**/*.secret.ts']), maxFileBytes: 1024 * 1024, maxWalkEntries: 1000 });
  const at = (rel: string) => path.join(fs.realpathSync(root), rel);
  assert.equal(files.readFile(at('a.ts')), 'export const a = 1;\n');
  assert.match(files.readFile(at('node_modules/p/index.d.ts')) ?? '', /declare const p/);
  for (const rel of ['.env', 'k.secret.ts', 'out.ts', 'outdir/o.ts', 'h.ts', 'h2.ts', 'big.ts', '../etc/passwd', ...(fifo ? ['pipe.ts'] : [])]) {
    assert.equal(files.readFile(at(rel)), undefined, rel);
  }
  assert.equal(files.fileExists(at('out.ts')), false);
  assert.equal(files.directoryExists(at('outdir')), false);
  assert.equal(files.fileExists('/etc/passwd'), false);
  assert.deepEqual(files.getDirectories('/'), []);
  const listed = files.entries(at('.'));
  assert.ok(!listed.files.includes('.env') && !listed.files.includes('k.secret.ts') && !listed.files.includes('out.ts'), JSON.stringify(listed));
  assert.ok(!listed.directories.includes('outdir'));
  assert.match(files.readFile(path.join(libDir, 'lib.es5.d.ts')) ?? '', /interface Array<T>/);
  // The lib folder lets only its own files through, not a link placed there by name.
  assert.equal(files.readFile(path.join(libDir, '..', 'package.json')), undefined);
});

test('a tsconfig that extends a file outside the workspace is not read', async () => {
  const outside = outsideDir();
  const project = (base: string) => ({
    'tsconfig.json': JSON.stringify({ extends: base, files: ['src/main.ts'] }),
    'hidden/h.ts': 'export function hiddenFn(): number { return 1; }\n',
    'src/main.ts': "import { hiddenFn } from '@h/h';\nexport function callsHidden(): number {\n  return hiddenFn();\n}\n",
  });
  const base = (root: string) => JSON.stringify({ compilerOptions: { strict: true, paths: { '@h/*': [`${fs.realpathSync(root)}/hidden/*`] } } });
  const callees = async (root: string): Promise<string[]> => {
    const ws = new NodeWorkspace(root, { typescriptService: { log: silentLogger } });
    try {
      const intel = ws.typescript as TsLanguageIntel;
      const [item] = await intel.prepareCallHierarchy(path.join(ws.root, 'src/main.ts'), { line: 1, character: 17 });
      assert.ok(item, 'callsHidden has a call hierarchy item');
      return (await intel.outgoingCalls(item)).map((c) => c.item.name);
    } finally {
      ws.typescript?.close();
    }
  };
  // The same base inside the folder is read: its `paths` lead the call to hiddenFn.
  const inside = makeTree(project('./base.json'), 'ab-ts-extends-');
  fs.writeFileSync(path.join(inside, 'base.json'), base(inside));
  assert.deepEqual(await callees(inside), ['hiddenFn']);
  const hostile = makeTree(project(path.join(outside, 'base.json')), 'ab-ts-extends-');
  fs.writeFileSync(path.join(outside, 'base.json'), base(hostile));
  assert.deepEqual(await callees(hostile), []);
});

test('a project over the bounds gets no language service: the parser answers and the log says why', async () => {
  const files: Record<string, string> = { 'tsconfig.json': '{ "include": ["src"] }\n' };
  for (let i = 0; i < 5; i++) files[`src/c${i}.ts`] = `${i > 0 ? `import { C${i - 1} } from './c${i - 1}';\n` : ''}export class C${i} {\n  run(): number {\n    return ${i > 0 ? `new C${i - 1}().run()` : '0'};\n  }\n}\n`;
  const root = makeTree(files, 'ab-ts-bound-');
  const lines: string[] = [];
  await withHost({ workspace: root, log: lineLogger((l) => lines.push(l), true), typescriptService: { bounds: { maxFiles: 3 } } }, async (call) => {
    const r = await call('call_chain', { method: 'C2.run', direction: 'callers' });
    assert.equal(r.success, true, String(r.error));
    const structured = r.structured as { source: string; languageServer?: string };
    assert.equal(structured.source, 'parser');
    assert.equal(structured.languageServer, undefined);
    assert.match(String(r.result), /C3\.run/);
  });
  assert.ok(lines.some((l) => /5 files, more than the 3 the language service loads; the parser answers/.test(l)), lines.join('\n'));
});

test('a worker that hangs is stopped within its time, without holding the event loop, and started again later', async () => {
  const dir = outsideDir();
  const starts = path.join(dir, 'starts');
  const script = path.join(dir, 'hang.js');
  fs.writeFileSync(script, `require('fs').appendFileSync(${JSON.stringify(starts)}, 'x');\nrequire('worker_threads').parentPort.on('message', () => { for (;;) {} });\n`);
  const root = makeTree({ 'tsconfig.json': '{}\n', 'a.ts': 'export function a() {}\n' }, 'ab-ts-hang-');
  const ws = new NodeWorkspace(root, { typescriptService: { log: silentLogger, script, requestMs: 500, retryMs: 800 } });
  const intel = ws.typescript as TsLanguageIntel;
  try {
    const { value, heldMs } = await heldDuring(() => intel.documentSymbols(path.join(ws.root, 'a.ts')).then(() => 'answered', (e: Error) => e.message));
    assert.match(value, /did not answer within 0\.5 s/);
    assert.ok(heldMs < 200, `the event loop was held ${heldMs} ms`);
    await assert.rejects(intel.documentSymbols(path.join(ws.root, 'a.ts')), /is stopped .* starts again in/);
    await new Promise((r) => setTimeout(r, 900));
    await assert.rejects(intel.documentSymbols(path.join(ws.root, 'a.ts')), /did not answer/);
    assert.equal(fs.readFileSync(starts, 'utf8'), 'xx');
  } finally {
    intel.close();
  }
});

test('a worker past its heap cap stops; the question is answered by the parser and the host stays up', async () => {
  const root = makeTree({ 'tsconfig.json': '{}\n', 'src/a.ts': 'export class A {\n  run(): number {\n    return this.two();\n  }\n  two(): number {\n    return 2;\n  }\n}\n' }, 'ab-ts-heap-');
  const lines: string[] = [];
  await withHost({ workspace: root, log: lineLogger((l) => lines.push(l), true), typescriptService: { heapMb: 4 } }, async (call) => {
    const r = await call('call_chain', { method: 'A.two', direction: 'callers' });
    assert.equal(r.success, true, String(r.error));
    assert.equal((r.structured as { source: string }).source, 'parser');
    assert.match(String(r.result), /A\.run/);
    const again = await call('read_file', { relativePath: 'src/a.ts' });
    assert.equal(again.success, true);
  });
  assert.ok(lines.some((l) => /TypeScript language service stopped: it (failed|exited)/.test(l)), lines.join('\n'));
});
