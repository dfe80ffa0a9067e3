/* global process, console */
// Renders media/agent-bridge-icon.svg to media/agent-bridge.png (128×128, the Marketplace icon) with
// the Chromium the test host uses, through playwright-core. Run again after changing the SVG:
//   node scripts/make-icon.mjs
// AGENT_BRIDGE_CHROMIUM names another Chromium (default /usr/bin/chromium).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const svg = fs.readFileSync(path.join(root, 'media', 'agent-bridge-icon.svg'), 'utf8');
const out = path.join(root, 'media', 'agent-bridge.png');
const SIZE = 128;

const browser = await chromium.launch({ executablePath: process.env.AGENT_BRIDGE_CHROMIUM ?? '/usr/bin/chromium' });
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
  await page.setContent(`<!doctype html><html><body style="margin:0;background:transparent">${svg}</body></html>`);
  const png = await page.locator('svg').screenshot({ omitBackground: true });
  fs.writeFileSync(out, png);
  console.log(`${path.relative(root, out)}: ${png.length} bytes`);
} finally {
  await browser.close();
}
