import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { resolveInProject } from '../../src/core/workspace/paths';
import { MAX_READ_LINES, readFileTool } from '../../src/core/tools/readFile';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import type { Workspace } from '../../src/core/workspace/workspace';
import { makeTree } from '../support/fixtures';
import { callTool, failsWith } from '../support/tools';

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

const outside = makeTree({ 'secret.txt': 'top secret\n' }, 'ab-outside-');
const root = makeTree({
  'src/Main.java': 'package a;\n\nclass Main {\n  void run() {}\n}\n',
  'big.txt': numbered(2500),
  'crlf.txt': 'one\r\ntwo\r\nthree\r\n',
  'bom.txt': '\ufeffwith bom\n',
  'empty.txt': '',
  'bin.dat': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]),
  'fence.md': 'a ``` b\n',
});
fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-out.txt'));
fs.symlinkSync(outside, path.join(root, 'dir-out'));
fs.symlinkSync(path.join(root, 'src/Main.java'), path.join(root, 'link-in.java'));

const ws = new NodeWorkspace(root);

const read = (params: Record<string, unknown>, workspace: Workspace = ws) => callTool(readFileTool, workspace, params);

test('containment: .., absolute paths and symlinks that lead outside are PERMISSION_DENIED', async () => {
  await failsWith(resolveInProject(ws, '../x'), 'PERMISSION_DENIED');
  await failsWith(resolveInProject(ws, 'src/../../x'), 'PERMISSION_DENIED');
  await failsWith(resolveInProject(ws, path.join(outside, 'secret.txt')), 'PERMISSION_DENIED');
  await failsWith(resolveInProject(ws, 'link-out.txt'), 'PERMISSION_DENIED', /symbolic link/);
  await failsWith(resolveInProject(ws, 'dir-out/secret.txt'), 'PERMISSION_DENIED');
  await failsWith(resolveInProject(ws, 'dir-out/not-yet-created.txt'), 'PERMISSION_DENIED');
  await failsWith(read({ relativePath: '../' + path.basename(outside) + '/secret.txt' }), 'PERMISSION_DENIED');
});

test('containment: paths that stay inside resolve, absolute ones included', async () => {
  assert.equal((await resolveInProject(ws, 'src/../src/Main.java')).rel, 'src/Main.java');
  assert.equal((await resolveInProject(ws, path.join(root, 'src/Main.java'))).rel, 'src/Main.java');
  assert.equal((await resolveInProject(ws, 'link-in.java')).abs, path.join(ws.root, 'src/Main.java'));
  assert.equal((await resolveInProject(ws, 'new/dir/file.txt')).rel, 'new/dir/file.txt');
});

test('read_file returns the whole file as line-numbered Markdown', async () => {
  const out = await read({ relativePath: 'src/Main.java' });
  assert.match(out.result, /^## File: src\/Main\.java/);
  assert.match(out.result, /Lines 1–5 of 5 · java/);
  assert.match(out.result, /```java\n1 \| package a;\n2 \| \n3 \| class Main \{/);
  assert.deepEqual((out.structured as { totalLines: number }).totalLines, 5);
});

test('read_file honours start_line/end_line and line ± context_lines', async () => {
  const range = await read({ relativePath: 'big.txt', start_line: 10, end_line: 12 });
  assert.equal((range.structured as { content: string }).content, 'line 10\nline 11\nline 12');
  assert.match(range.result, /Lines 10–12 of 2500/);
  const around = await read({ relativePath: 'big.txt', line: 100, context_lines: 2 });
  assert.equal((around.structured as { content: string }).content, 'line 98\nline 99\nline 100\nline 101\nline 102');
  const defaultCtx = await read({ relativePath: 'big.txt', line: '5' });
  assert.equal((defaultCtx.structured as { startLine: number; endLine: number }).startLine, 1);
  assert.equal((defaultCtx.structured as { startLine: number; endLine: number }).endLine, 25);
});

test('read_file caps large output and says how to read the rest', async () => {
  const out = await read({ relativePath: 'big.txt' });
  const s = out.structured as { endLine: number; truncated: boolean };
  assert.equal(s.endLine, MAX_READ_LINES);
  assert.equal(s.truncated, true);
  assert.match(out.result, /capped at 2000 lines.*start_line=2001/);
  assert.doesNotMatch(out.result, /line 2001\n/);
});

test('read_file: CRLF, BOM, empty and backtick-fenced content', async () => {
  assert.equal(((await read({ relativePath: 'crlf.txt' })).structured as { content: string }).content, 'one\ntwo\nthree');
  assert.equal(((await read({ relativePath: 'bom.txt' })).structured as { content: string }).content, 'with bom');
  assert.match((await read({ relativePath: 'empty.txt' })).result, /Empty file/);
  assert.match((await read({ relativePath: 'fence.md' })).result, /````markdown\n1 \| a ``` b\n````/);
});

test('read_file errors: missing file, directory, binary, lines past the end', async () => {
  await failsWith(read({ relativePath: 'nope.txt' }), 'NOT_FOUND', /File not found: nope\.txt/);
  await failsWith(read({ relativePath: 'src' }), 'BAD_REQUEST', /directory/);
  await failsWith(read({ relativePath: 'bin.dat' }), 'BAD_REQUEST', /binary/);
  await failsWith(read({ relativePath: 'src/Main.java', start_line: 99 }), 'VALIDATION_FAILED', /past the end/);
  await failsWith(read({ relativePath: 'src/Main.java', start_line: 3, end_line: 2 }), 'VALIDATION_FAILED', /before start_line/);
});

test('read_file reads the unsaved editor buffer when there is one', async () => {
  const abs = path.join(ws.root, 'src/Main.java');
  const dirty: Workspace = Object.assign(Object.create(ws) as Workspace, {
    dirtyText: (p: string) => (p === abs ? 'unsaved text\n' : undefined),
  });
  const out = await read({ relativePath: 'src/Main.java' }, dirty);
  assert.match(out.result, /1 \| unsaved text/);
  assert.match(out.result, /unsaved editor buffer/);
});
