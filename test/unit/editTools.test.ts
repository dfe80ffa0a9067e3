import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import type { ChangeGate } from '../../src/core/write/gate';
import { silentLogger } from '../support/silentLogger';
import { ToolError } from '../../src/core/protocol/errors';
import type { ToolResultMessage } from '../../src/core/protocol/messages';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

const notebook = JSON.stringify({
  cells: [
    { cell_type: 'markdown', metadata: {}, source: ['# Title'] },
    { cell_type: 'code', execution_count: 3, metadata: {}, outputs: [{ output_type: 'stream', name: 'stdout', text: ['1\n'] }], source: ['print(1)'] },
  ],
  metadata: { language_info: { name: 'python' } },
  nbformat: 4,
  nbformat_minor: 5,
}, null, 1) + '\n';

function setup(files: Record<string, string | Uint8Array>, gate: ChangeGate = new DirectWriteGate()) {
  const root = makeTree(files, 'ab-edit-');
  const ws = new NodeWorkspace(root);
  const d = new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log: silentLogger, changes: gate });
  let n = 0;
  const call = (toolName: string, params: Record<string, unknown>, id = `c${++n}`) => d.dispatch({ id, idKey: 'toolCallId', toolName, params });
  const read = (rel: string) => fs.readFileSync(path.join(root, rel));
  return { root: ws.root, call, read };
}

function resultOf(r: ToolResultMessage): Record<string, unknown> {
  assert.equal(r.data.success, true, r.data.error);
  const parsed = JSON.parse(r.data.result ?? '') as Record<string, unknown>;
  assert.deepEqual(parsed, r.data.structured, 'result is the JSON string of structured');
  return parsed;
}

test('apply_change edits exactly the matched region and returns a structured patch', async () => {
  const { call, read } = setup({ 'src/A.java': 'class A {\n  int x = 1;\n  int y = 2;\n}\n' });
  const r = resultOf(await call('apply_change', { relativePath: 'src/A.java', searchContent: '  int x = 1;', replaceContent: '  int x = 42;', description: 'bump x' }));
  assert.equal(read('src/A.java').toString(), 'class A {\n  int x = 42;\n  int y = 2;\n}\n');
  assert.equal(r.strategy, 'exact');
  assert.equal(r.created, false);
  assert.deepEqual(r.changedLines, { start: 2, end: 2 });
  assert.deepEqual(r.structuredPatch, [{ oldStart: 1, oldLines: 4, newStart: 1, newLines: 4, lines: [' class A {', '-  int x = 1;', '+  int x = 42;', '   int y = 2;', ' }'] }]);
  assert.equal(r.added, 1);
  assert.equal(r.removed, 1);
});

test('apply_change keeps CRLF line endings and a UTF-8 BOM byte for byte', async () => {
  const original = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a\r\nb\r\nc\r\n')]);
  const { call, read } = setup({ 'w.txt': original });
  const r = resultOf(await call('apply_change', { relativePath: 'w.txt', searchContent: 'b\n', replaceContent: 'B1\nB2\n' }));
  assert.equal(r.strategy, 'whitespace');
  assert.deepEqual(read('w.txt'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a\r\nB1\r\nB2\r\nc\r\n')]));
});

test('apply_change with empty searchContent creates the file (and its folders); a second create is already applied; other content is CONFLICT', async () => {
  const { call, read, root } = setup({ 'keep.txt': 'mine\n' });
  const created = resultOf(await call('apply_change', { relativePath: 'new/dir/B.java', searchContent: '', replaceContent: 'class B {}\n' }));
  assert.equal(created.created, true);
  assert.equal(read('new/dir/B.java').toString(), 'class B {}\n');
  const again = resultOf(await call('apply_change', { relativePath: 'new/dir/B.java', replaceContent: 'class B {}\n' }));
  assert.equal(again.alreadyApplied, true);
  const clash = await call('apply_change', { relativePath: 'keep.txt', searchContent: '', replaceContent: 'theirs\n' });
  assert.equal(clash.data.code, 'CONFLICT');
  assert.equal(read('keep.txt').toString(), 'mine\n');
  assert.deepEqual(fs.readdirSync(root).filter((f) => f.endsWith('.tmp')), []);
});

test('apply_change: text not in the file is NOT_FOUND with the closest region, and nothing changes', async () => {
  const { call, read } = setup({ 'c.py': 'def f():\n    return compute(1, "one")\n' });
  const r = await call('apply_change', { relativePath: 'c.py', searchContent: '    return compute(1, "uno")', replaceContent: 'x' });
  assert.equal(r.data.code, 'NOT_FOUND');
  assert.match(r.data.error ?? '', /line 2/);
  assert.match(r.data.error ?? '', /compute\(1, "one"\)/);
  assert.equal(read('c.py').toString(), 'def f():\n    return compute(1, "one")\n');
});

test('apply_change: already applied is a success that writes nothing', async () => {
  let commits = 0;
  const gate: ChangeGate = { commit: async (c) => { commits++; return { finalText: c.proposed, modifiedByUser: false, formatted: false, saved: true }; } };
  const { call } = setup({ 'a.txt': 'hello brave new world\n' }, gate);
  const r = resultOf(await call('apply_change', { relativePath: 'a.txt', searchContent: 'hello world', replaceContent: 'hello brave new world' }));
  assert.equal(r.alreadyApplied, true);
  assert.equal(commits, 0);
});

test('a rejected change answers USER_REJECTED and leaves the file byte-identical', async () => {
  const gate: ChangeGate = { commit: async () => { throw new ToolError('USER_REJECTED', 'Rejected by the developer: not this way'); } };
  const { call, read } = setup({ 'a.txt': 'one\ntwo\n' }, gate);
  const r = await call('apply_change', { relativePath: 'a.txt', searchContent: 'one', replaceContent: 'uno' });
  assert.equal(r.data.code, 'USER_REJECTED');
  assert.match(r.data.error ?? '', /not this way/);
  assert.equal(read('a.txt').toString(), 'one\ntwo\n');
});

test('a repeated call id is applied once; concurrent edits of one file are serialized', async () => {
  const { call, read } = setup({ 'n.txt': 'a\nb\nc\n' });
  const [first, replay] = await Promise.all([
    call('apply_change', { relativePath: 'n.txt', searchContent: 'a\n', replaceContent: 'a\na2\n' }, 'same'),
    call('apply_change', { relativePath: 'n.txt', searchContent: 'a\n', replaceContent: 'a\na2\n' }, 'same'),
  ]);
  assert.deepEqual(replay, first);
  assert.equal(read('n.txt').toString(), 'a\na2\nb\nc\n');
  await Promise.all([
    call('apply_change', { relativePath: 'n.txt', searchContent: 'b\n', replaceContent: 'B\n' }),
    call('apply_change', { relativePath: 'n.txt', searchContent: 'c\n', replaceContent: 'C\n' }),
  ]);
  assert.equal(read('n.txt').toString(), 'a\na2\nB\nC\n');
});

test('writing tools cannot escape the project', async () => {
  const { call, root } = setup({ 'a.txt': 'x\n' });
  for (const [tool, params] of [
    ['apply_change', { relativePath: '../escape.txt', replaceContent: 'x' }],
    ['Replace', { file_path: path.join(path.dirname(root), 'escape2.txt'), content: 'x' }],
    ['Edit', { file_path: '../../x', old_string: 'a', new_string: 'b' }],
  ] as const) {
    const r = await call(tool, params);
    assert.equal(r.data.code, 'PERMISSION_DENIED', tool);
  }
  assert.equal(fs.existsSync(path.join(path.dirname(root), 'escape.txt')), false);
  assert.equal(fs.existsSync(path.join(path.dirname(root), 'escape2.txt')), false);
});

const NO_DIAGNOSTICS = { available: false, note: 'This host has no language services, so no diagnostics were checked.' };

test('Replace returns its protocol data for create and update', async () => {
  const { call, root } = setup({ 'u.py': "def hello():\n    print('Hello, World!')\n" });
  const created = resultOf(await call('Replace', { file_path: 'n.py', content: 'x = 1\n' }));
  // The protocol's fields, plus what this host can say of diagnostics (it has no language services).
  assert.deepEqual(created, { type: 'create', filePath: path.join(root, 'n.py'), content: 'x = 1\n', structuredPatch: [], diagnostics: NO_DIAGNOSTICS });
  const updated = resultOf(await call('Replace', { file_path: path.join(root, 'u.py'), content: "def hello():\n    print('Hello, Updated World!')\n" }));
  assert.equal(updated.type, 'update');
  assert.deepEqual(updated.structuredPatch, [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' def hello():', "-    print('Hello, World!')", "+    print('Hello, Updated World!')"] }]);
});

test('Edit returns its protocol data (the config.py example)', async () => {
  const { call, root } = setup({ 'config.py': '# Configuration\nDEBUG = False\nPORT = 8000\n' });
  const r = resultOf(await call('Edit', { file_path: 'config.py', old_string: 'DEBUG = False', new_string: 'DEBUG = True' }));
  assert.deepEqual(r, {
    filePath: path.join(root, 'config.py'),
    oldString: 'DEBUG = False',
    newString: 'DEBUG = True',
    originalFile: '# Configuration\nDEBUG = False\nPORT = 8000\n',
    structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' # Configuration', '-DEBUG = False', '+DEBUG = True', ' PORT = 8000'] }],
    diagnostics: NO_DIAGNOSTICS,
  });
  const ambiguous = await call('Edit', { file_path: 'config.py', old_string: '0', new_string: '1' });
  assert.equal(ambiguous.data.code, 'CONFLICT');
  const all = resultOf(await call('Edit', { file_path: 'config.py', old_string: '0', new_string: '1', replace_all: true }));
  assert.equal(all.newString, '1');
});

test('MultiEdit is all or nothing and reports each edit', async () => {
  const { call, read } = setup({ 'utils.py': 'import os\n\n\n\ndef process():\n    pass\n' });
  const failed = await call('MultiEdit', { file_path: 'utils.py', edits: [{ old_string: 'import os', new_string: 'import os\nimport sys' }, { old_string: 'def nope():', new_string: 'x' }] });
  assert.equal(failed.data.success, false);
  assert.match(failed.data.error ?? '', /edit 2 of 2/);
  assert.equal(read('utils.py').toString(), 'import os\n\n\n\ndef process():\n    pass\n');
  const ok = resultOf(await call('MultiEdit', { file_path: 'utils.py', edits: [{ old_string: 'import os', new_string: 'import os\nimport sys' }, { old_string: 'def process():', new_string: 'def process_data():' }] }));
  assert.equal(ok.wasNewFile, false);
  assert.equal(ok.totalEdits, 2);
  assert.equal(ok.summary, 'Successfully applied 2 edits to utils.py');
  assert.deepEqual((ok.editsApplied as { editIndex: number; occurrences: number }[]).map((e) => [e.editIndex, e.occurrences]), [[1, 1], [2, 1]]);
  assert.equal(read('utils.py').toString(), 'import os\nimport sys\n\n\n\ndef process_data():\n    pass\n');
});

test('NotebookEditCell replaces, inserts and deletes cells, keeping the rest of the notebook', async () => {
  const { call, read } = setup({ 'nb.ipynb': notebook });
  const replaced = resultOf(await call('NotebookEditCell', { notebook_path: 'nb.ipynb', cell_number: 1, new_source: 'print(2)\nprint(3)' }));
  assert.deepEqual(replaced, { cell_number: 1, new_source: 'print(2)\nprint(3)', cell_type: 'code', language: 'python', edit_mode: 'replace', diagnostics: NO_DIAGNOSTICS });
  let nb = JSON.parse(read('nb.ipynb').toString()) as { cells: { source: string[]; outputs?: unknown[]; cell_type: string }[]; nbformat: number };
  assert.deepEqual(nb.cells[1].source, ['print(2)\n', 'print(3)']);
  assert.deepEqual(nb.cells[1].outputs, []);
  assert.equal(nb.nbformat, 4);
  assert.match(read('nb.ipynb').toString(), /^\{\n "cells"/);
  resultOf(await call('NotebookEditCell', { notebook_path: 'nb.ipynb', cell_number: 0, new_source: 'Intro', cell_type: 'markdown', edit_mode: 'insert' }));
  resultOf(await call('NotebookEditCell', { notebook_path: 'nb.ipynb', cell_number: 1, edit_mode: 'delete' }));
  nb = JSON.parse(read('nb.ipynb').toString()) as typeof nb;
  assert.deepEqual(nb.cells.map((c) => [c.cell_type, c.source.join('')]), [['markdown', 'Intro'], ['code', 'print(2)\nprint(3)']]);
  const oob = await call('NotebookEditCell', { notebook_path: 'nb.ipynb', cell_number: 9, new_source: 'x' });
  assert.equal(oob.data.code, 'VALIDATION_FAILED');
  assert.match(oob.data.error ?? '', /out of bounds\. Notebook has 2 cells/);
});
