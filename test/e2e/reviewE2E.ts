// Review end to end, as a person does it in the installed extension: drop one hunk of a proposal in
// the Pending Changes view and approve the rest; Approve All three waiting changes from the view's
// title bar (its modal names them); then, in the Agent Changes view, after a window reload, revert
// one change and Revert All, one of which is refused because the developer changed its lines.
// Screenshots of both views in the dark and light themes.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { waitUntil } from '../support/waitUntil';
import { runFromPalette, TIMEOUT } from './chatPage';

export interface ReviewWindow {
  readonly page: Page;
  readonly folder: string;
  /** Resolves once the installed extension is connected to the dev backend. */
  readonly ready: () => Promise<void>;
  /** Sends an apply_change through the dev backend's HTTP tool API; resolves with its answer once decided. */
  readonly propose: (params: Record<string, unknown>) => Promise<Record<string, unknown>>;
  readonly shot: (name: string) => Promise<void>;
}

interface Check {
  readonly name: string;
  readonly run: () => Promise<void>;
}

const TEN = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n';

export function reviewChecks(w: ReviewWindow): Check[] {
  const { page } = w;
  const file = (rel: string) => path.join(w.folder, rel);
  const read = (rel: string) => fs.readFileSync(file(rel), 'utf8');
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(file(rel)), { recursive: true });
    fs.writeFileSync(file(rel), text);
  };
  const pane = (title: string) => page.locator('.pane', { has: page.locator('.pane-header', { hasText: title }) }).first();
  const rows = (title: string) => pane(title).locator('.monaco-list-row');
  const dialogButton = (label: string | RegExp) => page.locator('.monaco-dialog-box .monaco-button', { hasText: label }).first();
  /** Picks a color theme the way a person does: Preferences: Color Theme, type its name, Enter. */
  const theme = async (name: 'Dark Modern' | 'Light Modern') => {
    // Only the quick input on screen: the workbench keeps hidden ones in the page, whose rows never become clickable.
    const input = page.locator('.quick-input-widget:visible input');
    const row = (label: RegExp) => page.locator('.quick-input-widget:visible .quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: label }) }).first();
    for (let attempt = 1; ; attempt++) {
      try {
        await page.keyboard.press('F1');
        await input.fill('>Preferences: Color Theme');
        // Exactly that command (not "Browse Color Themes in Marketplace", which matches the words too).
        await row(/^Preferences: Color Theme$/).click({ timeout: 10_000 });
        await input.fill(name);
        await row(new RegExp(`^${name}$`)).click({ timeout: 10_000 });
        break;
      } catch (e) {
        // The palette was not ready (the list still filling): close it and ask again, as a person would.
        await page.keyboard.press('Escape');
        if (attempt >= 3) throw e;
      }
    }
    const light = name === 'Light Modern';
    await page.waitForFunction((l) => document.querySelector('.monaco-workbench')?.classList.contains(l ? 'vs' : 'vs-dark') ?? false, light, { timeout: TIMEOUT });
    await page.waitForTimeout(300);
  };
  const inBothThemes = async (name: string, restore: () => Promise<void>) => {
    await theme('Dark Modern');
    await restore();
    await w.shot(`${name}-dark`);
    await theme('Light Modern');
    await restore();
    await w.shot(`${name}-light`);
    await theme('Dark Modern');
  };

  return [
    {
      name: 'Pending Changes: unchecking one hunk of two drops it from the diff and from what lands; the agent is told',
      run: async () => {
        await w.ready();
        write('review/hunks.txt', TEN);
        const answer = w.propose({ relativePath: 'review/hunks.txt', searchContent: 'two\nthree\nfour\nfive\nsix\nseven\neight', replaceContent: 'TWO\nthree\nfour\nfive\nsix\nseven\nEIGHT', description: 'Capitalize two and eight' });
        await runFromPalette(page, 'Agent Bridge: Focus on Pending Changes View');
        const change = rows('Pending Changes').filter({ hasText: 'hunks.txt' });
        await change.waitFor({ timeout: TIMEOUT });
        assert.match((await change.textContent()) ?? '', /\+2 −2/);
        const second = rows('Pending Changes').filter({ hasText: 'Line 8' });
        await second.waitFor({ timeout: TIMEOUT });
        await second.locator('.custom-view-tree-node-item-checkbox').first().click();
        // The change's counts follow, and the diff shows only the kept hunk.
        await page.waitForFunction(() => [...document.querySelectorAll('.monaco-list-row')].some((r) => /hunks\.txt/.test(r.textContent ?? '') && /\+1 −1/.test(r.textContent ?? '')), undefined, { timeout: TIMEOUT });
        await change.click();
        const diff = page.locator('.monaco-diff-editor').last();
        await diff.waitFor({ timeout: TIMEOUT });
        await page.waitForFunction(() => {
          const modified = document.querySelectorAll('.monaco-diff-editor .editor.modified .view-lines');
          const text = modified[modified.length - 1]?.textContent ?? '';
          return text.includes('TWO') && text.includes('eight') && !text.includes('EIGHT');
        }, undefined, { timeout: TIMEOUT });
        await inBothThemes('review-hunks', async () => undefined);
        await diff.locator('.editor.modified').click();
        await page.locator('.editor-actions a.action-label[aria-label^="Approve Change"]').first().click({ timeout: TIMEOUT });
        const r = await answer;
        assert.equal(r.success, true, String(r.error));
        const data = JSON.parse(String(r.result)) as { modifiedByUser: boolean; droppedHunks?: number };
        assert.equal(data.modifiedByUser, true);
        assert.equal(data.droppedHunks, 1);
        assert.equal(read('review/hunks.txt'), TEN.replace('two', 'TWO'));
      },
    },
    {
      name: 'Pending Changes: Approve All approves the three waiting changes after a modal that names them',
      run: async () => {
        for (const n of ['one', 'two', 'three']) write(`review/${n}.txt`, TEN);
        const answers = ['one', 'two', 'three'].map((n) => w.propose({ relativePath: `review/${n}.txt`, searchContent: n, replaceContent: n.toUpperCase(), description: `Shout ${n}` }));
        await runFromPalette(page, 'Agent Bridge: Focus on Pending Changes View');
        await page.waitForFunction(() => [...document.querySelectorAll('.pane')].some((p) => /Pending Changes/.test(p.querySelector('.pane-header')?.textContent ?? '') && p.querySelectorAll('.monaco-list-row').length === 3), undefined, { timeout: TIMEOUT });
        await pane('Pending Changes').locator('.pane-header').hover();
        await pane('Pending Changes').locator('.pane-header .action-label[aria-label^="Approve All"]').click({ timeout: TIMEOUT });
        const dialog = page.locator('.monaco-dialog-box');
        await dialog.waitFor({ timeout: TIMEOUT });
        const text = (await dialog.textContent()) ?? '';
        for (const n of ['one', 'two', 'three']) assert.match(text, new RegExp(`review/${n}\\.txt`));
        await w.shot('review-approve-all-dark');
        await dialogButton('Approve 3').click();
        for (const r of await Promise.all(answers)) assert.equal(r.success, true, String(r.error));
        for (const n of ['one', 'two', 'three']) assert.equal(read(`review/${n}.txt`), TEN.replace(n, n.toUpperCase()));
      },
    },
    {
      // Before the window reload below: after a reload, the code-server test host falls back to the default serverUrl.
      name: 'Diagnostics: an approved TypeScript edit that brings a type error says so in its answer',
      run: async () => {
        // As a developer works: a TypeScript file open, the language service up (its problem shows).
        write('review/warm.ts', "export const warm: number = 'not a number';\n");
        write('review/n.ts', 'export const n: number = 1;\n');
        await page.keyboard.press('Control+P');
        await page.locator('.quick-input-widget input').fill('warm.ts');
        await page.locator('.quick-input-list .monaco-list-row', { hasText: 'warm.ts' }).first().click({ timeout: TIMEOUT });
        await page.locator('.statusbar-item[aria-label*="1 Error"], .statusbar-item[aria-label*="Errors: 1"]').first().waitFor({ timeout: 60_000 });
        const answer = w.propose({ relativePath: 'review/n.ts', searchContent: 'number = 1', replaceContent: "number = 'one'" });
        const diff = page.locator('.monaco-diff-editor').last();
        await diff.waitFor({ timeout: TIMEOUT });
        await diff.locator('.editor.modified').click();
        await page.locator('.editor-actions a.action-label[aria-label^="Approve Change"]').first().click({ timeout: TIMEOUT });
        const r = await answer;
        assert.equal(r.success, true, String(r.error));
        const d = (JSON.parse(String(r.result)) as { diagnostics?: { available: boolean; new: { path: string; line: number; severity: string; message: string }[] } }).diagnostics;
        assert.equal(d?.available, true, JSON.stringify(d));
        assert.ok(d.new.some((p) => p.path === 'review/n.ts' && p.line === 1 && p.severity === 'error' && /not assignable/.test(p.message)), JSON.stringify(d));
      },
    },
    {
      name: 'Agent Changes: the list survives a window reload; Revert undoes one change exactly',
      run: async () => {
        await page.reload({ waitUntil: 'domcontentloaded' });
        await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
        await runFromPalette(page, 'Agent Bridge: Focus on Agent Changes View');
        for (const n of ['hunks', 'one', 'two', 'three']) await rows('Agent Changes').filter({ hasText: `${n}.txt` }).waitFor({ timeout: TIMEOUT });
        const one = rows('Agent Changes').filter({ hasText: 'one.txt' });
        await inBothThemes('review-agent-changes', () => one.hover());
        await one.hover();
        await one.locator('.action-label[aria-label="Revert"]').click({ timeout: TIMEOUT });
        await waitUntil(() => read('review/one.txt') === TEN, 'one.txt reverted', TIMEOUT, 100);
        await one.filter({ hasText: 'reverted' }).waitFor({ timeout: TIMEOUT });
      },
    },
    {
      name: 'Agent Changes: Revert All undoes the rest and refuses the change whose lines the developer edited',
      run: async () => {
        write('review/two.txt', read('review/two.txt').replace('TWO', 'TWO (mine)'));
        const header = pane('Agent Changes').locator('.pane-header');
        await header.hover();
        await header.locator('.action-label[aria-label^="Revert All"]').click({ timeout: TIMEOUT });
        const confirm = page.locator('.monaco-dialog-box');
        await confirm.waitFor({ timeout: TIMEOUT });
        assert.match((await confirm.textContent()) ?? '', /review\/two\.txt/);
        await dialogButton(/^Revert \d+$/).click();
        // The outcome names the one left alone and why.
        const outcome = page.locator('.monaco-dialog-box', { hasText: 'the others were left as they are' });
        await outcome.waitFor({ timeout: TIMEOUT });
        assert.match((await outcome.textContent()) ?? '', /review\/two\.txt: The file was changed after the agent's edit, near line 2/);
        await w.shot('review-revert-all-dark');
        await dialogButton('OK').click();
        await rows('Agent Changes').filter({ hasText: 'hunks.txt' }).filter({ hasText: 'reverted' }).waitFor({ timeout: TIMEOUT });
        assert.doesNotMatch((await rows('Agent Changes').filter({ hasText: 'two.txt' }).textContent()) ?? '', /reverted/);
        assert.equal(read('review/three.txt'), TEN);
        assert.equal(read('review/hunks.txt'), TEN);
        assert.equal(read('review/two.txt'), TEN.replace('two', 'TWO (mine)'));
      },
    },
  ];
}

