// The chat's context features as a person uses them, in the real workbench: `@` to attach a file,
// `/` for the backend's commands, the active file offered as a chip, Add Selection to Chat from
// the command palette. Part of chatE2E.ts's run (both themes), with screenshots.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workbench } from '../support/codeServer';
import { chatFrame, focusChatTab, runFromPalette, send, TIMEOUT, waitForAnswers } from './chatPage';

interface Check {
  readonly name: string;
  readonly run: () => Promise<void>;
}

export function contextChecks(theme: string, bench: Workbench, shot: (state: string) => Promise<void>, folder: string): Check[] {
  const page = bench.page;
  const chat = () => chatFrame(page);
  const box = () => chat().locator('textarea.input');
  return [
    {
      name: `[${theme}] @ lists the folder's files as you type; Enter attaches the chosen one as a chip; the agent gets it`,
      run: async () => {
        await focusChatTab(page);
        await box().click();
        await box().fill('');
        await box().pressSequentially('Explain @greetja', { delay: 30 });
        const list = chat().locator('.picker[aria-label]:not([hidden])');
        await list.waitFor({ timeout: TIMEOUT });
        const first = list.locator('.picker-item').first();
        await first.waitFor({ timeout: TIMEOUT });
        assert.match((await first.textContent()) ?? '', /Greeter\.java/);
        assert.equal(await first.getAttribute('aria-selected'), 'true');
        await shot('mention');
        await box().press('Enter');
        const chip = chat().locator('.chips .chip', { hasText: 'Greeter.java' }).first();
        await chip.waitFor({ timeout: TIMEOUT });
        assert.equal(await box().inputValue(), 'Explain ', 'the @ query left the message');
        assert.equal(await list.isVisible(), false);
        const answers = await chat().locator('.entry.answer:not(.streaming)').count();
        await box().pressSequentially('this class', { delay: 10 });
        await shot('chips');
        await box().press('Enter');
        await waitForAnswers(page, answers + 1);
        await chat().locator('.entry.answer').last().getByText('You attached').waitFor({ timeout: TIMEOUT });
        assert.match((await chat().locator('.entry.answer').last().textContent()) ?? '', /You attached src\/app\/Greeter\.java:1-\d+/);
        await chat().locator('.entry.user').last().locator('.sent-context a.chip', { hasText: 'Greeter.java' }).waitFor({ timeout: TIMEOUT });
        assert.equal(await chat().locator('.chips .chip:not(.suggested)').count(), 0, 'the chips went with the message');
      },
    },
    {
      name: `[${theme}] / lists the backend's commands; the arrows choose, Enter puts it in the box; Escape closes the list`,
      run: async () => {
        await box().fill('');
        await box().pressSequentially('/', { delay: 30 });
        const list = chat().locator('.picker[aria-label]:not([hidden])');
        await list.locator('.picker-item', { hasText: '/grep' }).waitFor({ timeout: TIMEOUT });
        assert.ok((await list.locator('.picker-item').count()) >= 8);
        await box().pressSequentially('e', { delay: 30 });
        // /edit, /error, /echo start with e: the second is chosen with one ArrowDown.
        await box().press('ArrowDown');
        const active = list.locator('.picker-item[aria-selected="true"]');
        assert.equal(((await active.textContent()) ?? '').startsWith('/error'), true, (await active.textContent()) ?? '');
        await shot('slash');
        await box().press('Enter');
        assert.equal(await box().inputValue(), '/error ');
        assert.equal(await list.isVisible(), false);
        await box().fill('');
        await box().pressSequentially('/g', { delay: 30 });
        await list.waitFor({ timeout: TIMEOUT });
        await box().press('Escape');
        assert.equal(await list.isVisible(), false);
        await box().fill('');
      },
    },
    {
      name: `[${theme}] the file in the editor is offered in one click; Add Selection to Chat attaches the selected lines; × removes a chip`,
      run: async () => {
        // Main.java is open from the file-link check, with the cursor on line 12.
        await page.locator('.tabs-container .tab', { hasText: 'Main.java' }).first().click();
        // The selection is made with the keys: the editor must have them first (a loaded machine lags).
        await page.locator('.monaco-editor.focused').first().waitFor({ timeout: TIMEOUT });
        await page.keyboard.press('Shift+ArrowDown');
        await page.keyboard.press('Shift+ArrowDown');
        await runFromPalette(page, 'Agent Bridge: Add Selection to Chat');
        const range = chat().locator('.chips .chip', { hasText: /Main\.java:12-1[34]/ });
        await range.waitFor({ timeout: TIMEOUT });
        const offered = chat().locator('.chips .chip.suggested', { hasText: 'Main.java' });
        await offered.waitFor({ timeout: TIMEOUT });
        await offered.click();
        await chat().locator('.chips .chip:not(.suggested)', { hasText: /^Main\.java$/ }).waitFor({ timeout: TIMEOUT });
        assert.equal(await offered.count(), 0, 'the offer is gone once the file is attached');
        await shot('context-chips');
        for (let left = 2; left > 0; left--) {
          await chat().locator('.chips .chip-remove').first().click();
          // The chips are drawn again after each removal: the next click waits for that.
          await chat().locator('.chips .chip:not(.suggested)').nth(left - 1).waitFor({ state: 'detached', timeout: TIMEOUT });
        }
        await chat().locator('.chips .chip:not(.suggested)').first().waitFor({ state: 'detached', timeout: TIMEOUT });
      },
    },
    {
      name: `[${theme}] a code block of an answer: Insert at Cursor types it into the editor; Apply over a selection lands once approved from its card`,
      run: async () => {
        const mainJava = path.join(folder, 'src/app/Main.java');
        const before = fs.readFileSync(mainJava, 'utf8');
        const answers = await chat().locator('.entry.answer:not(.streaming)').count();
        await send(page, '/echo ```java\n// from the chat\n```');
        await waitForAnswers(page, answers + 1);
        const block = chat().locator('.entry.answer').last().locator('.code-block');
        // The cursor at the start of line 3 of Main.java, then Insert at Cursor.
        await page.locator('.tabs-container .tab', { hasText: 'Main.java' }).first().click();
        await page.keyboard.press('Control+Home');
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('ArrowDown');
        await focusChatTab(page);
        await block.hover();
        await shot('code-actions');
        await block.locator('button.insert').click();
        const inserted = page.locator('.monaco-editor .view-line', { hasText: '// from the chat' }).first();
        await inserted.waitFor({ timeout: TIMEOUT });
        assert.equal(fs.readFileSync(mainJava, 'utf8'), before, 'Insert is an edit in the buffer, not a save');
        // Undone as any edit of one's own: in the editor, Ctrl+Z.
        await inserted.click();
        await page.keyboard.press('Control+Z');
        await page.locator('.monaco-editor .view-line', { hasText: '// from the chat' }).first().waitFor({ state: 'detached', timeout: TIMEOUT });
        // Line 12 (the TODO) selected, then Apply: a change to approve, written only once approved.
        await page.keyboard.press('Control+Home');
        for (let i = 0; i < 11; i++) await page.keyboard.press('ArrowDown');
        await page.keyboard.press('Home');
        await page.keyboard.press('Shift+End');
        await focusChatTab(page);
        await block.hover();
        await block.locator('button.apply').click();
        const card = chat().locator('.card', { hasText: 'src/app/Main.java' });
        await card.waitFor({ timeout: TIMEOUT });
        assert.equal(fs.readFileSync(mainJava, 'utf8'), before, 'nothing written before the approval');
        await card.locator('button.approve').click();
        await card.waitFor({ state: 'detached', timeout: TIMEOUT });
        // The decision closes the card at once; the write and the save follow.
        const deadline = Date.now() + TIMEOUT;
        while (fs.readFileSync(mainJava, 'utf8') === before && Date.now() < deadline) await page.waitForTimeout(200);
        const after = fs.readFileSync(mainJava, 'utf8');
        assert.ok(after.includes('// from the chat') && !after.includes('// TODO: read the name from args'), after);
        assert.equal(after.split('\n').length, before.split('\n').length, 'only the selected line was replaced');
      },
    },
  ];
}
