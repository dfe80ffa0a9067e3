// A streamed answer as a person sees it: the dev backend's /stream sends it in many small
// AGENT_RESPONSE pieces, and the chat shows it growing (marked as still arriving) until the last one.
import assert from 'node:assert/strict';
import type { Workbench } from '../support/codeServer';
import { chatFrame, send, TIMEOUT } from './chatPage';

export function streamingCheck(theme: string, bench: Workbench, shot: (state: string) => Promise<void>): { name: string; run: () => Promise<void> } {
  const page = bench.page;
  const chat = () => chatFrame(page);
  return {
    name: `[${theme}] a streamed answer grows on screen piece by piece, then settles with its code highlighted`,
    run: async () => {
      const done = await chat().locator('.entry.answer:not(.streaming)').count();
      await send(page, '/stream 60');
      const growing = chat().locator('.entry.answer.streaming').last();
      await growing.waitFor({ timeout: TIMEOUT });
      const first = ((await growing.textContent()) ?? '').length;
      await page.waitForTimeout(1200);
      const later = ((await chat().locator('.entry.answer.streaming').last().textContent().catch(() => '')) ?? '').length;
      assert.ok(later > first, `the answer did not grow while streaming (${first} → ${later} characters)`);
      await shot('streaming');
      const finished = chat().locator('.entry.answer:not(.streaming)').nth(done);
      await finished.getByText('That is the whole answer.').waitFor({ timeout: TIMEOUT });
      assert.ok((await finished.locator('pre code.language-ts .hljs-keyword').count()) > 0, 'the code block is highlighted once complete');
      assert.equal(await chat().locator('.entry.answer.streaming').count(), 0);
      // The view followed the stream: the end of the answer is in sight.
      assert.ok(await chat().locator('main.transcript').evaluate((t) => t.scrollHeight - t.scrollTop - t.clientHeight < 80), 'the view did not follow');
    },
  };
}
