/**
 * The hostile-agent suite: notebooks built to mislead or stall NotebookEditCell. A notebook with a
 * key twice (JSON.parse keeps the last, the editor edits the first) and an oversized one are
 * refused with nothing written; one at the size bound is edited while the host keeps answering.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import type { ToolResultMessage } from '../../src/core/protocol/messages';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { editNotebookText } from '../../src/core/edit/notebook';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { hostileLink } from '../support/hostile';

function project(): { root: string; call(tool: string, params: Record<string, unknown>): Promise<ToolResultMessage['data']> } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-notebooks-')));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });
  let n = 0;
  return { root, call: async (toolName, params) => (await d.dispatch({ id: `nb${++n}`, idKey: 'toolCallId', toolName, params })).data };
}

/** The documented bound (MAX_NOTEBOOK_BYTES in src/core/edit/notebook.ts). */
const MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024;

const cell = (source: string) => `{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["${source}"]}`;

/** A notebook of `bytes` bytes whose first cell holds a long training log (many short output lines). */
function loggedNotebook(bytes: number): string {
  const head = '{\n "cells": [\n  {\n   "cell_type": "code",\n   "execution_count": 1,\n   "id": "train",\n   "metadata": {},\n   "outputs": [\n    {\n     "name": "stdout",\n     "output_type": "stream",\n     "text": [\n';
  const tail = '\n     ]\n    }\n   ],\n   "source": [\n    "train(model)"\n   ]\n  },\n  {\n   "cell_type": "code",\n   "execution_count": null,\n   "id": "print",\n   "metadata": {},\n   "outputs": [],\n   "source": [\n    "print(1)"\n   ]\n  }\n ],\n "metadata": {},\n "nbformat": 4,\n "nbformat_minor": 5\n}\n';
  const lines: string[] = [];
  let size = head.length + tail.length;
  for (let epoch = 0; ; epoch++) {
    const line = `      "epoch ${epoch} loss 0.${epoch % 9973}\\n"`;
    if (size + line.length + 2 > bytes) break;
    lines.push(line);
    size += line.length + 2;
  }
  return head + lines.join(',\n') + tail;
}

test('a notebook with two "cells" keys is refused and nothing is written (JSON.parse reads the last, the edit would go to the first)', async () => {
  const p = project();
  const raw = `{\n "cells": [${cell('decoy = 1')}],\n "metadata": {},\n "cells": [${cell('real = 1')}],\n "nbformat": 4,\n "nbformat_minor": 5\n}\n`;
  fs.writeFileSync(path.join(p.root, 'twice.ipynb'), raw);
  // The same key spelled with an escape is the same key to every JSON reader.
  const escaped = raw.replace('"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["real', '"c\\u0065lls": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["real');
  fs.writeFileSync(path.join(p.root, 'escaped.ipynb'), escaped);
  for (const [file, bytes] of [['twice.ipynb', raw], ['escaped.ipynb', escaped]]) {
    const r = await p.call('NotebookEditCell', { notebook_path: file, cell_number: 0, new_source: 'planted = 1' });
    assert.equal(r.code, 'BAD_REQUEST', `${file}: ${String(r.error)}`);
    assert.match(String(r.error), /same key twice in one JSON object \(line 4\)/);
    assert.equal(fs.readFileSync(path.join(p.root, file), 'utf8'), bytes, `${file} unchanged`);
  }
});

test('an nbformat 3 notebook (cells under "worksheets", a decoy top-level "cells") is refused and nothing is written', async () => {
  const p = project();
  const raw = `{\n "cells": [${cell('decoy = 1')}],\n "worksheets": [{"cells": [{"cell_type": "code", "input": ["real = 1"], "language": "python", "outputs": []}]}],\n "metadata": {},\n "nbformat": 3,\n "nbformat_minor": 0\n}\n`;
  fs.writeFileSync(path.join(p.root, 'v3.ipynb'), raw);
  const r = await p.call('NotebookEditCell', { notebook_path: 'v3.ipynb', cell_number: 0, new_source: 'planted = 1' });
  assert.equal(r.code, 'BAD_REQUEST', String(r.error));
  assert.match(String(r.error), /nbformat 3/);
  assert.equal(fs.readFileSync(path.join(p.root, 'v3.ipynb'), 'utf8'), raw);
});

test('a notebook with a key twice inside a cell ("source", "cell_type") or deeper is refused and nothing is written', async () => {
  const p = project();
  const notebooks = {
    'source.ipynb': `{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["shown"], "source": ["run"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`,
    'type.ipynb': `{"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# t"], "cell_type": "code", "outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`,
    'deep.ipynb': `{"cells": [${cell('x = 1')}], "metadata": {"kernelspec": {"language": "python", "language": "r"}}, "nbformat": 4, "nbformat_minor": 5}`,
  };
  for (const [file, text] of Object.entries(notebooks)) {
    fs.writeFileSync(path.join(p.root, file), text);
    for (const params of [{ edit_mode: 'replace', new_source: 'planted = 1' }, { edit_mode: 'insert', new_source: 'planted = 1' }, { edit_mode: 'delete' }]) {
      const r = await p.call('NotebookEditCell', { notebook_path: file, cell_number: 0, ...params });
      assert.equal(r.code, 'BAD_REQUEST', `${file} ${params.edit_mode}: ${String(r.error)}`);
      assert.match(String(r.error), /same key twice/);
      assert.equal(fs.readFileSync(path.join(p.root, file), 'utf8'), text, `${file} unchanged`);
    }
  }
  // Equal keys in different objects are fine: every cell has its own "source".
  fs.writeFileSync(path.join(p.root, 'ok.ipynb'), `{"cells": [${cell('a = 1')}, ${cell('b = 1')}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`);
  const ok = await p.call('NotebookEditCell', { notebook_path: 'ok.ipynb', cell_number: 1, new_source: 'b = 2' });
  assert.equal(ok.success, true, String(ok.error));
  assert.match(fs.readFileSync(path.join(p.root, 'ok.ipynb'), 'utf8'), /"a = 1".*"b = 2"/s);
});

test('a notebook over the size bound is refused at once, unread, and nothing is written', async () => {
  const p = project();
  const file = path.join(p.root, 'huge.ipynb');
  fs.writeFileSync(file, loggedNotebook(MAX_NOTEBOOK_BYTES + 4 * 1024 * 1024));
  const before = fs.statSync(file);
  const rss = process.memoryUsage().rss;
  const started = performance.now();
  const r = await p.call('NotebookEditCell', { notebook_path: 'huge.ipynb', cell_number: 1, new_source: 'print(2)' });
  const ms = performance.now() - started;
  const grew = process.memoryUsage().rss - rss;
  assert.equal(r.code, 'BAD_REQUEST', String(r.error));
  assert.match(String(r.error), /huge\.ipynb is 24\.0 MB; NotebookEditCell edits notebooks of at most 20\.0 MB/);
  assert.ok(ms < 1000, `refused in ${ms.toFixed(0)} ms`);
  // Reading it alone would take 24 MB, its text as much again.
  assert.ok(grew < 16 * 1024 * 1024, `memory grew ${(grew / 1048576).toFixed(0)} MB`);
  const after = fs.statSync(file);
  assert.deepEqual([after.size, after.mtimeMs], [before.size, before.mtimeMs]);
});

test('the host keeps answering reads (< 2 s) while a notebook at the size bound is edited over the link', async () => {
  const link = await hostileLink();
  after(() => link.close());
  const text = loggedNotebook(MAX_NOTEBOOK_BYTES - 1024);
  const file = path.join(link.tree.root, 'train.ipynb');
  fs.writeFileSync(file, text);
  let edited = false;
  const edit = link.call('NotebookEditCell', { notebook_path: 'train.ipynb', cell_number: 1, new_source: 'print(2)' }).finally(() => (edited = true));
  // A read is due every 100 ms: its wait counts from when it was due, so a stall between two
  // reads (the host busy while none was in flight) counts too.
  let slowest = 0;
  let reads = 0;
  const started = performance.now();
  while (!edited) {
    const due = started + reads * 100;
    if (due > performance.now()) await new Promise((res) => setTimeout(res, due - performance.now()));
    const r = await link.call('read_file', { relativePath: 'notes.md' });
    slowest = Math.max(slowest, performance.now() - due);
    assert.equal(r.success, true, String(r.error));
    reads++;
  }
  const r = await edit;
  assert.equal(r.success, true, String(r.error));
  assert.ok(reads >= 3, `only ${reads} reads during the edit`);
  assert.ok(slowest < 2000, `a read waited ${slowest.toFixed(0)} ms`);
  assert.equal(fs.readFileSync(file, 'utf8'), text.replace('"print(1)"', '"print(2)"'), 'only the edited cell changed');
});

test('deleting a cell of a notebook written without line breaks keeps valid JSON and the other cells\' bytes', () => {
  const cell = (s: string) => `{"cell_type":"code","execution_count":null,"metadata":{},"outputs":[],"source":["${s}"]}`;
  for (const sep of [',', ', ', ',\r\n  ']) {
    const text = `{"cells":[${cell('a')}${sep}${cell('b')}${sep}${cell('c')}],"metadata":{},"nbformat":4,"nbformat_minor":5}`;
    for (const index of [0, 1, 2]) {
      const out = editNotebookText(text, { mode: 'delete', index, source: '' }, 'n.ipynb').text;
      const cells = (JSON.parse(out) as { cells: { source: string[] }[] }).cells.map((c) => c.source[0]);
      assert.deepEqual(cells, ['a', 'b', 'c'].filter((_, i) => i !== index), `delete ${index} with ${JSON.stringify(sep)}`);
      for (const kept of ['a', 'b', 'c'].filter((_, i) => i !== index)) assert.ok(out.includes(cell(kept)), `cell ${kept} kept its bytes`);
    }
  }
});
