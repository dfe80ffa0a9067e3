/**
 * A problem's message must not quote a secret file's text. TypeScript prints a literal type as it
 * was typed (`Type '"sk-live-…"' is not assignable to type '1'`), and the value reaches a normal
 * file through imports, `require`, `export *` in a normal module, or `typeof import(…)`. Here the
 * real TypeScript checker (the one VS Code's TS server runs) is the editor's language service;
 * get_diagnostics and the diagnostics of an agent's write must carry no secret value: while a secret
 * file is one the checker computes on (TS/JS), the messages about files that can import it are
 * withheld; otherwise the values are cut out and an ordinary problem (`Cannot find name 'foo'`)
 * stays whole.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import type { DiagnosticInfo } from '../../src/core/workspace/workspace';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

const SECRET = 'sk-live-CANARY-DIAG-5e0c71';
const WITHHELD = '(message withheld: a secret TypeScript or JavaScript file in the project could be printed in it)';
const PIN = '480213';
const SHORT = 'hunter7';
/** Typed with real tabs; the checker prints it with `\t`, so no 8 characters of it appear as typed. */
const TABBED = 'q1\tq2\tq3\tq4\tq5\tq6';

/** A project whose editor is the TypeScript checker over its tsconfig, as the TS server checks it. */
class TypeCheckedWorkspace extends NodeWorkspace {
  async diagnostics(absPaths: readonly string[] | undefined): Promise<DiagnosticInfo[]> {
    const parsed = ts.getParsedCommandLineOfConfigFile(path.join(this.root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    if (!parsed) throw new Error('no tsconfig');
    const program = ts.createProgram(parsed.fileNames, parsed.options);
    const wanted = absPaths ? new Set(absPaths) : undefined;
    return program
      .getSourceFiles()
      .filter((f) => !f.isDeclarationFile && (!wanted || wanted.has(path.resolve(f.fileName))))
      .flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)])
      .map((d) => {
        const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
        return {
          path: path.resolve(d.file?.fileName ?? this.root),
          line: at.line + 1,
          column: at.character + 1,
          severity: d.category === ts.DiagnosticCategory.Error ? 'error' : 'warning',
          message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
          source: 'ts',
          code: String(d.code),
        } satisfies DiagnosticInfo;
      });
  }
}

function project(): TypeCheckedWorkspace {
  const root = makeTree(
    {
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, allowJs: true, checkJs: true, noEmit: true, module: 'commonjs', target: 'es2020' }, include: ['**/*', '.env.ts'] }),
      // Secret by the default `**/.env*` glob; its own error quotes it too.
      '.env.ts': `export const API_KEY = "${SECRET}";\nexport const PIN = ${PIN};\nexport const SHORT = '${SHORT}';\nexport const TABBED = \`${TABBED}\`;\nexport interface Shape {\n  url: string;\n  on: boolean;\n}\nconst own: 1 = API_KEY;\n`,
      'direct.ts': "import { API_KEY, PIN, SHORT, TABBED } from './.env';\nexport const q: 1 = API_KEY;\nexport const p: 1 = PIN;\nexport const s: 1 = SHORT;\nexport const e: 1 = TABBED;\n",
      'config.ts': "export * from './.env';\n",
      'viaConfig.ts': "import { API_KEY } from './config';\nexport const q: 1 = API_KEY;\n",
      'typeLevel.ts': "type Env = typeof import('./.env');\nexport const t: Env['API_KEY'] = 'guess';\n",
      'checked.js': "// @ts-check\nconst { API_KEY } = require('./.env');\n/** @type {1} */\nconst q = API_KEY;\nmodule.exports = { q };\n",
      'plain.ts': "export const n = foo;\nexport const m: number = 'text' as string;\n",
      'edit.ts': "import { API_KEY } from './config';\nexport const v = 1;\nexport const k = API_KEY.length;\n",
    },
    'ab-diag-secret-',
  );
  return new TypeCheckedWorkspace(fs.realpathSync(root));
}

const dispatcher = (ws: NodeWorkspace) => new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });

function assertNoSecret(text: string): void {
  for (const v of [SECRET, 'sk-live-CANARY', PIN, SHORT, 'q2\\\\tq3']) assert.ok(!text.includes(v), `the answer quotes a secret value (${v}): ${text}`);
}

test('get_diagnostics quotes no value of a secret file, whichever way it reached the normal file (TS and checked JS)', async () => {
  const ws = project();
  const all = await ws.diagnostics(undefined);
  // The checker does quote the value in every normal file: what follows is a real leak to stop.
  for (const f of ['direct.ts', 'viaConfig.ts', 'typeLevel.ts', 'checked.js']) {
    assert.ok(all.some((d) => d.path.endsWith(f) && d.message.includes(SECRET)), `the checker quotes the secret in ${f}`);
  }
  assert.ok(all.some((d) => d.message.includes(PIN)) && all.some((d) => d.message.includes(SHORT)));
  assert.ok(all.some((d) => d.message.includes('"q1\\tq2\\tq3')), 'the checker prints the tabs escaped');

  const r = await dispatcher(ws).dispatch({ id: 'g1', idKey: 'toolCallId', toolName: 'get_diagnostics', params: { severity: 'all' } });
  assert.equal(r.data.success, true, r.data.error);
  const answer = JSON.stringify(r);
  assertNoSecret(answer);
  const problems = (r.data.structured as { problems: { path: string; message: string }[] }).problems;
  const files = new Set(problems.map((p) => p.path));
  for (const f of ['direct.ts', 'viaConfig.ts', 'typeLevel.ts', 'checked.js']) assert.ok(files.has(f), `${f}'s problem is still reported: ${answer}`);
  assert.ok(!files.has('.env.ts'), 'a secret file has no problems to show');
  // A secret TS/JS file is one the checker computes on: every message about a file that can
  // import it is withheld; where and which problem (code) stay.
  assert.ok(problems.every((p) => p.message === WITHHELD), answer);
  assert.ok(problems.some((p) => p.path === 'plain.ts' && (p as { code?: string }).code === '2304'), answer);
});

test('a secret value printed as a bare property name, or next to a quote that shifts quote pairs, is not shown either', async () => {
  const ws = project();
  fs.writeFileSync(path.join(ws.root, 'keyed.ts'), "import { API_KEY } from './.env';\nexport const o: { [k in typeof API_KEY]: 1 } = {};\n");
  fs.writeFileSync(path.join(ws.root, 'paired.ts'), "import { API_KEY } from './.env';\ndeclare const o: { '\"': 1; a: typeof API_KEY };\nexport const v: 2 = o;\n");
  const all = await ws.diagnostics(undefined);
  // The checker prints the value in both: a real leak to stop.
  for (const f of ['keyed.ts', 'paired.ts']) assert.ok(all.some((d) => d.path.endsWith(f) && d.message.includes(SECRET)), `the checker prints the secret in ${f}`);
  const r = await dispatcher(ws).dispatch({ id: 'k1', idKey: 'toolCallId', toolName: 'get_diagnostics', params: { severity: 'all' } });
  assert.equal(r.data.success, true, r.data.error);
  assertNoSecret(JSON.stringify(r));
});

test('a value the type checker rebuilds from a secret source file (one character at a time, upper-cased, in another base) is not quoted either', async () => {
  const ws = project();
  fs.writeFileSync(path.join(ws.root, '.env.numbers.ts'), 'export const BIG = 1_234_567_890;\nexport const HEX = 0xDEADBEEF1;\n');
  fs.writeFileSync(
    path.join(ws.root, 'transform.ts'),
    "import { API_KEY } from './.env';\nimport { BIG, HEX } from './.env.numbers';\n" +
      'type Sp<S extends string> = S extends `${infer H}${infer T}` ? `${H}_${Sp<T>}` : \'\';\n' +
      'export const a: 1 = null! as Sp<typeof API_KEY>;\nexport const b: 1 = null! as Uppercase<typeof API_KEY>;\nexport const c: 1 = BIG;\nexport const d: 1 = HEX;\n',
  );
  const spaced = [...SECRET].join('_');
  const all = await ws.diagnostics(undefined);
  // The checker does print each of them: what follows is a real leak to stop.
  for (const shown of [spaced, SECRET.toUpperCase(), '1234567890', '59774856945']) assert.ok(all.some((d) => d.message.includes(shown)), `the checker prints ${shown}`);
  const r = await dispatcher(ws).dispatch({ id: 't1', idKey: 'toolCallId', toolName: 'get_diagnostics', params: { relativePath: 'transform.ts', severity: 'all' } });
  assert.equal(r.data.success, true, r.data.error);
  const answer = JSON.stringify(r);
  for (const v of [spaced.slice(0, 12), 'SK-LIVE', 'E0C71', '1234567890', '59774856945']) assert.ok(!answer.includes(v), `the answer shows ${v}: ${answer}`);
  assert.equal((r.data.structured as { problems: unknown[] }).problems.length, 4, answer);
});

test("the diagnostics of an agent's write quote no value of a secret file, though the value came through a normal module", async () => {
  const ws = project();
  const r = await dispatcher(ws).dispatch({
    id: 'w1',
    idKey: 'toolCallId',
    toolName: 'apply_change',
    params: { relativePath: 'edit.ts', searchContent: 'export const v = 1;', replaceContent: 'export const v: 1 = API_KEY;' },
  });
  assert.equal(r.data.success, true, r.data.error);
  const diag = (r.data.structured as { diagnostics: { available: boolean; new: { path: string; message: string }[]; newErrors: number } }).diagnostics;
  assert.equal(diag.available, true);
  assert.equal(diag.newErrors, 1, JSON.stringify(diag));
  assert.deepEqual(diag.new.map((p) => [p.path, p.message]), [['edit.ts', WITHHELD]]);
  assertNoSecret(JSON.stringify(r));
});

test("a link or second name of a secret file reports that file's problems under its own name: none are shown", async () => {
  const ws = project();
  fs.symlinkSync(path.join(ws.root, '.env.ts'), path.join(ws.root, 'settings.ts'));
  fs.linkSync(path.join(ws.root, '.env.ts'), path.join(ws.root, 'defaults.ts'));
  const reported = (await ws.diagnostics(undefined)).map((d) => path.basename(d.path));
  assert.ok(reported.includes('settings.ts') && reported.includes('defaults.ts'), 'the checker reports each name as a file of its own');
  const r = await dispatcher(ws).dispatch({ id: 'l1', idKey: 'toolCallId', toolName: 'get_diagnostics', params: { severity: 'all' } });
  assert.equal(r.data.success, true, r.data.error);
  const files = (r.data.structured as { problems: { path: string }[] }).problems.map((p) => p.path);
  assert.ok(files.includes('direct.ts') && !files.includes('settings.ts') && !files.includes('defaults.ts'), JSON.stringify(files));
  assertNoSecret(JSON.stringify(r));
});

test('when the secret files cannot all be read (one over the size bound), every quoted literal is cut, names stay', async () => {
  const ws = project();
  // A text secret too large to read for values: nothing it holds can be looked for, so nothing quoted may pass.
  fs.writeFileSync(path.join(ws.root, '.env.dump'), `TOKEN=${'x'.repeat(64)}\n`.repeat(20_000));
  fs.writeFileSync(path.join(ws.root, 'other.ts'), "export const o: 1 = 'not secret at all';\n");
  const r = await dispatcher(ws).dispatch({ id: 'f1', idKey: 'toolCallId', toolName: 'get_diagnostics', params: { severity: 'all' } });
  assert.equal(r.data.success, true, r.data.error);
  assertNoSecret(JSON.stringify(r));
  const problems = (r.data.structured as { problems: { path: string; message: string }[] }).problems;
  assert.ok(problems.some((p) => p.path === 'other.ts' && p.message === `Type '"[secret]"' is not assignable to type '1'.`), JSON.stringify(problems));
  assert.ok(problems.some((p) => p.path === 'plain.ts' && p.message === "Cannot find name 'foo'."), 'an ordinary problem stays whole');
});

test('a secret file made or changed right after an answer is known at the next one, in a folder already looked at', async () => {
  const ws = project();
  const d = dispatcher(ws);
  const ask = async (id: string) => JSON.stringify(await d.dispatch({ id, idKey: 'toolCallId', toolName: 'get_diagnostics', params: { severity: 'all' } }));
  assertNoSecret(await ask('n1'));
  const fresh = 'pk-NEWFILE-b81d93c'; // shares no 8 characters with the other values
  fs.mkdirSync(path.join(ws.root, 'sub'));
  fs.writeFileSync(path.join(ws.root, 'sub/.env.local.ts'), `export const NEW_KEY = "${fresh}";\n`);
  fs.writeFileSync(path.join(ws.root, 'sub/use.ts'), "import { NEW_KEY } from './.env.local';\nexport const u: 1 = NEW_KEY;\n");
  const second = await ask('n2');
  assert.ok(second.includes('sub/use.ts') && !second.includes('NEWFILE'), second);
  const changed = 'rk-CHANGED-77c0e1f';
  fs.writeFileSync(path.join(ws.root, '.env.ts'), `export const API_KEY = "${changed}";\nexport const PIN = ${PIN};\nexport const SHORT = '${SHORT}';\n`);
  const third = await ask('n3');
  assert.ok(third.includes('viaConfig.ts') && !third.includes('CHANGED'), third);
});

test('a project with more secret files than are read for values gets every quoted literal cut', async () => {
  const ws = project();
  fs.mkdirSync(path.join(ws.root, 'many'));
  for (let i = 0; i <= 1_000; i++) fs.writeFileSync(path.join(ws.root, `many/.env.${i}`), `K=v${i}\n`);
  fs.writeFileSync(path.join(ws.root, 'other.ts'), "export const o: 1 = 'not secret at all';\n");
  const r = await dispatcher(ws).dispatch({ id: 'm1', idKey: 'toolCallId', toolName: 'get_diagnostics', params: { severity: 'all' } });
  assert.equal(r.data.success, true, r.data.error);
  assertNoSecret(JSON.stringify(r));
  const problems = (r.data.structured as { problems: { path: string; message: string }[] }).problems;
  assert.ok(problems.some((p) => p.path === 'other.ts' && p.message === `Type '"[secret]"' is not assignable to type '1'.`), JSON.stringify(problems));
  assert.ok(problems.some((p) => p.path === 'plain.ts' && p.message === "Cannot find name 'foo'."), 'an ordinary problem stays whole');
});
