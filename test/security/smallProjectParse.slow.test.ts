/**
 * A project of few files is parsed on the host's thread (starting parse workers costs more than a
 * few small files); a hostile repository of a few large ones must not get that: nested source can
 * cost the parser seconds per megabyte. Here two files of 300 KB each: while read_class waits for
 * the index, a timer every 20 ms is never held 2 s. Named `.slow` because each test parses for
 * seconds: `npm run test:fast` leaves it out, `npm test` runs it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { test } from 'node:test';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import { dropCodeIntel } from '../../src/core/code/intel/intel';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { heldDuring } from '../support/loopDelay';

test('a few large hostile source files are parsed off the host thread: the event loop is never held 2 s', async () => {
  const N = 150_000;
  const deep = (name: string) => `class ${name}:\n    def m(self):\n        return ${'f('.repeat(N)}1${')'.repeat(N)}\n`;
  const root = makeTree({ 'src/Deep.py': deep('Deep'), 'src/Other.py': deep('Other'), 'src/ok.py': 'class Ok:\n    def m(self):\n        return 1\n' }, 'ab-smallparse-');
  const ws = new NodeWorkspace(root);
  const d = new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log: silentLogger });
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  try {
    const r = await d.dispatch({ id: 'c1', idKey: 'toolCallId', toolName: 'read_class', params: { className: 'Ok' } });
    delay.disable();
    const worstMs = delay.max / 1e6;
    assert.ok(worstMs < 2000, `the event loop was held ${Math.round(worstMs)} ms`);
    // Answered, or told the index is still being built: either way, an answer.
    assert.ok(r.data.success || r.data.code === 'TIMEOUT', `${r.data.code}: ${r.data.error}`);
  } finally {
    delay.disable();
    dropCodeIntel(ws);
  }
});

test('a large source file behind a link inside the project counts at its size: parsed off the host thread', { timeout: 120_000 }, async () => {
  const body = Array.from({ length: 12 }, (_, k) => `(x * ${k + 3} - (x >> ${k % 5}) + x % ${k + 7})`).join(' + ');
  const methods: string[] = [];
  for (let i = 0, size = 0; size < 1_800_000; i++) {
    methods.push(`    def m${i}(self, x):\n        y = ${body}\n        return y - ${i}\n`);
    size += methods[i]!.length;
  }
  // the file's own name is no source name: the index lists it only as the link
  const root = makeTree({ 'vendor/target.txt': `class Target:\n${methods.join('')}` }, 'ab-smallparse-link-');
  fs.symlinkSync(path.join(root, 'vendor/target.txt'), path.join(root, 'target.py'));
  const index = new CodeIndex(new NodeWorkspace(root));
  const { heldMs: worstMs } = await heldDuring(() => index.ready());
  assert.ok(worstMs < 500, `the event loop was held ${Math.round(worstMs)} ms`);
  assert.deepEqual(index.findTypes('Target').map((t) => t.path), ['target.py']);
});
