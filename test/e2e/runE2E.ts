// End to end, as a user: package the VSIX, install it into a real VS Code (code-server) the way a
// user does, open a folder, and check through the dev backend's HTTP tool API (docs/protocol.md §9.3) that the
// installed extension connects on its own, answers, and asks before it writes: the approval is
// given and refused by clicking the diff editor's title-bar buttons. A second window, with
// Workspace Trust on and the folder untrusted, must refuse every write.
// Prints `e2e: N passed, N failed`.
//
//   node --import tsx test/e2e/runE2E.ts [--skip-package]
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GRAMMAR_FILES, RUNTIME_WASM } from '../../src/core/code/parse/parser';
import { startDevBackend, type DevBackend } from '../../src/devBackend/server';
import { CodeServer, openWorkbench, type Workbench } from '../support/codeServer';
import { unpackModule } from '../support/jdk';
import { chatFrame, openFromPalette, runFromPalette, TIMEOUT } from './chatPage';
import { reviewChecks } from './reviewE2E';

const repoRoot = path.resolve(__dirname, '..', '..');
const resultsDir = path.join(repoRoot, 'test-results');
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };
const vsix = path.join(repoRoot, `${pkg.name}-${pkg.version}.vsix`);

interface Check {
  readonly name: string;
  readonly run: () => Promise<void>;
}

interface Window {
  readonly backend: DevBackend;
  readonly server: CodeServer;
  readonly bench: Workbench;
  readonly folder: string;
  readonly projectKey: string;
}

let passed = 0;
let failed = 0;

async function execute(backend: DevBackend, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(`${backend.url}/api/claude-code/tools/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, `HTTP ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}

interface WindowOptions {
  readonly workspaceTrust?: boolean;
  /** Open a multi-root workspace: the fixture folder first, then this one. */
  readonly secondFolder?: { readonly name: string; readonly files: Readonly<Record<string, string>> };
}

/** A fresh VS Code window with the VSIX installed, a copy of the fixture folder open, and a dev backend. */
async function openWindow(projectKey: string, options: WindowOptions = {}): Promise<Window> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bridge-e2e-'));
  const folder = path.join(tmp, projectKey);
  fs.cpSync(path.join(repoRoot, 'test', 'host', 'fixtures', 'workspace'), folder, { recursive: true });
  let workspace: string | undefined;
  if (options.secondFolder) {
    for (const [rel, text] of Object.entries(options.secondFolder.files)) {
      fs.mkdirSync(path.dirname(path.join(tmp, options.secondFolder.name, rel)), { recursive: true });
      fs.writeFileSync(path.join(tmp, options.secondFolder.name, rel), text);
    }
    workspace = path.join(tmp, 'two-folders.code-workspace');
    fs.writeFileSync(workspace, JSON.stringify({ folders: [{ path: projectKey }, { path: options.secondFolder.name }] }));
  }
  // A change under review waits for the checks' clicks (and screenshots in both themes): on a slow
  // run that took longer than the backend's default 30 s for an answer (HTTP 504), not a failure.
  const backend = await startDevBackend({ port: 0, toolTimeoutMs: 120_000 });
  const server = await CodeServer.start({
    workspace: workspace ?? folder,
    workspaceTrust: options.workspaceTrust,
    settings: { 'agentBridge.serverUrl': backend.wsUrl('/ws/agent/chat'), 'files.autoSave': 'off' },
  });
  await server.installExtension(vsix);
  const bench = await openWorkbench(server, workspace ? { workspace } : { folder });
  return { backend, server, bench, folder, projectKey };
}

async function closeWindow(w: Window | undefined): Promise<void> {
  if (!w) return;
  await w.bench.close().catch(() => undefined);
  await w.server.stop().catch(() => undefined);
  await w.backend.close();
  fs.rmSync(path.dirname(w.folder), { recursive: true, force: true });
}

async function runChecks(w: Window, checks: Check[]): Promise<void> {
  for (const check of checks) {
    try {
      await check.run();
      passed++;
      console.log(`  ✔ ${check.name}`);
    } catch (e) {
      failed++;
      console.log(`  ✖ ${check.name}\n    ${(e as Error).message}`);
      await w.bench.screenshot(path.join(resultsDir, `e2e-failure-${passed + failed}.png`)).catch(() => undefined);
    }
  }
}

/** Proposes a change over HTTP (the answer arrives once the developer decides) and waits for its diff. */
async function proposeAndShowDiff(w: Window, params: Record<string, unknown>) {
  const answer = execute(w.backend, { tool: 'apply_change', params, projectKey: w.projectKey });
  // Awaited by the check; a check that fails before that must not crash the whole run.
  answer.catch(() => undefined);
  // The diff opens beside what the developer works in without taking the focus; they click into
  // its proposal side to review, and its title bar shows Approve and Reject.
  const diff = w.bench.page.locator('.monaco-diff-editor').last();
  await diff.waitFor({ timeout: 20_000 });
  await diff.locator('.editor.modified').click();
  const approve = w.bench.page.locator('.editor-actions a.action-label[aria-label^="Approve Change"]').first();
  await approve.waitFor({ timeout: 20_000 });
  return { answer, approve, reject: w.bench.page.locator('.editor-actions a.action-label[aria-label^="Reject Change"]').first() };
}

function trustedChecks(w: Window): Check[] {
  const file = (rel: string) => path.join(w.folder, rel);
  return [
    {
      name: 'the VSIX installs into the extensions folder',
      run: async () => {
        const installed = fs.readdirSync(w.server.extensionsDir).filter((d) => d.startsWith(`agent-bridge.${pkg.name}-`));
        assert.deepEqual(installed, [`agent-bridge.${pkg.name}-${pkg.version}`]);
      },
    },
    {
      name: 'the VSIX carries the tree-sitter runtime and the grammar of every language the code index reads',
      run: async () => {
        const dir = path.join(w.server.extensionsDir, `agent-bridge.${pkg.name}-${pkg.version}`, 'dist', 'grammars');
        const expected = [RUNTIME_WASM, ...new Set(Object.values(GRAMMAR_FILES))].sort();
        assert.deepEqual(fs.readdirSync(dir).sort(), expected);
      },
    },
    {
      name: 'the VSIX carries the code index\'s parse worker and the JDK signature table beside the bundles',
      run: async () => {
        const dist = path.join(w.server.extensionsDir, `agent-bridge.${pkg.name}-${pkg.version}`, 'dist');
        for (const f of ['codeWorker.js', 'notebookWorker.js', 'searchWorker.js', 'jdk-signatures.txt']) assert.ok(fs.statSync(path.join(dist, f)).size > 0, f);
      },
    },
    {
      name: 'the installed extension connects on its own with the folder name as project key',
      run: async () => {
        const s = await w.backend.waitForSession((x) => x.projectKey === w.projectKey, 90_000);
        assert.equal(s.protocol, 'v2');
      },
    },
    {
      name: 'grep_file through the HTTP tool API returns the matches',
      run: async () => {
        const r = await execute(w.backend, { tool: 'grep_file', params: { pattern: 'TODO' }, projectKey: w.projectKey });
        assert.equal(r.success, true, String(r.error));
        assert.match(String(r.result), /src\/app\/Greeter\.java/);
        assert.match(String(r.result), /TODO: localize/);
      },
    },
    {
      name: 'the first code index build shows its progress in the status bar, the call sites last; then the progress goes',
      run: async () => {
        // java.base (about 3,000 files) beside the fixture: enough for both passes to show.
        fs.cpSync(unpackModule('java.base'), file('jdk/java.base'), { recursive: true });
        const answer = execute(w.backend, { tool: 'read_class', params: { className: 'java.util.ArrayList' }, projectKey: w.projectKey });
        const progress = w.bench.page.locator('.statusbar-item', { hasText: /Agent Bridge: indexing code/ }).first();
        const calls = w.bench.page.locator('.statusbar-item', { hasText: /call sites, \d+\/\d+ files/ }).first();
        await calls.waitFor({ timeout: 120_000 });
        await w.bench.screenshot(path.join(resultsDir, 'e2e-index-call-sites.png'));
        assert.match((await calls.textContent()) ?? '', /Agent Bridge: indexing code: call sites, \d+\/\d+ files/);
        const r = await answer;
        assert.equal(r.success, true, String(r.error));
        assert.match(String(r.result), /class ArrayList<E>/);
        // Once the call sites are in, the item leaves the status bar.
        await progress.waitFor({ state: 'detached', timeout: 180_000 });
      },
    },
    {
      name: 'read_class on a Python file answers from the grammar inside the VSIX (no language server for it)',
      run: async () => {
        fs.mkdirSync(file('tools'), { recursive: true });
        fs.writeFileSync(file('tools/report.py'), 'class Report:\n    """Sums orders."""\n\n    def total(self, orders):\n        return sum(orders)\n');
        const r = await execute(w.backend, { tool: 'read_class', params: { className: 'Report', relativePath: 'tools/report.py' }, projectKey: w.projectKey });
        assert.equal(r.success, true, String(r.error));
        assert.match(String(r.result), /source: parser/);
        assert.match(String(r.result), /- L4–5 `def total\(self, orders\)`/);
      },
    },
    {
      name: 'read_file through the HTTP tool API returns numbered lines',
      run: async () => {
        const r = await execute(w.backend, { tool: 'read_file', params: { relativePath: 'notes.txt' }, projectKey: w.projectKey });
        assert.equal(r.success, true, String(r.error));
        assert.match(String(r.result), /2 \| The word needle appears here once\./);
        assert.equal(typeof r.executionTime, 'number');
      },
    },
    {
      name: 'a path escape is refused with PERMISSION_DENIED',
      run: async () => {
        const r = await execute(w.backend, { tool: 'read_file', params: { relativePath: '../../../etc/hostname' }, projectKey: w.projectKey });
        assert.equal(r.success, false);
        assert.equal(r.code, 'PERMISSION_DENIED');
      },
    },
    {
      name: 'the status bar shows the connected state',
      run: async () => {
        const item = w.bench.page.locator('.statusbar-item', { hasText: 'Agent Bridge' }).first();
        await item.waitFor({ timeout: 20_000 });
        assert.match((await item.getAttribute('aria-label')) ?? '', /connected/);
        await w.bench.screenshot(path.join(resultsDir, 'e2e-connected.png'));
      },
    },
    {
      name: 'apply_change opens a diff; clicking Approve in its title bar writes the change',
      run: async () => {
        const before = fs.readFileSync(file('src/app/Greeter.java'), 'utf8');
        const { answer, approve } = await proposeAndShowDiff(w, {
          relativePath: 'src/app/Greeter.java',
          searchContent: '        return "Hello, " + name + "!";',
          replaceContent: '        return "Hello, " + name.trim() + "!";',
          description: 'Trim the name before greeting',
        });
        await w.bench.page.waitForTimeout(500);
        await w.bench.screenshot(path.join(resultsDir, 'e2e-approval-diff.png'));
        assert.equal(fs.readFileSync(file('src/app/Greeter.java'), 'utf8'), before, 'nothing written before approval');
        await approve.click();
        const r = await answer;
        assert.equal(r.success, true, String(r.error));
        const data = JSON.parse(String(r.result)) as { saved: boolean; structuredPatch: { lines: string[] }[] };
        assert.equal(data.saved, true);
        assert.ok(data.structuredPatch[0].lines.includes('+        return "Hello, " + name.trim() + "!";'));
        assert.match(fs.readFileSync(file('src/app/Greeter.java'), 'utf8'), /name\.trim\(\)/);
      },
    },
    {
      name: 'clicking Reject and giving a reason answers USER_REJECTED and leaves the file byte-identical',
      run: async () => {
        const before = fs.readFileSync(file('notes.txt'));
        const { answer, reject } = await proposeAndShowDiff(w, { relativePath: 'notes.txt', searchContent: 'needle', replaceContent: 'haystack' });
        await reject.click();
        const input = w.bench.page.locator('.quick-input-widget input').first();
        await input.waitFor({ timeout: 10_000 });
        await input.fill('keep the needle');
        await input.press('Enter');
        const r = await answer;
        assert.equal(r.success, false);
        assert.equal(r.code, 'USER_REJECTED');
        assert.match(String(r.error), /keep the needle/);
        assert.deepEqual(fs.readFileSync(file('notes.txt')), before);
      },
    },
  ];
}

function untrustedChecks(w: Window): Check[] {
  return [
    {
      name: 'in an untrusted workspace the extension still connects and reads',
      run: async () => {
        await w.backend.waitForSession((x) => x.projectKey === w.projectKey, 90_000);
        const r = await execute(w.backend, { tool: 'read_file', params: { relativePath: 'notes.txt' }, projectKey: w.projectKey });
        assert.equal(r.success, true, String(r.error));
      },
    },
    {
      name: 'in an untrusted workspace every write is refused with PERMISSION_DENIED',
      run: async () => {
        const before = fs.readFileSync(path.join(w.folder, 'notes.txt'));
        const r = await execute(w.backend, { tool: 'apply_change', params: { relativePath: 'notes.txt', searchContent: 'needle', replaceContent: 'pin' }, projectKey: w.projectKey });
        assert.equal(r.success, false);
        assert.equal(r.code, 'PERMISSION_DENIED');
        assert.match(String(r.error), /not trusted/);
        const created = await execute(w.backend, { tool: 'Replace', params: { file_path: 'evil.txt', content: 'x' }, projectKey: w.projectKey });
        assert.equal(created.code, 'PERMISSION_DENIED');
        assert.deepEqual(fs.readFileSync(path.join(w.folder, 'notes.txt')), before);
        assert.equal(fs.existsSync(path.join(w.folder, 'evil.txt')), false);
        const item = w.bench.page.locator('.statusbar-item', { hasText: 'Agent Bridge' }).first();
        assert.match((await item.textContent()) ?? '', /read-only/);
        await w.bench.screenshot(path.join(resultsDir, 'e2e-untrusted.png'));
      },
    },
    {
      name: 'in an untrusted workspace the chat panel says it is read-only, with a way to manage trust',
      run: async () => {
        // VS Code's own question on opening an untrusted folder: answer it as a cautious person would.
        const no = w.bench.page.locator('.monaco-dialog-box .monaco-button', { hasText: "No, I don't trust the authors" });
        if (await no.isVisible()) await no.click();
        await openFromPalette(w.bench.page);
        const notice = chatFrame(w.bench.page).locator('.read-only');
        await notice.waitFor({ state: 'visible', timeout: TIMEOUT });
        assert.match((await notice.textContent()) ?? '', /Read-only: this workspace is not trusted.*can read and search this workspace but cannot change any file/);
        await w.bench.page.waitForTimeout(500);
        await w.bench.screenshot(path.join(resultsDir, 'chat-untrusted.png'));
      },
    },
    {
      name: 'Manage Workspace Trust opens the trust editor; trusting there removes the notice from the open chat and the read-only marker',
      run: async () => {
        const page = w.bench.page;
        await chatFrame(page).locator('.read-only button.manage-trust').click();
        const editor = page.locator('.workspace-trust-editor');
        await editor.waitFor({ timeout: TIMEOUT });
        await w.bench.screenshot(path.join(resultsDir, 'e2e-trust-editor.png'));
        // Side by side, so the chat stays open (a hidden webview is unloaded) while trust is granted.
        await runFromPalette(page, 'View: Move Editor into Right Group');
        const notice = chatFrame(page).locator('.read-only');
        await notice.waitFor({ state: 'visible', timeout: TIMEOUT });
        // Marks this very page: if it is still there afterwards, the notice went by the trust event, not by a reload.
        await chatFrame(page).locator('body').evaluate((b) => b.setAttribute('data-e2e-mark', 'before-trust'));
        await editor.locator('.monaco-button', { hasText: /^Trust/ }).first().click();
        await notice.waitFor({ state: 'hidden', timeout: TIMEOUT });
        assert.equal(await chatFrame(page).locator('body[data-e2e-mark="before-trust"] .read-only[hidden]').count(), 1, 'the same page, its notice hidden');
        await page.waitForFunction(() => !/read-only/.test(document.querySelector('.statusbar')?.textContent ?? ''), undefined, { timeout: TIMEOUT });
        await page.waitForTimeout(500);
        await w.bench.screenshot(path.join(resultsDir, 'chat-trusted.png'));
      },
    },
  ];
}

async function phase(projectKey: string, options: WindowOptions, checks: (w: Window) => Check[]): Promise<void> {
  let w: Window | undefined;
  try {
    w = await openWindow(projectKey, options);
    await runChecks(w, checks(w));
  } catch (e) {
    failed++;
    console.log(`  ✖ e2e setup (${projectKey}): ${(e as Error).stack ?? String(e)}`);
  } finally {
    if (w && failed > 0) console.log(w.server.logs(60));
    await closeWindow(w);
  }
}

/**
 * A multi-root workspace (the fixture and a second folder): the first is served until the
 * developer picks the other with **Agent Bridge: Choose the Folder to Serve**; the link then
 * reconnects as that project.
 */
function multiRootChecks(w: Window): Check[] {
  const read = (projectKey: string, relativePath: string) => execute(w.backend, { tool: 'read_file', params: { relativePath }, projectKey });
  return [
    {
      name: 'in a multi-root workspace the first folder is served until another is chosen',
      run: async () => {
        await w.backend.waitForSession((s) => s.projectKey === w.projectKey, 90_000);
        assert.equal((await read(w.projectKey, 'notes.txt')).success, true);
        const other = await read(w.projectKey, 'invoice.txt');
        assert.equal(other.success, false, 'the second folder is not served yet');
      },
    },
    {
      name: 'Choose the Folder to Serve picks the second folder: the link reconnects as that project and reads its files',
      run: async () => {
        const page = w.bench.page;
        await runFromPalette(page, 'Agent Bridge: Choose the Folder to Serve');
        const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'billing' }).first();
        await row.waitFor({ timeout: TIMEOUT });
        await w.bench.screenshot(path.join(resultsDir, 'e2e-choose-folder.png'));
        await row.click();
        await w.backend.waitForSession((s) => s.projectKey === 'billing', 60_000);
        const r = await read('billing', 'invoice.txt');
        assert.equal(r.success, true, JSON.stringify(r));
        assert.match(String(r.result), /invoice 42: paid/);
      },
    },
  ];
}

async function main(): Promise<number> {
  if (!process.argv.includes('--skip-package')) {
    execFileSync('npm', ['run', 'package'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  assert.ok(fs.existsSync(vsix), `${vsix} was not built`);
  fs.mkdirSync(resultsDir, { recursive: true });
  // AGENT_BRIDGE_E2E_PHASES=review (comma-separated) runs only those phases, for work on one feature.
  const only = process.env.AGENT_BRIDGE_E2E_PHASES?.split(',');
  const run = (name: string) => !only || only.includes(name);
  if (run('trusted')) await phase('shop-service', {}, trustedChecks);
  if (run('untrusted')) await phase('untrusted-service', { workspaceTrust: true }, untrustedChecks);
  if (run('multi')) await phase('multi-service', { secondFolder: { name: 'billing', files: { 'invoice.txt': 'invoice 42: paid\n' } } }, multiRootChecks);
  if (run('review')) {
    await phase('review-service', {}, (w) =>
      reviewChecks({
        page: w.bench.page,
        folder: w.folder,
        ready: async () => {
          await w.backend.waitForSession((x) => x.projectKey === w.projectKey, 90_000);
        },
        propose: (params) => {
          const answer = execute(w.backend, { tool: 'apply_change', params, projectKey: w.projectKey });
          // Awaited by the check; a check that fails before that must not crash the run.
          answer.catch(() => undefined);
          return answer;
        },
        shot: (name) => w.bench.screenshot(path.join(resultsDir, `e2e-${name}.png`)),
      }),
    );
  }
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    console.log('e2e: 0 passed, 1 failed');
    process.exit(1);
  },
);
