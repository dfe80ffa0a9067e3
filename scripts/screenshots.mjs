/* global process, console */
// Copies the screenshots the README shows from test-results/ (written by the end-to-end run:
// `npm run test:e2e`, then `node --import tsx test/e2e/chatE2E.ts --skip-package`, or `npm test`)
// into docs/images/, so the README shows the product as the last run saw it. Run it after such a
// run (`npm run screenshots`), look at the images, and commit them when they changed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const from = path.join(root, 'test-results');
const to = path.join(root, 'docs', 'images');
/** The README's images, each from the e2e state that shows it best. */
const CHOSEN = {
  // chatE2E.ts, dark theme: a settled conversation (/help's table, an answer whose file:line link opened the file).
  'chat.png': 'chat-file-link-dark.png',
  // runE2E.ts: a proposed change as a diff, Approve ✓ and Reject ✕ in its title bar.
  'review.png': 'e2e-approval-diff.png',
  // reviewE2E.ts, dark theme: Pending Changes with a change unfolded into its hunks, and the chat's card.
  'pending.png': 'e2e-review-hunks-dark.png',
};
/** PNG bytes past which an image is too heavy for the README. */
const MAX_BYTES = 300 * 1024;

fs.mkdirSync(to, { recursive: true });
let failed = false;
for (const [name, source] of Object.entries(CHOSEN)) {
  const file = path.join(from, source);
  if (!fs.existsSync(file)) {
    console.error(`${source} is not in test-results/: run the end-to-end tests first`);
    failed = true;
    continue;
  }
  const size = fs.statSync(file).size;
  if (size > MAX_BYTES) {
    console.error(`${source} is ${Math.round(size / 1024)} KB, over ${MAX_BYTES / 1024} KB`);
    failed = true;
    continue;
  }
  fs.copyFileSync(file, path.join(to, name));
  console.log(`docs/images/${name} <- test-results/${source} (${Math.round(size / 1024)} KB)`);
}
process.exit(failed ? 1 : 0);
