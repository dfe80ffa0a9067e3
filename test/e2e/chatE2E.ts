// End to end, as a person uses the chat: the installed VSIX in a real VS Code (code-server) with
// Chromium, the dev backend's scripted agent behind it. Open the panel, type and press Enter, watch
// thinking and tool activity, read the Markdown answer, approve a change from its card, see an
// ERROR explained, check hostile Markdown stays inert, reload and find the conversation again.
// Runs in the dark and the light theme, with screenshots of each state in test-results/; then once
// more with Simplified Chinese as VS Code's display language (chat, launcher, status bar, a tool result).
// Prints `chat-e2e: N passed, N failed`.
//
//   node --import tsx test/e2e/chatE2E.ts [--skip-package]
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createScriptedAgent, SCRIPTED_COMMANDS } from '../../src/devBackend/scriptedAgent';
import { startDevBackend, type DevBackend } from '../../src/devBackend/server';
import { CodeServer, openWorkbench, type Workbench } from '../support/codeServer';
import { contextChecks } from './chatContextE2E';
import { keepChecks } from './chatKeepE2E';
import { streamingCheck } from './chatStreamE2E';
import { boxValueBecomes, chatFrame, focusChatTab, openFromActivityBar, openFromPalette, runFromPalette, send, TIMEOUT, waitForAnswers, waitForComposer } from './chatPage';

const repoRoot = path.resolve(__dirname, '..', '..');
const resultsDir = path.join(repoRoot, 'test-results');
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };
const vsix = path.join(repoRoot, `${pkg.name}-${pkg.version}.vsix`);

const THEMES = [
  { name: 'dark', colorTheme: 'Default Dark Modern' },
  { name: 'light', colorTheme: 'Default Light Modern' },
] as const;

const HOSTILE =
  '/echo <script>alert("xss")</script> [click](javascript:alert(1)) <img src=x onerror=alert(2)> ' +
  '<iframe src="https://example.com"></iframe> ![pixel](http://127.0.0.1:9/pixel.png) <form action="https://example.com"><input></form>';

interface Check {
  readonly name: string;
  readonly run: () => Promise<void>;
}

/** `known`: sessions that were there before this workbench opened (a closing one may linger briefly). */
function checksFor(theme: (typeof THEMES)[number], bench: Workbench, backend: DevBackend, folder: string, known: ReadonlySet<string>): Check[] {
  const page = bench.page;
  const chat = () => chatFrame(page);
  const shot = (state: string) => bench.screenshot(path.join(resultsDir, `chat-${state}-${theme.name}.png`));
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return [
    {
      name: `[${theme.name}] the extension connects and the chat opens ${theme.name === 'dark' ? 'from the activity bar' : 'from the command palette'}`,
      run: async () => {
        await backend.waitForSession((s) => s.projectKey === 'shop-service' && !known.has(s.webSocketSessionId), 90_000);
        await (theme.name === 'dark' ? openFromActivityBar(page) : openFromPalette(page));
        await chat().locator('.conn.connected').waitFor({ timeout: TIMEOUT });
        await shot('empty');
      },
    },
    {
      name: `[${theme.name}] Enter sends; THINKING and the read_file tool row show while the agent works`,
      run: async () => {
        await send(page, '/read src/app/Greeter.java');
        await chat().locator('.entry.thinking.active').first().waitFor({ timeout: TIMEOUT });
        await chat().locator('.entry.thinking progress').first().waitFor({ timeout: TIMEOUT });
        await shot('thinking');
        const tool = chat().locator('.entry.tool.succeeded', { hasText: 'read_file' });
        await tool.waitFor({ timeout: TIMEOUT });
        assert.match((await tool.locator('.tool-summary').textContent()) ?? '', /^src\/app\/Greeter\.java → /);
      },
    },
    {
      name: `[${theme.name}] the answer is rendered Markdown with a highlighted code block and a copy button`,
      run: async () => {
        await waitForAnswers(page, 1);
        const answer = chat().locator('.entry.answer').last();
        await answer.locator('h3').waitFor({ timeout: TIMEOUT });
        const code = answer.locator('pre code.language-java');
        assert.match((await code.textContent()) ?? '', /public class Greeter/);
        assert.ok((await code.locator('.hljs-keyword').count()) > 0, 'keywords highlighted');
        await answer.locator('.code-block').hover();
        await answer.locator('button.copy').waitFor({ timeout: TIMEOUT });
        await chat().locator('.entry.tool').first().locator('summary').click();
        await shot('answer');
      },
    },
    {
      name: `[${theme.name}] /edit shows an approval card; Approve from the card writes the change`,
      run: async () => {
        const before = fs.readFileSync(path.join(folder, 'src/app/Greeter.java'), 'utf8');
        await send(page, '/edit src/app/Greeter.java');
        // The diff opens beside the chat without taking the focus: what the developer types next
        // still goes into the chat box, never into the proposal.
        await page.locator('.tabs-container .tab', { hasText: 'Agent proposal' }).first().waitFor({ timeout: TIMEOUT });
        await page.keyboard.type('zzz');
        assert.equal(await chat().locator('textarea.input').inputValue(), 'zzz', 'the keys stayed in the chat');
        await chat().locator('textarea.input').fill('');
        await focusChatTab(page);
        const card = chat().locator('.card', { hasText: 'src/app/Greeter.java' });
        await card.waitFor({ timeout: TIMEOUT });
        assert.match((await card.locator('.added').textContent()) ?? '', /^\+1$/);
        await shot('approval');
        // The notification points to the diff and has no buttons of its own to go stale.
        const toast = page.locator('.notification-toast', { hasText: 'src/app/Greeter.java' });
        await toast.waitFor({ timeout: TIMEOUT });
        assert.equal(await toast.locator('.monaco-button').count(), 0, 'no Approve/Reject buttons in the notification');
        // The Pending Changes view lists it, with its counts; the status bar counts it.
        await runFromPalette(page, 'Agent Bridge: Focus on Pending Changes View');
        const row = page.locator('.pane-body .monaco-list-row', { hasText: 'Greeter.java' });
        await row.waitFor({ timeout: TIMEOUT });
        assert.match((await row.textContent()) ?? '', /\+1 −0/);
        await page.locator('.statusbar-item', { hasText: /^\s*1\s*$/ }).first().waitFor({ timeout: TIMEOUT });
        await row.hover();
        await shot('pending-view');
        await focusChatTab(page);
        await card.locator('button.approve').click();
        await waitForAnswers(page, 2);
        // Decided from the card: the notification closed itself and the view is empty.
        await toast.waitFor({ state: 'detached', timeout: TIMEOUT });
        assert.equal(await row.count(), 0, 'the view no longer lists the change');
        await chat().locator('.entry.answer', { hasText: 'the change was written' }).waitFor({ timeout: TIMEOUT });
        const after = fs.readFileSync(path.join(folder, 'src/app/Greeter.java'), 'utf8');
        assert.notEqual(after, before);
        assert.match(after, /\/\/ Reviewed with the Agent Bridge dev backend\.\n?$/);
        assert.equal(await chat().locator('.card').count(), 0, 'the card is gone once decided');
        // The landed change shows as a compact diff in its tool row, not as the tool's JSON.
        const edit = chat().locator('.entry.tool.succeeded', { hasText: 'apply_change' }).last();
        await edit.locator('summary').click();
        await edit.locator('.tool-diff .diff-line.add', { hasText: 'Reviewed with the Agent Bridge dev backend' }).waitFor({ timeout: TIMEOUT });
        assert.equal(await edit.locator('pre.tool-output').count(), 0, 'no raw JSON');
        await shot('approved-diff');
      },
    },
    {
      name: `[${theme.name}] /error ANALYSIS_TIMEOUT is shown with a human explanation; Retry sends it again, Edit puts it back in the box`,
      run: async () => {
        await send(page, '/error ANALYSIS_TIMEOUT');
        const error = chat().locator('.entry.error', { hasText: 'ANALYSIS_TIMEOUT' });
        await error.waitFor({ timeout: TIMEOUT });
        assert.match((await error.locator('.explanation').textContent()) ?? '', /5 minutes/);
        await shot('error');
        // Retry sends the same message again; Edit puts a message back into the box.
        const users = await chat().locator('.entry.user', { hasText: '/error ANALYSIS_TIMEOUT' }).count();
        await error.last().locator('button.retry-message').click();
        await chat().locator('.entry.user', { hasText: '/error ANALYSIS_TIMEOUT' }).nth(users).waitFor({ timeout: TIMEOUT });
        await chat().locator('.entry.error', { hasText: 'ANALYSIS_TIMEOUT' }).nth(1).waitFor({ timeout: TIMEOUT });
        const mine = chat().locator('.entry.user', { hasText: '/error ANALYSIS_TIMEOUT' }).last();
        await mine.hover();
        await mine.locator('button.edit').click();
        assert.equal(await boxValueBecomes(page, '/error ANALYSIS_TIMEOUT'), '/error ANALYSIS_TIMEOUT');
        await chat().locator('textarea.input').fill('');
      },
    },
    {
      name: `[${theme.name}] Stop stops waiting and says the backend may still be working`,
      run: async () => {
        await send(page, '/grep TODO');
        await chat().locator('button.stop').waitFor({ timeout: TIMEOUT });
        await chat().locator('button.stop').click();
        await chat().locator('.entry.notice.warning', { hasText: 'may still be working' }).waitFor({ timeout: TIMEOUT });
        assert.equal(await chat().locator('button.stop').isVisible(), false);
        assert.equal(await chat().locator('button.send').isEnabled(), true);
        // Let the abandoned turn finish on the backend; its late reply must not show.
        await page.waitForTimeout(3000);
        assert.equal(await chat().locator('.entry.answer', { hasText: 'grep_file' }).count(), 0);
      },
    },
    {
      name: `[${theme.name}] scrolled up to read, new output does not pull the view down; Jump to latest does; your own message does`,
      run: async () => {
        const transcript = chat().locator('main.transcript');
        const answers = await chat().locator('.entry.answer:not(.streaming)').count();
        const users = await chat().locator('.entry.user').count();
        await send(page, '/read notes.txt');
        await chat().locator('.entry.user').nth(users).waitFor({ timeout: TIMEOUT });
        // While the agent works, the developer scrolls up with the mouse wheel to reread something.
        await transcript.hover();
        await page.mouse.wheel(0, -5000);
        await page.waitForTimeout(200);
        const top = await transcript.evaluate((t) => t.scrollTop);
        await waitForAnswers(page, answers + 1);
        const jump = chat().locator('button.jump-to-latest');
        await jump.waitFor({ state: 'visible', timeout: TIMEOUT });
        assert.ok((await transcript.evaluate((t) => t.scrollTop)) <= top + 5, 'the view stayed where the developer was reading');
        await shot('jump-to-latest');
        await jump.click();
        await jump.waitFor({ state: 'hidden', timeout: TIMEOUT });
        assert.ok(await transcript.evaluate((t) => t.scrollHeight - t.scrollTop - t.clientHeight < 80), 'at the latest output');
        // Scrolled up again, the developer sends a message: that takes them to the latest output.
        await transcript.hover();
        await page.mouse.wheel(0, -5000);
        await send(page, '/help');
        await waitForAnswers(page, answers + 2);
        assert.ok(await transcript.evaluate((t) => t.scrollHeight - t.scrollTop - t.clientHeight < 80), 'a sent message did not bring the view to the latest output');
        assert.equal(await jump.isVisible(), false);
      },
    },
    {
      name: `[${theme.name}] a path:line in an answer is a link that opens the file at that line`,
      run: async () => {
        const answers = await chat().locator('.entry.answer:not(.streaming)').count();
        await send(page, '/echo The TODO is at src/app/Main.java:12 for now.');
        await waitForAnswers(page, answers + 1);
        const link = chat().locator('.entry.answer').last().locator('a.file-ref', { hasText: 'src/app/Main.java:12' });
        await link.waitFor({ timeout: TIMEOUT });
        await link.click();
        await page.locator('.tabs-container .tab', { hasText: 'Main.java' }).first().waitFor({ timeout: TIMEOUT });
        await page.locator('.statusbar-item', { hasText: /Ln 12, Col 1/ }).first().waitFor({ timeout: TIMEOUT });
        await shot('file-link');
      },
    },
    {
      name: `[${theme.name}] keyboard: the transcript is one tab stop, the arrow keys move inside it, Tab goes on to the message box`,
      run: async () => {
        const box = chat().locator('textarea.input');
        await box.click();
        // Between the message box and the transcript there may be the attachment chips' controls (one stop each).
        const chipStops = await chat().locator('.chips button').count();
        for (let i = 0; i <= chipStops; i++) await page.keyboard.press('Shift+Tab');
        await chat().locator('main.transcript:focus').waitFor({ timeout: TIMEOUT });
        await page.keyboard.press('ArrowDown');
        const inside = await chat().locator('main.transcript').evaluate((t) => t.contains(document.activeElement) && document.activeElement !== t && document.activeElement!.matches('summary, button, a[href], pre, .tool-output'));
        assert.ok(inside, 'a control inside the transcript has the focus');
        await page.keyboard.press('End');
        await shot('keyboard');
        // However many Copy buttons and tool rows the transcript holds, one Tab leaves it (then the chips, if any).
        for (let i = 0; i <= chipStops; i++) await page.keyboard.press('Tab');
        await chat().locator('textarea.input:focus').waitFor({ timeout: TIMEOUT });
      },
    },
    ...contextChecks(theme.name, bench, shot, folder),
    ...keepChecks(theme.name, bench, shot, folder),
    streamingCheck(theme.name, bench, shot),
    {
      name: `[${theme.name}] hostile Markdown from the backend is inert: no dialog, script, frame, image or javascript: link`,
      run: async () => {
        const answers = await chat().locator('.entry.answer:not(.streaming)').count();
        await send(page, HOSTILE);
        await waitForAnswers(page, answers + 1);
        const md = chat().locator('.entry.answer').last().locator('.markdown');
        assert.match((await md.textContent()) ?? '', /<script>alert\("xss"\)<\/script>/);
        for (const sel of ['script', 'iframe', 'img', 'form', 'input', '[onerror]', 'a[href^="javascript"]']) {
          assert.equal(await md.locator(sel).count(), 0, `found ${sel}`);
        }
        await page.waitForTimeout(500);
        assert.deepEqual(dialogs, []);
      },
    },
    {
      name: `[${theme.name}] after a window reload the chat tab is back with the conversation`,
      run: async () => {
        await page.reload({ waitUntil: 'domcontentloaded' });
        await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
        await focusChatTab(page);
        await waitForComposer(page);
        await chat().locator('.entry.user', { hasText: '/read src/app/Greeter.java' }).waitFor({ timeout: TIMEOUT });
        assert.ok((await chat().locator('.entry.answer').count()) >= 3);
        assert.ok((await chat().locator('.entry.error').count()) >= 1);
        await shot('restored');
        if (theme.name === 'dark') {
          await page.setViewportSize({ width: 720, height: 900 });
          await page.waitForTimeout(500);
          await shot('narrow');
          await page.setViewportSize({ width: 1400, height: 900 });
        }
      },
    },
  ];
}

/** Our own zh-cn texts, looked up by their English keys (contributions by their %key%). */
const zhBundle = JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const zhNls = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.nls.zh-cn.json'), 'utf8')) as Record<string, string>;
function zh(english: string): string {
  const text = zhBundle[english];
  assert.ok(text, `no zh-cn for ${english}`);
  return text;
}
/** A quick-pick label without its leading $(icon). */
const withoutIcon = (label: string) => label.replace(/^\$\([^)]+\)\s*/, '');

function zhChecks(bench: Workbench, backend: DevBackend, known: ReadonlySet<string>, server: CodeServer): Check[] {
  const page = bench.page;
  const chat = () => chatFrame(page);
  const shot = (state: string) => bench.screenshot(path.join(resultsDir, `chat-${state}-zh-cn.png`));
  const statusItem = page.locator('.statusbar-item', { hasText: 'Agent Bridge' }).first();
  return [
    {
      name: '[zh-cn] the side bar, the chat and the status bar speak Simplified Chinese',
      run: async () => {
        await backend.waitForSession((s) => s.projectKey === 'shop-service' && !known.has(s.webSocketSessionId), 90_000);
        await openFromActivityBar(page);
        await chat().locator('.conn.connected').waitFor({ timeout: TIMEOUT });
        // The container holds the docked chat, Pending Changes and Agent Changes: each has a pane header.
        for (const name of ['view.chat.name', 'view.pendingChanges.name', 'view.agentChanges.name']) {
          await page.locator('.part.sidebar .pane-header', { hasText: zhNls[name] }).first().waitFor({ timeout: TIMEOUT });
        }
        assert.equal(await chat().locator('html').getAttribute('lang'), 'zh-cn');
        assert.equal(await chat().locator('textarea.input').getAttribute('placeholder'), zh('Ask the agent… (Enter to send, Shift+Enter for a new line)'));
        assert.equal(await chat().locator('button.send').getAttribute('aria-label'), zh('Send'));
        // Docked: New Session and Open in Editor are in the view's title bar, not repeated in the chat.
        for (const key of ['command.newSession.title', 'command.openChatInEditor.title']) {
          await page.locator(`.part.sidebar .pane-header .action-label[aria-label="${zhNls[key]}"]`).first().waitFor({ state: 'attached', timeout: TIMEOUT });
        }
        assert.equal(await chat().locator('button.new-session').count(), 0);
        assert.match((await chat().locator('.conn').textContent()) ?? '', new RegExp(zh('Connected')));
        assert.equal((await chat().locator('.empty-state p').textContent())?.trim(), zh('Ask the agent about this workspace. Type @ to attach a file or symbol, / for the commands the backend offers.'));
        assert.equal(await statusItem.getAttribute('aria-label'), zh('Agent Bridge: connected'));
        await shot('empty');
      },
    },
    {
      name: '[zh-cn] a tool result reaches the chat in Chinese',
      run: async () => {
        await send(page, '/read src/app/Greeter.java');
        const tool = chat().locator('.entry.tool.succeeded', { hasText: 'read_file' });
        await tool.waitFor({ timeout: TIMEOUT });
        assert.match((await tool.locator('summary').getAttribute('aria-label')) ?? '', new RegExp(`: ${zh('Succeeded')}\\. `));
        // The collapsed row says what the tool found, as the tool wrote it: in Chinese.
        await tool.locator('.tool-outcome', { hasText: /^第 1–8 行，共 8 行/ }).waitFor({ timeout: TIMEOUT });
        await waitForAnswers(page, 1);
        await tool.locator('summary').click();
        assert.match((await tool.locator('.tool-output h2').first().textContent()) ?? '', /^文件：src\/app\/Greeter\.java$/);
        await shot('answer');
      },
    },
    {
      name: '[zh-cn] the status menu disconnects; the status bar and the chat say offline',
      run: async () => {
        await statusItem.click({ timeout: TIMEOUT });
        await page.locator('.quick-input-widget .quick-input-title', { hasText: zh('Agent Bridge: connected') }).waitFor({ timeout: TIMEOUT });
        for (const label of ['$(refresh) Reconnect', '$(output) Show Log']) {
          await page.locator('.quick-input-list .monaco-list-row', { hasText: withoutIcon(zh(label)) }).first().waitFor({ timeout: TIMEOUT });
        }
        await page.locator('.quick-input-list .monaco-list-row', { hasText: withoutIcon(zh('$(debug-disconnect) Disconnect')) }).first().click({ timeout: TIMEOUT });
        await page.locator('.statusbar-item', { hasText: zh('Agent Bridge: offline') }).first().waitFor({ timeout: TIMEOUT });
        await chat().locator('.conn', { hasText: zh('Offline') }).waitFor({ timeout: TIMEOUT });
        await shot('offline');
      },
    },
    {
      name: '[zh-cn] a message typed while offline waits, queued, and is sent once Retry brings the link back',
      run: async () => {
        const answers = await chat().locator('.entry.answer:not(.streaming)').count();
        await send(page, '/read notes.txt');
        const queued = chat().locator('.entry.user', { hasText: '/read notes.txt' }).locator('.queued');
        await queued.waitFor({ timeout: TIMEOUT });
        assert.equal((await queued.textContent())?.trim(), zh('Waiting for the connection; sent when it is back'));
        assert.equal(await chat().locator('.working').isVisible(), false, 'offline, the chat does not say the agent is working');
        await shot('queued');
        await chat().locator('button.retry').click();
        await queued.waitFor({ state: 'detached', timeout: TIMEOUT });
        await waitForAnswers(page, answers + 1);
        assert.match((await chat().locator('.entry.answer').last().textContent()) ?? '', /needle/);
      },
    },
    {
      name: '[zh-cn] with nothing at agentBridge.serverUrl, the header says what to do, counts down to the next try, and Open Settings goes to the setting',
      run: async () => {
        const dead = 'ws://127.0.0.1:9/ws/agent/chat';
        // Settings written from outside reach a running window unreliably here: reload, as after editing them by hand.
        const reload = async () => {
          await page.reload({ waitUntil: 'domcontentloaded' });
          await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
          await focusChatTab(page);
        };
        server.writeSettings({ 'agentBridge.serverUrl': dead, 'workbench.colorTheme': 'Default Dark Modern' });
        await reload();
        try {
          const hint = chat().locator('.conn-hint');
          await hint.waitFor({ timeout: TIMEOUT });
          const expected = zh('Nothing answers at {0}. Start the agent backend, or point agentBridge.serverUrl at the one you use.').replace('{0}', dead);
          assert.ok(((await hint.textContent()) ?? '').includes(expected), await hint.textContent() ?? '');
          await chat().locator('.countdown', { hasText: /\d/ }).waitFor({ timeout: TIMEOUT });
          await shot('offline-hint');
          await hint.locator('button.open-settings').click();
          // The setting itself, in the tab where it can be set (Remote: it is machine-scoped and this window is remote).
          await page.locator('.settings-editor .setting-item-contents', { hasText: /Server ?Url/i }).first().waitFor({ timeout: TIMEOUT });
          await page.locator('.settings-editor .settings-tabs-widget .action-label.checked', { hasText: /Remote/ }).first().waitFor({ timeout: TIMEOUT });
          await shot('offline-settings');
        } finally {
          // The last check of the run: the setting is put back for tidiness, not reloaded into the window.
          server.writeSettings({ 'agentBridge.serverUrl': backend.wsUrl('/ws/agent/chat'), 'workbench.colorTheme': 'Default Dark Modern' });
        }
      },
    },
  ];
}

async function runChecks(label: string, checks: Check[], bench: Workbench): Promise<{ passed: number; failed: number }> {
  for (const [i, check] of checks.entries()) {
    try {
      await check.run();
      console.log(`  ✔ ${check.name}`);
    } catch (e) {
      // Later steps build on this one: count them as failed rather than wait out their timeouts.
      console.log(`  ✖ ${check.name}\n    ${(e as Error).message.split('\n').join('\n    ')}`);
      for (const rest of checks.slice(i + 1)) console.log(`  ✖ ${rest.name} (not run)`);
      await bench.screenshot(path.join(resultsDir, `chat-failure-${label}.png`)).catch(() => undefined);
      console.log(bench.console.slice(-40).join('\n'));
      return { passed: i, failed: checks.length - i };
    }
  }
  return { passed: checks.length, failed: 0 };
}

async function main(): Promise<number> {
  if (!process.argv.includes('--skip-package')) {
    execFileSync('npm', ['run', 'package'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  assert.ok(fs.existsSync(vsix), `${vsix} was not built`);
  fs.mkdirSync(resultsDir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bridge-chat-e2e-'));
  // A person reads at human speed: small pauses keep THINKING on screen long enough to see (and shoot).
  const backend = await startDevBackend({ port: 0, chat: createScriptedAgent({ stepDelayMs: 600 }), commands: SCRIPTED_COMMANDS });
  let server: CodeServer | undefined;
  let passed = 0;
  let failed = 0;
  try {
    server = await CodeServer.start({ settings: { 'agentBridge.serverUrl': backend.wsUrl('/ws/agent/chat') } });
    await server.installExtension(vsix);
    for (const theme of THEMES) {
      const folder = path.join(tmp, theme.name, 'shop-service');
      fs.cpSync(path.join(repoRoot, 'test', 'host', 'fixtures', 'workspace'), folder, { recursive: true });
      server.writeSettings({ 'agentBridge.serverUrl': backend.wsUrl('/ws/agent/chat'), 'workbench.colorTheme': theme.colorTheme });
      const known = new Set(backend.sessions().map((s) => s.webSocketSessionId));
      const bench = await openWorkbench(server, { folder });
      try {
        const r = await runChecks(theme.name, checksFor(theme, bench, backend, folder, known), bench);
        passed += r.passed;
        failed += r.failed;
      } finally {
        await bench.close();
      }
    }
    // Simplified Chinese: the same server, a window opened after switching its display language.
    const zhFolder = path.join(tmp, 'zh-cn', 'shop-service');
    fs.cpSync(path.join(repoRoot, 'test', 'host', 'fixtures', 'workspace'), zhFolder, { recursive: true });
    server.writeSettings({ 'agentBridge.serverUrl': backend.wsUrl('/ws/agent/chat'), 'workbench.colorTheme': 'Default Dark Modern' });
    server.setDisplayLanguage('zh-cn');
    const known = new Set(backend.sessions().map((s) => s.webSocketSessionId));
    const bench = await openWorkbench(server, { folder: zhFolder });
    try {
      const r = await runChecks('zh-cn', zhChecks(bench, backend, known, server), bench);
      passed += r.passed;
      failed += r.failed;
    } finally {
      await bench.close();
    }
  } catch (e) {
    failed++;
    console.log(`  ✖ chat e2e setup: ${(e as Error).stack ?? String(e)}`);
    if (server) console.log(server.logs(80));
  } finally {
    await server?.stop().catch(() => undefined);
    await backend.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`chat-e2e: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    console.log('chat-e2e: 0 passed, 1 failed');
    process.exit(1);
  },
);
