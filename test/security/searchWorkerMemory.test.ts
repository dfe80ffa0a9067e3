/**
 * The in-process search's worker reads a file in 1 MB chunks and keeps only what an answer shows of
 * each line (400 characters). But a piece cut from a string keeps the whole string alive in V8: a
 * kept line pinned the 256 KB line it was cut from, or the 1 MB chunk it was read in, and a batch of
 * 32 files held what they were made of until its answer went out (a few hostile files of long
 * matching lines: hundreds of MB in the extension host's process). What is kept must be its own.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { scan, type ScanResult, type WorkerInit } from '../../src/core/search/fallbackWorker';
import { MAX_FILE_SIZE, MAX_LINE_BYTES } from '../../src/core/search/types';
import { gcFunction, memoryInUse } from '../support/memory';

const gc = gcFunction();
const MB = 1024 * 1024;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-scanmem-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('what the search worker keeps of a batch of files of long matching lines is what it shows, not the files', () => {
  const files: string[] = [];
  for (let f = 0; f < 8; f++) {
    // 16 lines of 256 KB, each a match: each kept line pinned its whole line.
    const long = Array.from({ length: 16 }, (_, i) => `needle ${f}-${i} ${String.fromCharCode(97 + ((f + i) % 26)).repeat(MAX_LINE_BYTES - 20)}\n`).join('');
    fs.writeFileSync(path.join(root, `long${f}.txt`), long);
    // 4 MB of short lines with a match every 256 KB: each kept line pinned the 1 MB chunk it was read in.
    const filler = `${'z'.repeat(63)}\n`;
    const short = Array.from({ length: 16 }, (_, i) => `needle ${f}-${i}\n${filler.repeat(4096)}`).join('');
    fs.writeFileSync(path.join(root, `short${f}.txt`), short);
    files.push(`long${f}.txt`, `short${f}.txt`);
  }
  const init: WorkerInit = { source: 'needle', flags: 'su', contextLines: 2, perFileLimit: 1000, maxFileSize: MAX_FILE_SIZE, maxLine: MAX_LINE_BYTES, chunkBytes: MB };
  const re = new RegExp(init.source, init.flags);
  gc();
  const before = memoryInUse();
  const results: ScanResult[] = files.map((rel) => scan({ abs: path.join(root, rel), rel, explicit: false, details: true }, init, re));
  gc();
  const held = memoryInUse() - before;
  for (const r of results) assert.equal(r.count, 16, r.rel);
  assert.equal(results[0]?.matches[2]?.before.length, 2, 'context kept');
  // 16 files × 16 matches × (1 + 4 context) lines × 400 characters: under 1 MB. The files are 96 MB.
  assert.ok(held < 8 * MB, `the results of one batch hold ${Math.round(held / MB)} MB`);
});
