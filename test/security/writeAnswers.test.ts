/**
 * The hostile-agent suite: one write built to hold the host. A 2 MB line whose every character a
 * replace_all turns into 15 lines makes a 60 MB file of 30 M lines; the answer once echoed the old
 * file and listed every line (154 M characters, built, stringified and cut on the event loop for
 * tens of seconds, gigabytes held). Now the answer is bounded before it is built and says what it
 * left out, and the event loop is watched the whole time. A MultiEdit may not match on a text its
 * own first edit grew past the matching bounds.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';

/** The longest the event loop may be held at once; generous for a loaded machine, far below the seconds it took. */
const STALL_LIMIT_MS = 500;
const MB = 1024 * 1024;

function project(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-writeanswers-')));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
  return root;
}

const dispatcher = (root: string) =>
  new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });

/**
 * Runs `work` while watching the event loop and the process's memory: the longest time the loop was
 * held, and the RSS growth. A gap between two timer ticks counts only as far as the process used
 * CPU in it: on a loaded machine the process may wait for a core, which no code of ours causes.
 */
async function watched<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number; rssGrowth: number }> {
  const rssBefore = process.memoryUsage.rss();
  let rssPeak = rssBefore;
  let stallMs = 0;
  let lastWall = performance.now();
  let lastCpu = process.cpuUsage();
  const tick = () => {
    const wall = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    stallMs = Math.max(stallMs, Math.min(wall - lastWall, (cpu.user + cpu.system) / 1000));
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    lastWall = wall;
    lastCpu = process.cpuUsage();
  };
  const timer = setInterval(tick, 5);
  try {
    const value = await work();
    tick();
    return { value, stallMs, rssGrowth: rssPeak - rssBefore };
  } finally {
    clearInterval(timer);
  }
}

test('a replace_all that makes a 60 MB file of 30 M lines is answered small, without holding the event loop', async () => {
  const root = project({ 'g.txt': 'x'.repeat(2 * MB) });
  const d = dispatcher(root);
  const { value: r, stallMs, rssGrowth } = await watched(() =>
    d.dispatch({ id: 'grow', idKey: 'toolCallId', toolName: 'Edit', params: { file_path: 'g.txt', old_string: 'x', new_string: 'a\n'.repeat(15), replace_all: true } }),
  );
  assert.equal(r.data.success, true, r.data.error);
  const written = fs.statSync(path.join(root, 'g.txt')).size;
  // The file had no final newline, so the last one inserted is dropped (apply.ts splice).
  assert.equal(written, 60 * MB - 1, 'the whole edit was written');
  assert.ok(r.data.result!.length < 2 * MB, `answer of ${r.data.result!.length} characters`);
  const answer = JSON.parse(r.data.result!) as { originalFile?: string; omitted?: string[]; note?: string; structuredPatch: { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }[] };
  assert.equal(answer.originalFile, undefined, 'the 2 MB original is not echoed');
  assert.deepEqual(answer.omitted, ['originalFile', 'structuredPatch.lines']);
  assert.match(answer.note ?? '', /originalFile/);
  assert.match(answer.note ?? '', /1 removed, 31457280 added/);
  // Still exact about what was written: one line became 30 M lines.
  assert.deepEqual(answer.structuredPatch, [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 15 * 2 * MB, lines: [] }]);
  if (process.env.DBG) console.log("stall", stallMs);
  assert.ok(stallMs < STALL_LIMIT_MS, `the event loop was held ${stallMs.toFixed(0)} ms`);
  if (process.env.DBG) console.log("rss", rssGrowth/MB);
  assert.ok(rssGrowth < 1024 * MB, `RSS grew ${(rssGrowth / MB).toFixed(0)} MB`);
});

test('Replace of an 8 MB file by 8 MB of other lines: the content is not echoed, the patch gives counts', async () => {
  const lines = (word: string) => Array.from({ length: MB }, (_, i) => `${word}${i % 10}\n`).join('');
  const root = project({ 'big.txt': lines('old-') });
  const d = dispatcher(root);
  const content = lines('new-');
  const { value: r, stallMs } = await watched(() => d.dispatch({ id: 'rep', idKey: 'toolCallId', toolName: 'Replace', params: { file_path: 'big.txt', content } }));
  assert.equal(r.data.success, true, r.data.error);
  assert.equal(fs.readFileSync(path.join(root, 'big.txt'), 'utf8'), content);
  assert.ok(r.data.result!.length < 2 * MB, `answer of ${r.data.result!.length} characters`);
  const answer = JSON.parse(r.data.result!) as { type: string; content?: string; omitted?: string[]; structuredPatch: { oldLines: number; newLines: number; lines: string[] }[] };
  assert.equal(answer.type, 'update');
  assert.equal(answer.content, undefined);
  assert.deepEqual(answer.omitted, ['content', 'structuredPatch.lines']);
  assert.deepEqual(answer.structuredPatch.map((h) => [h.oldLines, h.newLines, h.lines.length]), [[MB, MB, 0]]);
  if (process.env.DBG) console.log("stall", stallMs);
  assert.ok(stallMs < STALL_LIMIT_MS, `the event loop was held ${stallMs.toFixed(0)} ms`);
});

test('a small edit of a large file still lists its lines, numbered in the whole file', async () => {
  const text = Array.from({ length: 500_000 }, (_, i) => `line ${i}\n`).join('');
  const root = project({ 'f.txt': text });
  const d = dispatcher(root);
  const r = await d.dispatch({ id: 'small', idKey: 'toolCallId', toolName: 'MultiEdit', params: { file_path: 'f.txt', edits: [{ old_string: 'line 400000\n', new_string: 'changed\n' }] } });
  assert.equal(r.data.success, true, r.data.error);
  const answer = JSON.parse(r.data.result!) as { omitted?: string[]; structuredPatch: unknown[] };
  assert.equal(answer.omitted, undefined);
  assert.deepEqual(answer.structuredPatch, [
    { oldStart: 399998, oldLines: 7, newStart: 399998, newLines: 7, lines: [' line 399997', ' line 399998', ' line 399999', '-line 400000', '+changed', ' line 400001', ' line 400002', ' line 400003'] },
  ]);
});

test('a MultiEdit whose first edit grows the text past the matching bound cannot match on it: refused, nothing written', async () => {
  // 200,000 characters on one line; the first edit makes 3 M lines of them, past the 1,000,000-line bound.
  const original = `${'x'.repeat(200_000)}\n`;
  const root = project({ 'g.txt': original });
  const d = dispatcher(root);
  const edits = [
    { old_string: 'x', new_string: 'a\n'.repeat(15), replace_all: true },
    { old_string: 'a\na\n', new_string: 'b', replace_all: true },
  ];
  const r = await d.dispatch({ id: 'grow-then-match', idKey: 'toolCallId', toolName: 'MultiEdit', params: { file_path: 'g.txt', edits } });
  assert.equal(r.data.success, false, 'the second edit must not match on 3 M lines');
  assert.equal(r.data.code, 'BAD_REQUEST');
  assert.match(r.data.error ?? '', /Error in edit 2 of 2 .*too large to edit by matching text/);
  assert.equal(fs.readFileSync(path.join(root, 'g.txt'), 'utf8'), original);
});

test('a notebook cell of 2 MB is written whole but not echoed back', async () => {
  const notebook = { cells: [{ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: ['x = 1\n'] }], metadata: {}, nbformat: 4, nbformat_minor: 5 };
  const root = project({ 'n.ipynb': JSON.stringify(notebook, null, 1) });
  const d = dispatcher(root);
  const source = `y = "${'z'.repeat(2 * MB)}"\n`;
  const r = await d.dispatch({ id: 'cell', idKey: 'toolCallId', toolName: 'NotebookEditCell', params: { notebook_path: 'n.ipynb', cell_number: 0, new_source: source } });
  assert.equal(r.data.success, true, r.data.error);
  assert.ok(r.data.result!.length < 64 * 1024, `answer of ${r.data.result!.length} characters`);
  const answer = JSON.parse(r.data.result!) as { new_source?: string; omitted?: string[] };
  assert.equal(answer.new_source, undefined);
  assert.deepEqual(answer.omitted, ['new_source']);
  const written = JSON.parse(fs.readFileSync(path.join(root, 'n.ipynb'), 'utf8')) as { cells: { source: string[] | string }[] };
  const cell = written.cells[0].source;
  assert.equal(Array.isArray(cell) ? cell.join('') : cell, source);
});
