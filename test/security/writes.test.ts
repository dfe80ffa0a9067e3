/**
 * The hostile-agent suite, part three: data lost or corrupted by a write. Each test runs the real
 * tools through the dispatcher over a real folder with the headless host's writer.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import type { ToolResultMessage } from '../../src/core/protocol/messages';
import { accessPolicy } from '../../src/core/policy/accessPolicy';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { JudgedPath } from '../../src/core/write/judgedPath';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';

function project(): { root: string; call(tool: string, params: Record<string, unknown>): Promise<ToolResultMessage['data']> } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-writes-')));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });
  let n = 0;
  return { root, call: async (toolName, params) => (await d.dispatch({ id: `w${++n}`, idKey: 'toolCallId', toolName, params })).data };
}

test('a Latin-1 or Shift-JIS file is refused, byte for byte unchanged, never corrupted', async () => {
  const p = project();
  const latin1 = Buffer.concat([Buffer.from('name = caf'), Buffer.from([0xe9]), Buffer.from('\nversion = 1\n')]);
  const sjis = Buffer.concat([Buffer.from('title = '), Buffer.from([0x93, 0xfa, 0x96, 0x7b]), Buffer.from('\nversion = 1\n')]); // 日本
  fs.writeFileSync(path.join(p.root, 'latin1.properties'), latin1);
  fs.writeFileSync(path.join(p.root, 'sjis.properties'), sjis);
  for (const [file, bytes] of [['latin1.properties', latin1], ['sjis.properties', sjis]] as const) {
    for (const [tool, params] of [
      ['apply_change', { relativePath: file, searchContent: 'version = 1', replaceContent: 'version = 2' }],
      ['Edit', { file_path: file, old_string: 'version = 1', new_string: 'version = 2' }],
    ] as const) {
      const r = await p.call(tool, params);
      assert.equal(r.code, 'BAD_REQUEST', `${tool} ${file}: ${String(r.error)}`);
      assert.match(String(r.error), /not valid UTF-8/);
      assert.deepEqual(fs.readFileSync(path.join(p.root, file)), bytes);
    }
  }
  // Valid UTF-8 with a BOM and CRLF still round-trips and is edited.
  fs.writeFileSync(path.join(p.root, 'ok.txt'), Buffer.from('\ufeffcafé\r\nversion = 1\r\n'));
  assert.equal((await p.call('apply_change', { relativePath: 'ok.txt', searchContent: 'version = 1', replaceContent: 'version = 2' })).success, true);
  assert.deepEqual(fs.readFileSync(path.join(p.root, 'ok.txt')), Buffer.from('\ufeffcafé\r\nversion = 2\r\n'));
});

test('file modes are kept exactly, and a read-only file is refused', async () => {
  const p = project();
  const shared = path.join(p.root, 'shared.sh');
  fs.writeFileSync(shared, 'echo one\n');
  fs.chmodSync(shared, 0o775);
  assert.equal((await p.call('apply_change', { relativePath: 'shared.sh', searchContent: 'one', replaceContent: 'two' })).success, true);
  assert.equal(fs.statSync(shared).mode & 0o777, 0o775);
  const frozen = path.join(p.root, 'frozen.txt');
  fs.writeFileSync(frozen, 'keep\n');
  fs.chmodSync(frozen, 0o444);
  const r = await p.call('Replace', { file_path: 'frozen.txt', content: 'overwritten\n' });
  assert.equal(r.code, 'PERMISSION_DENIED', String(r.error));
  assert.equal(fs.readFileSync(frozen, 'utf8'), 'keep\n');
  assert.equal(fs.statSync(frozen).mode & 0o777, 0o444);
});

test('an external writer racing the edits never loses a line (40 edits against a tight appender)', async () => {
  const p = project();
  const file = path.join(p.root, 'log.txt');
  fs.writeFileSync(file, 'counter 0\n');
  const appender = spawn(process.execPath, ['-e', `
    const fs = require('fs'); let i = 0; const end = Date.now() + 4000;
    while (Date.now() < end) { fs.appendFileSync(${JSON.stringify(file)}, 'append ' + (i++) + '\\n'); }
    process.stdout.write(String(i));
  `]);
  let appended = '';
  appender.stdout.on('data', (c: Buffer) => (appended += c.toString()));
  const done = new Promise<void>((resolve) => appender.on('close', () => resolve()));
  let applied = 0;
  for (let k = 0; k < 40; k++) {
    const text = fs.readFileSync(file, 'utf8');
    const current = /counter (\d+)/.exec(text)?.[1] ?? '0';
    const r = await p.call('apply_change', { relativePath: 'log.txt', searchContent: `counter ${current}`, replaceContent: `counter ${Number(current) + 1}` });
    if (r.success) applied++;
    else assert.ok(['CONFLICT', 'NOT_FOUND'].includes(String(r.code)), String(r.error));
  }
  await done;
  // Bytes a descheduled writer put in a replaced file are moved to the live one for a while after
  // each edit (LATE_APPEND_WATCH_MS): read once that has passed.
  await new Promise((r) => setTimeout(r, 2000));
  const total = Number(appended);
  const final = fs.readFileSync(file, 'utf8');
  const lines = final.split('\n').filter((l) => l.startsWith('append '));
  assert.equal(lines.length, total, `${total - lines.length} appended line(s) lost`);
  // Each exactly once. (Lines that reach the new file in the instant the other writer's text is put
  // back are added after it, so the order of a few may differ; none is lost or doubled.)
  assert.deepEqual([...lines].sort(), Array.from({ length: total }, (_, i) => `append ${i}`).sort());
  assert.match(final, new RegExp(`^counter ${applied}\\n`), 'every success landed');
});

test('a writer that had the file open and writes long after the replace loses nothing', async () => {
  const p = project();
  const file = path.join(p.root, 'slow.log');
  fs.writeFileSync(file, 'counter 0\n');
  // Opened before the edit, written well after it (a writer descheduled for a while).
  const fd = fs.openSync(file, 'a');
  try {
    const r = await p.call('apply_change', { relativePath: 'slow.log', searchContent: 'counter 0', replaceContent: 'counter 1' });
    assert.equal(r.success, true, String(r.error));
    await new Promise((res) => setTimeout(res, 300));
    fs.writeSync(fd, 'late line\n');
  } finally {
    fs.closeSync(fd);
  }
  await new Promise((res) => setTimeout(res, 400));
  assert.equal(fs.readFileSync(file, 'utf8'), 'counter 1\nlate line\n');
});

test('NotebookEditCell changes only its cell: other cells keep big integers, 1.0, escapes and CRLF', async () => {
  const p = project();
  const raw = [
    '{',
    ' "cells": [',
    '  {"cell_type": "code", "execution_count": 12345678901234567890, "metadata": {"scale": 1.0, "name": "caf\\u00e9"}, "outputs": [], "source": ["x = 1"]},',
    '  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["print(1)"]}',
    ' ],',
    ' "metadata": {"language_info": {"name": "python"}},',
    ' "nbformat": 4,',
    ' "nbformat_minor": 5',
    '}',
    '',
  ].join('\r\n');
  fs.writeFileSync(path.join(p.root, 'nb.ipynb'), raw);
  const r = await p.call('NotebookEditCell', { notebook_path: 'nb.ipynb', cell_number: 1, new_source: 'print(2)' });
  assert.equal(r.success, true, String(r.error));
  const text = fs.readFileSync(path.join(p.root, 'nb.ipynb'), 'utf8');
  const firstCell = raw.split('\r\n')[2];
  assert.ok(text.includes(firstCell), 'the untouched cell is byte-identical');
  assert.ok(!/[^\r]\n/.test(text), 'line endings stay CRLF');
  assert.match(text, /"print\(2\)"/);
  assert.equal(JSON.parse(text).cells.length, 2);
});

test('a folder swapped for a link after the policy looked stops the write', async () => {
  const p = project();
  const elsewhere = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-writes-elsewhere-')));
  after(() => fs.rmSync(elsewhere, { recursive: true, force: true }));
  fs.mkdirSync(path.join(p.root, 'sub'));
  const ws = new NodeWorkspace(p.root, { ripgrep: false });
  const judged = await JudgedPath.judge(accessPolicy(ws), ws.root, 'sub/new.txt');
  // The swap: sub becomes a link out of the project before the writer runs.
  fs.rmdirSync(path.join(p.root, 'sub'));
  fs.symlinkSync(elsewhere, path.join(p.root, 'sub'));
  await assert.rejects(
    new DirectWriteGate().commit({ id: 'x', toolName: 'Replace', path: judged.access, judged, original: undefined, proposed: 'planted\n', encoding: 'utf8' }, new AbortController().signal),
    /A folder on the way to sub\/new.txt changed/,
  );
  assert.deepEqual(fs.readdirSync(elsewhere), []);
});
