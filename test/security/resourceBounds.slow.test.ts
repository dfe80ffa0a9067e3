/**
 * The hostile-agent suite: the host's bounds that only show under volume, thousands of calls or
 * gigabytes of answers (replay cache, backpressure, write journal, diff, remembered ids). Named
 * `.slow` because each test takes seconds: `npm run test:fast` leaves it out, `npm test` runs it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Dispatcher, MAX_FINGERPRINTS, REPLAY_KEEP_BYTES } from '../../src/core/link/dispatcher';
import { journalDirFor, WriteJournal } from '../../src/core/link/writeJournal';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { headlessLink, rawToolCall, tempFolder } from '../support/headlessLink';
import { silentLogger } from '../support/silentLogger';

test('the replay cache is bounded in bytes: 300 reads of a 4 MB file keep none of them', async () => {
  const root = tempFolder('ab-replay-');
  fs.writeFileSync(path.join(root, 'big.txt'), `${'x'.repeat(1999)}\n`.repeat(2000)); // 4 MB, 2000 lines
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger });
  for (let i = 0; i < 300; i++) {
    const r = await d.dispatch({ id: `r${i}`, idKey: 'toolCallId', toolName: 'read_file', params: { relativePath: 'big.txt' } });
    assert.equal(r.data.success, true);
  }
  assert.equal(d.replayBytes, 0, 'no answer over REPLAY_KEEP_BYTES is kept');
  // Small answers are kept, and a repeat is still answered from the cache.
  fs.writeFileSync(path.join(root, 'small.txt'), 'one line\n');
  const first = await d.dispatch({ id: 's1', idKey: 'toolCallId', toolName: 'read_file', params: { relativePath: 'small.txt' } });
  assert.ok(d.replayBytes > 0 && d.replayBytes < REPLAY_KEEP_BYTES);
  assert.equal(await d.dispatch({ id: 's1', idKey: 'toolCallId', toolName: 'read_file', params: { relativePath: 'small.txt' } }), first);
});

test('a write id is never applied twice: after 1,100 other calls, and after a restart with the same session', async () => {
  const root = tempFolder('ab-idem-');
  const stateDir = tempFolder('ab-idem-state-');
  fs.writeFileSync(path.join(root, 'list.txt'), 'start\n');
  const insert = { relativePath: 'list.txt', searchContent: 'start', replaceContent: 'start\ninserted' };
  let l = await headlessLink(root, { sessionId: 'session-A', stateDir });
  const once = await l.backend.callTool('apply_change', insert, { timeoutMs: 10_000 });
  assert.equal((once.data as { success: boolean }).success, true);
  for (let i = 0; i < 1100; i++) await l.backend.callTool('read_file', { relativePath: 'list.txt' });
  const id = (once.data as { toolCallId: string }).toolCallId;
  l.backend.sendRaw(l.backend.sessions()[0], rawToolCall(id, 'apply_change', insert));
  const replay = await l.backend.waitForMessage((e) => e.message?.type === 'TOOL_RESULT' && (e.message.data as { toolCallId?: string }).toolCallId === id, 5000);
  assert.equal((replay.message?.data as { success: boolean }).success, true);
  assert.equal(fs.readFileSync(path.join(root, 'list.txt'), 'utf8'), 'start\ninserted\n', 'applied once');
  await l.close();

  // A new host process for the same project and session: the journal on disk remembers.
  l = await headlessLink(root, { sessionId: 'session-A', stateDir });
  l.backend.sendRaw(l.backend.sessions()[0], rawToolCall(id, 'apply_change', insert));
  const afterRestart = await l.backend.waitForMessage((e) => e.message?.type === 'TOOL_RESULT' && (e.message.data as { toolCallId?: string }).toolCallId === id, 5000);
  assert.equal((afterRestart.message?.data as { success: boolean }).success, true);
  assert.equal(fs.readFileSync(path.join(root, 'list.txt'), 'utf8'), 'start\ninserted\n', 'not applied again after the restart');
  await l.close();
});

test('a backend that stops reading makes the host stop reading calls: memory stays bounded', async () => {
  const root = tempFolder('ab-stall-');
  fs.writeFileSync(path.join(root, 'big.txt'), `${'y'.repeat(999)}\n`.repeat(1900)); // ~1.9 MB answers
  const l = await headlessLink(root);
  try {
    const session = l.backend.sessions()[0];
    const rss0 = process.memoryUsage().rss;
    l.backend.pauseReading(session);
    // 1,000 calls of ~1.9 MB answers each: without backpressure ~2 GB would pile up in the host.
    for (let i = 0; i < 1000; i++) l.backend.sendRaw(session, rawToolCall(`b${i}`, 'read_file', { relativePath: 'big.txt' }));
    await new Promise((r) => setTimeout(r, 3000));
    assert.ok(l.host.connection.heldBack, 'the host paused reading');
    const grown = process.memoryUsage().rss - rss0;
    assert.ok(grown < 600 * 1024 * 1024, `RSS grew ${Math.round(grown / 1048576)} MB`);
    let answered = 0;
    l.backend.onMessage((e) => {
      if (e.message?.type === 'TOOL_RESULT') answered++;
    });
    l.backend.resumeReading(session);
    const deadline = Date.now() + 60_000;
    while (answered < 1000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(answered, 1000, 'every call is answered once the backend reads again');
  } finally {
    await l.close();
  }
});

test('a whole-file rewrite is diffed in bounded time, and its patch is still exact', async () => {
  const { structuredPatchOf } = await import('../../src/core/edit/patch');
  const oldText = Array.from({ length: 30_000 }, (_, i) => `old line ${i}`).join('\n') + '\n';
  const newText = Array.from({ length: 30_000 }, (_, i) => `new line ${i}`).join('\n') + '\n';
  const started = Date.now();
  const hunks = structuredPatchOf(`keep\n${oldText}keep too\n`, `keep\n${newText}keep too\n`);
  // A bound against a denial of service (unbounded, this diff takes minutes), not a speed target.
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  // Applying the hunks to the old lines gives the new lines.
  const a = `keep\n${oldText}keep too\n`.split('\n').slice(0, -1);
  const out: string[] = [];
  let at = 0;
  for (const h of hunks) {
    out.push(...a.slice(at, h.oldStart - 1));
    for (const l of h.lines) if (l[0] !== '-') out.push(l.slice(1));
    at = h.oldStart - 1 + h.oldLines;
  }
  out.push(...a.slice(at));
  assert.equal(`${out.join('\n')}\n`, `keep\n${newText}keep too\n`);
});

test('an id whose fingerprint was forgotten but whose answer is still kept is refused for another call', async () => {
  const root = tempFolder('ab-evict-');
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });
  const first = await d.dispatch({ id: 'X', idKey: 'toolCallId', toolName: 'read_file', params: { relativePath: '/' } });
  assert.equal(first.data.success, false);
  for (let i = 0; i < MAX_FINGERPRINTS + 1; i++) await d.dispatch({ id: `f${i}`, idKey: 'toolCallId', toolName: 'read_file', params: { relativePath: '/' } });
  const reused = await d.dispatch({ id: 'X', idKey: 'toolCallId', toolName: 'Replace', params: { file_path: 'a.txt', content: 'two\n' } });
  assert.equal(reused.data.code, 'CONFLICT', String(reused.data.error));
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'one\n');
});

test('the write journal stays small: 2,000 no-op writes of a 100 KB file', async () => {
  const root = tempFolder('ab-journal-');
  const stateDir = tempFolder('ab-journal-state-');
  const content = `${'j'.repeat(99)}\n`.repeat(1000);
  fs.writeFileSync(path.join(root, 'a.txt'), content);
  const journal = WriteJournal.forSession(journalDirFor(stateDir, root), 's', silentLogger);
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate(), journal });
  for (let i = 0; i < 2000; i++) {
    const r = await d.dispatch({ id: `j${i}`, idKey: 'toolCallId', toolName: 'Replace', params: { file_path: 'a.txt', content } });
    assert.equal(r.data.success, true);
  }
  const dir = journalDirFor(stateDir, root);
  const bytes = fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
  assert.ok(bytes < 2 * 1024 * 1024, `journal file is ${bytes} bytes`);
  // And a resent id still gets its first outcome, not a second run.
  const again = await d.dispatch({ id: 'j0', idKey: 'toolCallId', toolName: 'Replace', params: { file_path: 'a.txt', content } });
  assert.equal(again.data.success, true);
});
