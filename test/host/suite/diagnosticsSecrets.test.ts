import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { connectedBackend, proposalTabs, rootCall } from './backend';
import { waitUntil } from '../../support/waitUntil';

const SECRET = 'sk-live-CANARY-HOSTDIAG-31f9a4';

/**
 * VS Code's own TypeScript server quotes a secret file's value in the problems of the normal files
 * that use it (directly, through `require` in checked JS, through `export *` in a normal module,
 * through `typeof import`). Neither get_diagnostics nor the report of an approved write may carry
 * that value; an ordinary problem stays whole.
 */
describe('Diagnostics never quote a secret file', () => {
  const live = connectedBackend();
  afterEach(async () => {
    for (const c of live.api.pendingChanges.list()) await live.api.pendingChanges.reject(c.id, 'test cleanup');
  });
  const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const file = (rel: string) => path.join(root(), 'leak', rel);
  const data = (m: Record<string, unknown>) => m.data as Record<string, unknown>;
  const quotesSecret = (rel: string) => vscode.languages.getDiagnostics(vscode.Uri.file(file(rel))).some((d) => d.message.includes(SECRET));

  before(() => {
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, allowJs: true, checkJs: true, noEmit: true, module: 'commonjs', target: 'es2020' } }),
      '.env.ts': `export const API_KEY = "${SECRET}";\n`,
      'config.ts': "export * from './.env';\n",
      'direct.ts': "import { API_KEY } from './.env';\nexport const q: 1 = API_KEY;\n",
      'viaConfig.ts': "import { API_KEY } from './config';\nexport const q: 1 = API_KEY;\n",
      'typeLevel.ts': "type Env = typeof import('./.env');\nexport const t: Env['API_KEY'] = 'guess';\n",
      'checked.js': "// @ts-check\nconst { API_KEY } = require('./.env');\n/** @type {1} */\nconst q = API_KEY;\nmodule.exports = { q };\n",
      'plain.ts': 'export const n = foo;\n',
      // An error already there shows when the TypeScript server has reported on the file.
      'edit.ts': "import { API_KEY } from './config';\nexport const v = 1;\nexport const k: string = API_KEY.length;\n",
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(file(rel)), { recursive: true });
      fs.writeFileSync(file(rel), text);
    }
  });

  it('get_diagnostics shows the problems of files that use a secret value, without the value', async function () {
    this.timeout(120_000);
    const users = ['direct.ts', 'viaConfig.ts', 'typeLevel.ts', 'checked.js'];
    for (const rel of [...users, 'plain.ts']) await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file(rel)), { preview: false });
    // VS Code's TypeScript server does quote the value in each: the leak to stop is real.
    await waitUntil(() => users.every(quotesSecret), 'the TypeScript server to report on every file', 90_000);
    await waitUntil(() => vscode.languages.getDiagnostics(vscode.Uri.file(file('plain.ts'))).length > 0, 'a problem in plain.ts', 30_000);

    const res = data(await live.backend.call(rootCall('get_diagnostics', { relativePath: 'leak', severity: 'all' })));
    assert.equal(res.success, true, String(res.error));
    const answer = JSON.stringify(res);
    assert.ok(!answer.includes(SECRET) && !answer.includes('HOSTDIAG'), answer);
    const text = String(res.result);
    // The secret file is TypeScript, whose types can print its values in any shape (bare property
    // names too): the message of every problem in a file that can import it is withheld, where and
    // which problem stay.
    for (const rel of ['direct.ts', 'viaConfig.ts', 'checked.js', 'typeLevel.ts', 'plain.ts']) {
      assert.match(text, new RegExp(`leak/${rel.replace('.', '\\.')}:\\d+:\\d+\` \\*\\*error\\*\\* \\(message withheld: `), text);
    }
    assert.ok(!text.includes('leak/.env.ts'), 'a secret file has no problems to show');
  });

  it('the problems an approved write brings quote no secret value that came through a normal module', async function () {
    this.timeout(120_000);
    // Only edit.ts open: the server then checks it first after the write, within the report's wait.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file('edit.ts')), { preview: false });
    await waitUntil(() => vscode.languages.getDiagnostics(vscode.Uri.file(file('edit.ts'))).length > 0, 'the TypeScript server to report on edit.ts', 90_000);
    const msg = rootCall('apply_change', { relativePath: 'leak/edit.ts', searchContent: 'export const v = 1;', replaceContent: 'export const v: 1 = API_KEY;' });
    const answer = live.backend.call(msg);
    const ownTab = () => proposalTabs().some((t) => (t.input as vscode.TabInputTextDiff).modified.query === msg.toolCallId);
    await waitUntil(() => live.api.pendingChanges.list().some((c) => c.id === msg.toolCallId) && ownTab(), 'the proposal diff');
    await live.api.pendingChanges.showDiff(msg.toolCallId);
    await vscode.commands.executeCommand('agentBridge.approveChange');
    const res = data(await answer);
    assert.equal(res.success, true, String(res.error));
    const r = JSON.parse(String(res.result)) as { diagnostics: { available: boolean; new: { path: string; message: string }[] } };
    assert.ok(!JSON.stringify(res).includes(SECRET), JSON.stringify(res));
    assert.equal(r.diagnostics.available, true);
    assert.ok(r.diagnostics.new.some((p) => p.path === 'leak/edit.ts' && p.message.startsWith('(message withheld: ')), JSON.stringify(r.diagnostics));
    // What the report was made from: VS Code's own problem for edit.ts quotes the value.
    await waitUntil(() => quotesSecret('edit.ts'), 'VS Code to report the value in edit.ts', 30_000);
  });
});
