/**
 * Params whose size alone made a tool's work grow with its square: a path of thousands of folders
 * (resolved a folder at a time; a 60 KB `Replace` ran the host out of memory), a dotted class name
 * of thousands of parts (every prefix was tried as a file), a `file_type` of thousands of
 * extensions (each a glob matched against every file). Each is refused at once, nothing touched.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../../src/core/log';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../unit/helpers/fixtures';

const root = makeTree({ 'src/p/Greeter.java': 'package p;\npublic class Greeter { void greet() {} }\n', 'notes.txt': 'hello\n' }, 'ab-bounds-');
const d = new Dispatcher({ workspace: new NodeWorkspace(root), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });
let n = 0;
const call = (toolName: string, params: Record<string, unknown>) => d.dispatch({ id: `b${n++}`, idKey: 'toolCallId', toolName, params });

async function refused(toolName: string, params: Record<string, unknown>, field: RegExp): Promise<void> {
  const started = performance.now();
  const r = await call(toolName, params);
  const ms = performance.now() - started;
  assert.equal(r.data.success, false, `${toolName} answered: ${String(r.data.result).slice(0, 200)}`);
  assert.equal(r.data.code, 'VALIDATION_FAILED', `${toolName}: ${r.data.code} ${String(r.data.error).slice(0, 200)}`);
  assert.match(String(r.data.error), field);
  assert.ok(ms < 1000, `${toolName} took ${Math.round(ms)} ms to refuse`);
}

test('a path longer than 4,096 characters or deeper than 256 folders is refused by every tool that takes one, nothing created', async () => {
  const long = `${'a/'.repeat(2100)}x.txt`;
  const deep = `${'a/'.repeat(300)}x.txt`;
  for (const p of [long, deep]) {
    await refused('read_file', { relativePath: p }, /relativePath/);
    await refused('grep_file', { pattern: 'x', relativePath: p }, /relativePath/);
    await refused('Replace', { file_path: p, content: 'x' }, /file_path|relativePath/);
    await refused('Edit', { file_path: p, old_string: 'a', new_string: 'b' }, /file_path|relativePath/);
    await refused('apply_change', { relativePath: p, searchContent: '', replaceContent: 'x' }, /relativePath/);
  }
  assert.deepEqual(fs.readdirSync(root).sort(), ['notes.txt', 'src'], 'no folder was made');
  // A path at the bounds is still an ordinary path.
  const ok = await call('Replace', { file_path: `${'b/'.repeat(40)}ok.txt`, content: 'fine\n' });
  assert.equal(ok.data.success, true, String(ok.data.error));
  assert.equal(fs.readFileSync(path.join(root, `${'b/'.repeat(40)}ok.txt`), 'utf8'), 'fine\n');
});

test('a class or method name of more than 1,000 characters or 64 dotted parts is refused by the code tools', async () => {
  const dotted = `${'a.'.repeat(100)}C`;
  const long = `${'A'.repeat(1200)}`;
  for (const name of [dotted, long]) {
    await refused('read_class', { className: name }, /className/);
    await refused('read_method', { className: name, methodName: 'm' }, /className/);
    await refused('read_method', { className: 'Greeter', methodName: name }, /methodName/);
    await refused('call_chain', { method: name }, /method/);
  }
  const fine = await call('read_class', { className: 'p.Greeter' });
  assert.equal(fine.data.success, true, String(fine.data.error));
});

test('a file_type of more than 32 languages or extensions is refused', async () => {
  const many = Array.from({ length: 100 }, (_, i) => `e${i}`).join(',');
  await refused('grep_file', { pattern: 'hello', file_type: many }, /file_type/);
  await refused('text_search', { pattern: 'hello', file_type: many }, /file_type/);
  const fine = await call('grep_file', { pattern: 'hello', file_type: 'txt,java' });
  assert.equal(fine.data.success, true, String(fine.data.error));
});

test("a repository's ignore line of many wildcards does not hold the in-process search (regexes backtrack)", async () => {
  const repo = makeTree({ '.gitignore': '*a*a*a*a*a*a*a*a*a*a*b\n*.log\n', [`${'a'.repeat(60)}.txt`]: 'needle\n', 'x.log': 'needle\n', 'y.txt': 'needle\n' }, 'ab-globs-');
  const inProcess = new Dispatcher({ workspace: new NodeWorkspace(repo, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger });
  const started = performance.now();
  const r = await inProcess.dispatch({ id: 'g1', idKey: 'toolCallId', toolName: 'grep_file', params: { pattern: 'needle' } });
  const ms = performance.now() - started;
  assert.equal(r.data.success, true, String(r.data.error));
  assert.ok(ms < 2000, `the search took ${Math.round(ms)} ms`);
  const files = (r.data.structured as { files: { path: string }[] }).files.map((f) => f.path).sort();
  // The line past the bound is left out (as an invalid one is); the others still apply.
  assert.deepEqual(files, [`${'a'.repeat(60)}.txt`, 'y.txt']);
});
