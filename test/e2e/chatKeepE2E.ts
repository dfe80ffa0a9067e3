// Nothing the developer typed or left waiting is lost by a stray key or a glance elsewhere: Escape
// closes a list and nothing else, Stop asks before it withdraws a waiting change, and a half-typed
// message with its attachment survives the Explorer and back, a collapsed view and a reload.
// Part of chatE2E.ts's run (both themes), with screenshots.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workbench } from '../support/codeServer';
import { chatFrame, focusChatTab, openFromActivityBar, quickOpen, send, TIMEOUT, waitForComposer } from './chatPage';

interface Check {
  readonly name: string;
  readonly run: () => Promise<void>;
}

export function keepChecks(theme: string, bench: Workbench, shot: (state: string) => Promise<void>, folder: string): Check[] {
  const page = bench.page;
  const chat = () => chatFrame(page);
  const box = () => chat().locator('textarea.input');
  const openList = () => chat().locator('.picker[aria-label]:not([hidden])');
  const greeter = path.join(folder, 'src/app/Greeter.java');

  /** The turn before has ended (its agent answered the decision): a new message is sent, not queued. */
  const idle = () => chat().locator('button.stop').waitFor({ state: 'hidden', timeout: TIMEOUT });

  /** Types `@query`, waits for the list, and picks its first entry: the attachment's chip. */
  async function attach(query: string, chipText: string): Promise<void> {
    await box().pressSequentially(`@${query}`, { delay: 30 });
    await openList().locator('.picker-item').first().waitFor({ timeout: TIMEOUT });
    await box().press('Enter');
    await chat().locator('.chips .chip:not(.suggested)', { hasText: chipText }).first().waitFor({ timeout: TIMEOUT });
  }

  return [
    {
      name: `[${theme}] after a reject from the chat card (with a reason), the next keys land in the message box, not in the editor`,
      run: async () => {
        const before = fs.readFileSync(greeter, 'utf8');
        // The developer had the file open with everything selected: stray keys there would replace it.
        await quickOpen(page, 'Greeter.java');
        // Its tab clicked: the editor has the keyboard; then everything selected.
        await page.locator('.tabs-container .tab', { hasText: 'Greeter.java' }).first().click();
        await page.locator('.monaco-editor.focused').first().waitFor({ timeout: TIMEOUT });
        await page.keyboard.press('Control+A');
        await focusChatTab(page);
        await idle();
        await send(page, '/edit src/app/Greeter.java');
        const card = chat().locator('.card', { hasText: 'src/app/Greeter.java' });
        await card.waitFor({ timeout: TIMEOUT });
        await card.locator('button.reject').click();
        const reason = page.locator('.quick-input-widget input');
        await reason.waitFor({ timeout: TIMEOUT });
        await reason.fill('not now');
        await reason.press('Enter');
        await card.waitFor({ state: 'detached', timeout: TIMEOUT });
        // Focus comes back once the reason box and the diff have closed: wait for it, however long a loaded machine takes.
        const focused = () => box().evaluate((el) => el.ownerDocument.hasFocus() && el.ownerDocument.activeElement === el);
        for (const start = Date.now(); !(await focused()); await page.waitForTimeout(100)) {
          assert.ok(Date.now() - start < TIMEOUT, 'the message box never got the keyboard back');
        }
        await page.keyboard.type('zzz');
        assert.equal(await box().inputValue(), 'zzz', 'the keys went to the message box');
        await page.waitForTimeout(1500);
        assert.equal(fs.readFileSync(greeter, 'utf8'), before, 'the file is as it was (auto-save wrote nothing)');
        assert.equal(await page.locator('.tabs-container .tab.dirty', { hasText: 'Greeter.java' }).count(), 0, 'and its editor is not dirty');
        await box().fill('');
      },
    },
    {
      name: `[${theme}] with a change waiting, Escape closes the @ list and nothing else; Stop asks before it withdraws the change`,
      run: async () => {
        const before = fs.readFileSync(greeter, 'utf8');
        await focusChatTab(page);
        await idle();
        await send(page, '/edit src/app/Greeter.java');
        const card = chat().locator('.card', { hasText: 'src/app/Greeter.java' });
        await card.waitFor({ timeout: TIMEOUT });
        await focusChatTab(page);
        await box().click();
        await box().pressSequentially('@greet', { delay: 30 });
        await openList().waitFor({ timeout: TIMEOUT });
        await box().press('Escape');
        assert.equal(await openList().count(), 0, 'the first Escape closed the list');
        await box().press('Escape');
        await page.waitForTimeout(1000);
        assert.equal(await card.count(), 1, 'two Escapes left the change waiting');
        assert.equal(await chat().locator('button.stop').isVisible(), true, 'and the turn going');
        assert.equal(await box().inputValue(), '@greet', 'and the text in the box');
        await box().fill('');
        // Stop says what it would withdraw, and asks.
        await chat().locator('button.stop').click();
        const dialog = page.locator('.monaco-dialog-box', { hasText: 'Stop waiting for the agent?' });
        await dialog.waitFor({ timeout: TIMEOUT });
        assert.match((await dialog.textContent()) ?? '', /src\/app\/Greeter\.java/);
        await shot('stop-asks');
        await dialog.locator('.monaco-button', { hasText: 'Stop and Withdraw Them' }).click();
        await card.waitFor({ state: 'detached', timeout: TIMEOUT });
        assert.equal(await chat().locator('button.stop').isVisible(), false);
        assert.equal(fs.readFileSync(greeter, 'utf8'), before, 'the withdrawn change was not written');
        // After the decision the keys go to the message box again.
        await page.keyboard.type('still here');
        assert.equal(await box().inputValue(), 'still here');
        await box().fill('');
      },
    },
    {
      name: `[${theme}] by keyboard only: Ctrl+Alt+Enter from the chat brings the diff in front, again approves; Ctrl+Alt+Backspace rejects`,
      run: async () => {
        const diffTab = page.locator('.tabs-container .tab', { hasText: 'Agent proposal' });
        // Approve: the first press shows the diff (with the focus), the second approves what it shows.
        const card = chat().locator('.card', { hasText: 'src/app/Greeter.java' });
        /** A change proposed from the chat, then Ctrl+Alt+Enter typed in the message box: its diff in front, with the keys. */
        const proposeAndReview = async (): Promise<void> => {
          await focusChatTab(page);
          await idle();
          await send(page, '/edit src/app/Greeter.java');
          await card.waitFor({ timeout: TIMEOUT });
          await box().click();
          await page.keyboard.press('Control+Alt+Enter');
          await page.locator('.tabs-container .tab.active', { hasText: 'Agent proposal' }).waitFor({ timeout: TIMEOUT });
          // The keys are in the diff now: the next press is read there.
          await page.locator('.monaco-diff-editor .monaco-editor.focused').first().waitFor({ timeout: TIMEOUT });
          await page.waitForTimeout(300);
        };
        const before = fs.readFileSync(greeter, 'utf8');
        await proposeAndReview();
        assert.equal(fs.readFileSync(greeter, 'utf8'), before, 'the first press only shows the change');
        await shot('keyboard-review');
        await page.keyboard.press('Control+Alt+Enter');
        await card.waitFor({ state: 'detached', timeout: TIMEOUT });
        await diffTab.first().waitFor({ state: 'detached', timeout: TIMEOUT });
        // The write follows the decision by a moment.
        for (const until = Date.now() + TIMEOUT; fs.readFileSync(greeter, 'utf8') === before && Date.now() < until; ) await page.waitForTimeout(100);
        assert.notEqual(fs.readFileSync(greeter, 'utf8'), before, 'the second press approved it');
        // Reject: the diff in front, then Ctrl+Alt+Backspace and Enter in the reason box.
        const approved = fs.readFileSync(greeter, 'utf8');
        await proposeAndReview();
        await page.keyboard.press('Control+Alt+Backspace');
        const reason = page.locator('.quick-input-widget input');
        await reason.waitFor({ timeout: TIMEOUT });
        await page.keyboard.type('not this one');
        await page.keyboard.press('Enter');
        await card.waitFor({ state: 'detached', timeout: TIMEOUT });
        assert.equal(fs.readFileSync(greeter, 'utf8'), approved, 'rejected: nothing written');
      },
    },
    {
      name: `[${theme}] a half-typed message and its attachment survive the Explorer and back, a collapsed view and a reload`,
      run: async () => {
        await focusChatTab(page);
        await box().click();
        await box().fill('');
        await box().pressSequentially('Half typed ', { delay: 20 });
        await attach('greetja', 'Greeter.java');
        await box().pressSequentially('and more', { delay: 20 });
        const draft = 'Half typed and more';
        assert.equal(await box().inputValue(), draft);
        const kept = async (after: string) => {
          await waitForComposer(page);
          assert.equal(await box().inputValue(), draft, `the draft after ${after}`);
          await chat().locator('.chips .chip:not(.suggested)', { hasText: 'Greeter.java' }).first().waitFor({ timeout: TIMEOUT });
        };
        // A glance at the Explorer hides the chat's view (its page is thrown away), then back.
        await page.keyboard.press('Control+Shift+E');
        await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: TIMEOUT });
        await openFromActivityBar(page);
        await kept('the Explorer and back');
        // The chat view collapsed and expanded again.
        const header = page.locator('.pane-header', { hasText: /Agent Chat/i }).first();
        await header.click();
        await page.waitForTimeout(500);
        await header.click();
        await kept('a collapse');
        // A window reload (once the workbench has stored the view's state, as it does within a moment of typing).
        await page.waitForTimeout(2000);
        await page.reload({ waitUntil: 'domcontentloaded' });
        await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
        await focusChatTab(page);
        await kept('a reload');
        await shot('draft-kept');
        // Sent, the draft is gone for good.
        await box().fill('');
        await chat().locator('.chips .chip-remove').first().click();
        await chat().locator('.chips .chip:not(.suggested)').first().waitFor({ state: 'detached', timeout: TIMEOUT });
      },
    },
  ];
}
