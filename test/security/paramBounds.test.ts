/**
 * Params whose size alone made a tool's work grow with its square: a path of thousands of folders
 * (resolved a folder at a time; a 60 KB `Replace` ran the host out of memory), a dotted class name
 * of thousands of parts (every prefix was tried as a file), a `file_type` of thousands of
 * extensions (each a glob matched against every file). Each is refused at once, nothing touched.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

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
  const repo = makeTree({ '.gitignore': '*a*a*a*a*a*a*a*a*a*a*b\n*.log\n', [`${'a'.repeat(60)}.txt`]: 'needle\n', [`${'a'.repeat(10)}b`]: 'needle\n', 'x.log': 'needle\n', 'y.txt': 'needle\n' }, 'ab-globs-');
  const inProcess = new Dispatcher({ workspace: new NodeWorkspace(repo, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger });
  const started = performance.now();
  const r = await inProcess.dispatch({ id: 'g1', idKey: 'toolCallId', toolName: 'grep_file', params: { pattern: 'needle' } });
  const ms = performance.now() - started;
  assert.equal(r.data.success, true, String(r.data.error));
  assert.ok(ms < 2000, `the search took ${Math.round(ms)} ms`);
  const files = (r.data.structured as { files: { path: string }[] }).files.map((f) => f.path).sort();
  // Every line applies, the one of many wildcards too, as in ripgrep: the automaton reads a name once.
  assert.deepEqual(files, [`${'a'.repeat(60)}.txt`, 'y.txt']);
});

test('a loop of symbolic links inside the project is a clear refusal, not a crash quoting absolute paths', async () => {
  const repo = makeTree({ 'ok.txt': 'x\n' }, 'ab-loop-');
  fs.symlinkSync('loop2', path.join(repo, 'loop1'));
  fs.symlinkSync('loop1', path.join(repo, 'loop2'));
  const inRepo = new Dispatcher({ workspace: new NodeWorkspace(repo), tools: ALL_TOOLS, log: silentLogger });
  for (const [tool, params] of [['read_file', { relativePath: 'loop1' }], ['grep_file', { pattern: 'x', relativePath: 'loop1' }]] as const) {
    const r = await inRepo.dispatch({ id: `l-${tool}`, idKey: 'toolCallId', toolName: tool, params });
    assert.equal(r.data.code, 'BAD_REQUEST', `${tool}: ${r.data.code} ${String(r.data.error)}`);
    assert.match(String(r.data.error), /loop1 leads into a loop of symbolic links/);
    assert.ok(!String(r.data.error).includes(repo), 'no absolute path');
  }
});

test('a source file larger than the index parses is left out of answers made before the index too (never parsed on the host thread)', async () => {
  const big = `package p;\npublic class Huge {\n${'  int f(int a) { return a; }\n'.repeat(90_000)}}\n`;
  const repo = makeTree({ 'src/p/Huge.java': big, 'src/p/Small.java': 'package p;\npublic class Small { void m() {} }\n' }, 'ab-huge-');
  const inRepo = new Dispatcher({ workspace: new NodeWorkspace(repo), tools: ALL_TOOLS, log: silentLogger });
  const started = performance.now();
  const r = await inRepo.dispatch({ id: 'h1', idKey: 'toolCallId', toolName: 'read_class', params: { className: 'p.Huge' } });
  assert.ok(performance.now() - started < 5000, `took ${Math.round(performance.now() - started)} ms`);
  assert.equal(r.data.code, 'NOT_FOUND', `${r.data.code}: ${String(r.data.error ?? r.data.result).slice(0, 200)}`);
  const small = await inRepo.dispatch({ id: 'h2', idKey: 'toolCallId', toolName: 'read_class', params: { className: 'p.Small' } });
  assert.equal(small.data.success, true, String(small.data.error));
});

test('an edit by matching on a file of millions of lines is refused before the matcher builds its per-line tables', async () => {
  const repo = makeTree({ 'many.txt': 'x\n'.repeat(1_500_000), 'empty-lines.txt': '\n'.repeat(17_000_000) }, 'ab-lines-');
  const inRepo = new Dispatcher({ workspace: new NodeWorkspace(repo), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });
  for (const file of ['many.txt', 'empty-lines.txt']) {
    const before = fs.statSync(path.join(repo, file)).mtimeMs;
    const heap = process.memoryUsage().heapUsed;
    for (const [tool, params] of [
      ['Edit', { file_path: file, old_string: 'nope', new_string: 'yes' }],
      ['MultiEdit', { file_path: file, edits: [{ old_string: 'nope', new_string: 'yes' }] }],
      ['apply_change', { relativePath: file, searchContent: 'nope', replaceContent: 'yes' }],
    ] as const) {
      const r = await inRepo.dispatch({ id: `m-${tool}-${file}`, idKey: 'toolCallId', toolName: tool, params });
      assert.equal(r.data.code, 'BAD_REQUEST', `${tool} on ${file}: ${r.data.code} ${String(r.data.error).slice(0, 200)}`);
      assert.match(String(r.data.error), /too large to edit by matching text/);
    }
    assert.ok(process.memoryUsage().heapUsed - heap < 400 * 1024 * 1024, 'no per-line tables were built');
    assert.equal(fs.statSync(path.join(repo, file)).mtimeMs, before, `${file} unchanged`);
  }
});

test("a repository's .gitignore of thousands of lines does not hold the in-process search's walk", async () => {
  const files: Record<string, string> = { '.gitignore': Array.from({ length: 6000 }, (_, i) => `*x*y*z${i}`).join('\n') + '\n' };
  for (let i = 0; i < 300; i++) files[`src/f${i}.txt`] = 'needle\n';
  const repo = makeTree(files, 'ab-bigignore-');
  const inProcess = new Dispatcher({ workspace: new NodeWorkspace(repo, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const r = await inProcess.dispatch({ id: 'gi1', idKey: 'toolCallId', toolName: 'grep_file', params: { pattern: 'needle', limit: 5 } });
  delay.disable();
  assert.equal(r.data.success, true, String(r.data.error));
  assert.ok(delay.max / 1e6 < 500, `the event loop was held ${Math.round(delay.max / 1e6)} ms`);
});

test('a writing tool refuses half a surrogate pair for a UTF-8 file instead of writing U+FFFD as if it were what was asked', async () => {
  const repo = makeTree({ 'a.txt': 'prefix\n' }, 'ab-surrogate-');
  const inRepo = new Dispatcher({ workspace: new NodeWorkspace(repo), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });
  const r = await inRepo.dispatch({ id: 's1', idKey: 'toolCallId', toolName: 'Edit', params: { file_path: 'a.txt', old_string: 'prefix', new_string: 'pre\uD800fix' } });
  assert.equal(r.data.code, 'BAD_REQUEST', `${r.data.code} ${String(r.data.error)}`);
  assert.equal(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8'), 'prefix\n');
  const whole = await inRepo.dispatch({ id: 's2', idKey: 'toolCallId', toolName: 'Edit', params: { file_path: 'a.txt', old_string: 'prefix', new_string: 'pre\uD83D\uDE00fix' } });
  assert.equal(whole.data.success, true, String(whole.data.error));
  assert.equal(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8'), 'pre😀fix\n');
});
