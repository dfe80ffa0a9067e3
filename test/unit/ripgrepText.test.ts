/**
 * runRipgrepText (the small-answer ripgrep run behind read_class's quick lookup) is bounded like
 * every search: in bytes, in time (a FIFO never answers), and by cancellation.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { runRipgrepText } from '../../src/core/search/ripgrep';
import { makeTree } from '../support/fixtures';
import { RG } from '../support/searchFixtures';

const files: Record<string, string> = {};
for (let i = 0; i < 300; i++) files[`src/File${i}.java`] = `class File${i} { /* needle */ }\n`;
const tree = makeTree(files, 'ab-rgtext-');
const args = ['--files-with-matches', '--no-config', '--null', '-e', 'needle', '--', '.'];

test('runRipgrepText: the whole list when it fits; nothing (ask another way) past the byte bound', async () => {
  assert.ok(RG, 'ripgrep on PATH (CI installs it)');
  const all = await runRipgrepText(RG, args, { cwd: tree });
  assert.equal(all?.split('\0').filter(Boolean).length, 300);
  assert.equal(await runRipgrepText(RG, args, { cwd: tree, maxBytes: 200 }), undefined);
});

test('runRipgrepText: a FIFO that never answers ends at the deadline; a cancelled run ends at once', async () => {
  assert.ok(RG, 'ripgrep on PATH (CI installs it)');
  const fifo = path.join(tree, 'pipe');
  if (!fs.existsSync(fifo)) execFileSync('mkfifo', [fifo]);
  const started = Date.now();
  assert.equal(await runRipgrepText(RG, ['--no-config', '-e', 'needle', '--', 'pipe'], { cwd: tree, timeoutMs: 300 }), undefined);
  assert.ok(Date.now() - started < 5000, 'ended by the deadline, not by the FIFO');
  const aborted = new AbortController();
  aborted.abort();
  assert.equal(await runRipgrepText(RG, args, { cwd: tree, signal: aborted.signal }), undefined);
});
