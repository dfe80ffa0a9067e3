/**
 * The hostile-agent suite: an edit whose matching is linear but still long (a thousand edits on a
 * 2 MB file, each scanning it) runs in slices under a deadline. It must stop with a clear TIMEOUT,
 * write nothing, and never hold the event loop: a timer ticking every 5 ms meanwhile is measured.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, test } from 'node:test';
import { EDIT_LIMITS } from '../../src/core/edit/budget';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';

/** The longest the event loop may go without running a timer while the edit is matched. */
const MAX_BLOCK_MS = 250;

test('a MultiEdit that would match for seconds stops at the deadline with TIMEOUT, nothing written, the event loop never held', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-deadline-')));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const lines = Array.from({ length: 20_000 }, (_, i) => `const value${String(i).padStart(5, '0')} = compute(${i}); // ${'.'.repeat(60)}\n`);
  const file = path.join(root, 'many.js');
  fs.writeFileSync(file, lines.join(''));
  const before = fs.readFileSync(file);
  // The last thousand lines, last first: each edit scans almost the whole file.
  const edits = Array.from({ length: EDIT_LIMITS.maxEdits }, (_, k) => {
    const n = String(lines.length - 1 - k).padStart(5, '0');
    return { old_string: `value${n} =`, new_string: `renamed${n} =` };
  });
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });

  const saved = EDIT_LIMITS.matchMs;
  EDIT_LIMITS.matchMs = 300;
  let worstGap = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    worstGap = Math.max(worstGap, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  try {
    const r = await d.dispatch({ id: 'deadline-1', idKey: 'toolCallId', toolName: 'MultiEdit', params: { file_path: 'many.js', edits } });
    const took = performance.now() - started;
    assert.equal(r.data.code, 'TIMEOUT', String(r.data.error));
    assert.match(String(r.data.error), /took longer than 0\.3 s and was stopped.*Nothing was changed\./);
    assert.ok(took < 3000, `answered after ${Math.round(took)} ms`);
  } finally {
    clearInterval(ticker);
    EDIT_LIMITS.matchMs = saved;
  }
  assert.ok(worstGap < MAX_BLOCK_MS, `the event loop was held for ${Math.round(worstGap)} ms`);
  assert.deepEqual(fs.readFileSync(file), before);
});
