/**
 * The hostile-agent suite: a hard link to a secret swapped in between the check and the open, while
 * reads and searches run over and over (see readSecrets.test.ts for the other read leaks). Named
 * `.slow` because each race runs for seconds: `npm run test:fast` leaves it out, `npm test` runs it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { ToolResultMessage } from '../../src/core/protocol/messages';
import { CANARY, ENGINES, secretProject, type Project } from '../support/secretProject';

/**
 * A child process that, until `ms` has passed, puts a hard link to `secret` at each of `targets`
 * and then a plain file there again, each by an atomic rename (the temporary names in another
 * folder). Resolves with the number of rounds.
 */
function swapper(secret: string, targets: readonly string[], ms: number): Promise<number> {
  const script = `
    const fs = require('node:fs');
    const path = require('node:path');
    const [secret, ms, ...targets] = process.argv.slice(1);
    const work = path.join(path.dirname(secret), 'swap-work');
    fs.mkdirSync(work, { recursive: true });
    const link = path.join(work, 'link'), plain = path.join(work, 'plain');
    const end = Date.now() + Number(ms);
    let rounds = 0;
    while (Date.now() < end) {
      for (const target of targets) {
        fs.linkSync(secret, link);
        fs.renameSync(link, target);
        fs.writeFileSync(plain, 'plain words\\n');
        fs.renameSync(plain, target);
      }
      rounds++;
    }
    process.stdout.write(String(rounds));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, secret, String(ms), ...targets], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`the swapper exited with ${String(code)}`))));
  });
}

/**
 * Runs `call` over and over while the swapper puts a hard link to .env at `files` files in docs/
 * and a plain file there again: no answer may hold the canary, and some must show the plain file (else
 * the race was not run).
 */
async function raceSwapper(p: Project, files: number, call: () => Promise<ToolResultMessage['data']>): Promise<void> {
  const targets = Array.from({ length: files }, (_, i) => path.join(p.root, `docs/readme${i || ''}.txt`));
  for (const target of targets) fs.writeFileSync(target, 'plain words\n');
  const raceMs = 3000;
  const swaps = swapper(path.join(p.root, '.env'), targets, raceMs);
  const end = Date.now() + raceMs;
  let calls = 0;
  let plain = 0;
  const leaks: string[] = [];
  while (Date.now() < end) {
    const r = await call();
    calls++;
    const text = JSON.stringify(r);
    if (text.includes(CANARY)) leaks.push(text.slice(0, 200));
    if (r.success && text.includes('plain words')) plain++;
    // small reads are synchronous: let the host's other work (the swapper's exit) in
    if (calls % 50 === 0) await new Promise(setImmediate);
  }
  const swapped = await swaps;
  assert.ok(swapped * files > 10, `the swapper made only ${swapped * files} swaps`);
  assert.ok(plain > 0, `none of ${calls} calls saw the plain file: the race was not run`);
  assert.deepEqual(leaks, [], `${leaks.length} of ${calls} calls (${plain} showing the plain file, ${swapped} rounds) leaked the secret`);
}

test('a hard link to .env swapped in between the check and the open is never read', async () => {
  const p = secretProject('ripgrep');
  await raceSwapper(p, 1, () => p.call('read_file', { relativePath: 'docs/readme.txt' }));
});

for (const engine of ENGINES) {
  test(`[${engine}] a hard link to .env swapped in while the search reads never shows its lines`, async () => {
    const p = secretProject(engine);
    await raceSwapper(p, 32, () => p.call('grep_file', { pattern: 'API_KEY|plain words', regex: true, relativePath: 'docs', limit: 1000 }));
  });
}
