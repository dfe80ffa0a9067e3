// What a person does with the chat panel in the workbench, as Playwright steps: open it, type,
// read what it shows. The chat is a webview: an iframe (class "webview") around the content
// frame (#active-frame); everything inside is reached through that pair.
import type { FrameLocator, Page } from 'playwright-core';

export const TIMEOUT = 30_000;

export function chatFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

/** Opens the docked chat by clicking Agent Bridge in the activity bar. */
export async function openFromActivityBar(page: Page): Promise<void> {
  await page.locator('.activitybar [aria-label^="Agent Bridge"]').first().click({ timeout: TIMEOUT });
  await waitForComposer(page);
}

/**
 * Runs a command from the command palette, as typed by a person: again if the list was not ready
 * yet, or if the palette closed before it could be typed into (a CI run saw it hide between
 * showing and typing).
 */
export async function runFromPalette(page: Page, title: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title.replace(/^.*: /, '') }).first();
    try {
      await input.waitFor({ timeout: TIMEOUT });
      await input.fill(`>${title}`, { timeout: 10_000 });
      await row.waitFor({ timeout: 10_000 });
      break;
    } catch (e) {
      await page.keyboard.press('Escape');
      if (attempt >= 3) throw e;
    }
  }
  await page.keyboard.press('Enter');
}

/** Opens a file with Quick Open (Ctrl+P), clicking its row; again if the box hid before it could be typed into. */
export async function quickOpen(page: Page, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first();
    try {
      await input.waitFor({ timeout: 10_000 });
      await input.fill(name, { timeout: 10_000 });
      await row.click({ timeout: 10_000 });
      return;
    } catch (e) {
      await page.keyboard.press('Escape');
      if (attempt >= 3) throw e;
    }
  }
}

/** Opens the chat from the command palette. */
export async function openFromPalette(page: Page): Promise<void> {
  await runFromPalette(page, 'Agent Bridge: Open Chat');
  await waitForComposer(page);
}

export async function waitForComposer(page: Page): Promise<void> {
  await chatFrame(page).locator('textarea.input').waitFor({ timeout: TIMEOUT });
}

/** Types into the message box and presses Enter. */
export async function send(page: Page, text: string): Promise<void> {
  const box = chatFrame(page).locator('textarea.input');
  await box.click();
  await box.fill(text);
  await box.press('Enter');
}

/** Waits until the number of finished answers reaches `count`. */
export async function waitForAnswers(page: Page, count: number): Promise<void> {
  await chatFrame(page).locator('.entry.answer:not(.streaming)').nth(count - 1).waitFor({ timeout: TIMEOUT });
}

/**
 * Brings the docked chat into view with its keybinding (Ctrl+Alt+A runs Open Chat), which, unlike a
 * click on the activity bar, never hides a side bar that already shows it.
 */
export async function focusChatTab(page: Page): Promise<void> {
  await page.keyboard.press('Control+Alt+A');
  await waitForComposer(page);
}

/**
 * The message box's text once it equals `expected` (what the box held at the deadline otherwise).
 * Some buttons (Edit) ask the extension, which answers with the draft: the box fills a moment later.
 */
export async function boxValueBecomes(page: Page, expected: string, timeoutMs = TIMEOUT): Promise<string> {
  const box = chatFrame(page).locator('textarea.input');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await box.inputValue();
    if (value === expected || Date.now() > deadline) return value;
    await page.waitForTimeout(50);
  }
}
