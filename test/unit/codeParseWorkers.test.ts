import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import * as path from 'node:path';
import { test } from 'node:test';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import type { ExtractMode } from '../../src/core/code/languages/registry';
import { ParsePool, ParseRefused, workerScript } from '../../src/core/code/index/parsePool';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { declsOf } from '../support/packed';
import { inflateCalls } from '../../src/core/code/packedSymbols';

/** The index build in parse workers gives exactly what the main thread gives, file by file and in the same order. */

test('a parse worker starts from the TypeScript sources and answers what the main thread would', async () => {
  assert.ok(workerScript(), 'worker script found');
  const pool = ParsePool.start(1);
  assert.ok(pool);
  try {
    const packed = await pool.parse('a/B.java', 'package a;\nclass B { void f() { g(); } void g() {} }\n');
    assert.equal(declsOf(packed).types[0].fqn, 'a.B');
    // the call sites travel apart, deflated, with the names they call
    assert.deepEqual(packed?.keys, ['g']);
    assert.deepEqual(inflateCalls(Buffer.from(packed?.calls ?? [])).calls.map((calls) => calls.map((c) => c.name)), [['g'], []]);
    assert.equal(await pool.parse('notes.txt', 'hello'), undefined);
  } finally {
    await pool.close();
  }
});

test('a worker that cannot start leaves the build to the main thread, with the same index', async () => {
  const files: Record<string, string> = { '.tools/broken-worker.js': "throw new Error('no wasm here');\n" };
  for (let i = 0; i < 80; i++) files[`src/p/C${i}.java`] = `package p;\nclass C${i} { int f() { return new C${(i + 1) % 80}().f(); } }\n`;
  const root = makeTree(files, 'ab-workers-');
  const broken = path.join(root, '.tools', 'broken-worker.js');
  const pool = ParsePool.start(1, broken);
  assert.ok(pool);
  await assert.rejects(pool.parse('p/C0.java', 'class C0 {}'));
  assert.equal(pool.alive, false);
  await pool.close();
  const viaBroken = new CodeIndex(new NodeWorkspace(root), { workers: 2, workerScript: broken });
  const plain = new CodeIndex(new NodeWorkspace(root), { workers: 0 });
  await Promise.all([viaBroken.ready(), plain.ready()]);
  assert.equal(viaBroken.fileCount, 80);
  assert.deepEqual([...viaBroken.allFiles()], [...plain.allFiles()]);
});

/** A worker that loads, then hangs on `hang.java`, dies on `crash.java`, fails on `throws.java` and answers "no language" for the rest. */
const HOSTILE_WORKER = `const { parentPort } = require('node:worker_threads');
parentPort.postMessage({ ready: true });
parentPort.on('message', (job) => {
  if (job.rel.endsWith('hang.java')) return;
  if (job.rel.endsWith('crash.java')) process.exit(3);
  if (job.rel.endsWith('throws.java')) return parentPort.postMessage({ id: job.id, error: 'RangeError: Maximum call stack size exceeded' });
  parentPort.postMessage({ id: job.id });
});
`;

test('a file a worker hangs, dies or fails on is refused, never handed to the main thread; another worker takes over', async () => {
  const root = makeTree({ '.tools/hostile-worker.js': HOSTILE_WORKER, 'src/p/crash.java': 'class crash {}\n', 'src/p/Fine.java': 'class Fine {}\n' }, 'ab-workers-');
  const script = path.join(root, '.tools', 'hostile-worker.js');
  const pool = ParsePool.start(1, script, 300);
  assert.ok(pool);
  try {
    const t0 = performance.now();
    await assert.rejects(pool.parse('p/hang.java', 'class hang {}'), ParseRefused);
    assert.ok(performance.now() - t0 < 5000, 'refused once its time is up');
    assert.equal(await pool.parse('p/ok.java', 'class ok {}'), undefined, 'a new worker answers');
    // The job it died on is refused; the one queued behind it fails plainly (its caller parses it).
    const died = pool.parse('p/crash.java', 'class crash {}');
    const behind = pool.parse('p/after.java', 'class after {}');
    await assert.rejects(died, ParseRefused);
    await assert.rejects(behind, (e: unknown) => e instanceof Error && !(e instanceof ParseRefused));
    assert.equal(pool.alive, true);
    // An extraction that throws in a worker that has parsed a file would throw on the main
    // thread too: refused as well. In a worker that has parsed nothing yet (its grammars may not
    // load), it fails plainly and the caller parses the file itself.
    await assert.rejects(pool.parse('p/throws.java', 'class throws {}'), (e: unknown) => e instanceof Error && !(e instanceof ParseRefused));
    assert.equal(await pool.parse('p/ok2.java', 'class ok2 {}'), undefined);
    await assert.rejects(pool.parse('p/throws.java', 'class throws {}'), ParseRefused);
  } finally {
    await pool.close();
  }
  // In a build: the file the worker died on is not parsed on the main thread.
  const onMain: string[] = [];
  class Watched extends CodeIndex {
    protected override store(rel: string, text: string, mtimeMs: number, size: number, mode?: ExtractMode, stillWanted?: () => boolean): Promise<void> {
      onMain.push(rel);
      return super.store(rel, text, mtimeMs, size, mode, stillWanted);
    }
  }
  const files = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`src/p/C${i}.java`, `class C${i} {}\n`]));
  const index = new Watched(new NodeWorkspace(makeTree({ ...files, 'src/p/crash.java': 'class crash {}\n' }, 'ab-workers-')), { workers: 2, workerScript: script });
  await index.ready();
  assert.equal(onMain.includes('src/p/crash.java'), false, `parsed on the main thread: ${onMain.join(', ')}`);
  assert.equal(index.fileSymbols('src/p/crash.java'), undefined);
});
