/**
 * The hostile-agent suite: write ids and the write journal (docs/protocol.md §4.3). A write is never
 * applied twice under one id, across a restart of the host with the same session, however many
 * writes came between; and a write refused for a passing reason before it changed anything can be
 * retried with the same id, as the protocol tells backends to. Real folders, real files, the real
 * dispatcher, write tools and gate; a restart is a new dispatcher over the same journal file.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import {
  ANSWER_KEEP_BYTES,
  COMPACT_AT_BYTES,
  MAX_FILE_BYTES,
  MAX_OUTCOME_LINE_BYTES,
  WORST_COMPACTED_BYTES,
  WriteJournal,
  type JournalLimits,
} from '../../src/core/link/writeJournal';
import { silentLogger } from '../support/silentLogger';
import { MAX_ID_CHARS, toolFailure, toolSuccess, type ToolCall } from '../../src/core/protocol/messages';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import type { ChangeGate } from '../../src/core/write/gate';
import { holdProposal, MAX_HELD_CHARS, preparingSlot } from '../../src/core/write/writeLoad';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';

function project(): { root: string; journalDir: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-writeids-')));
  after(() => fs.rmSync(base, { recursive: true, force: true }));
  const root = path.join(base, 'project');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'notes.md'), 'a\n');
  return { root, journalDir: path.join(base, 'journal') };
}

/** A host over `root` whose write journal is the session's file in `journalDir`: a new one is a restart. */
function host(root: string, journalDir: string, gate: ChangeGate = new DirectWriteGate(), limits?: Partial<JournalLimits>): Dispatcher {
  return new Dispatcher({
    workspace: new NodeWorkspace(root, { ripgrep: false }),
    tools: ALL_TOOLS,
    log: silentLogger,
    changes: gate,
    journal: WriteJournal.forSession(journalDir, 'session-1', silentLogger, limits),
  });
}

/** The session's journal file (the only file in its folder). */
function journalFile(journalDir: string): string {
  const names = fs.readdirSync(journalDir);
  assert.equal(names.length, 1, names.join(', '));
  return path.join(journalDir, names[0]);
}

/** Adds a line after the first "a": applied twice, the file shows it twice. */
const addLine = (id: string): ToolCall => ({ id, idKey: 'toolCallId', toolName: 'Edit', params: { file_path: 'notes.md', old_string: 'a\n', new_string: 'a\nb\n' } });
const read = (root: string): string => fs.readFileSync(path.join(root, 'notes.md'), 'utf8');

test('a write refused because pending changes hold too much text can be retried with the same id, and lands once', async () => {
  const { root, journalDir } = project();
  const d = host(root, journalDir);
  const release = holdProposal(MAX_HELD_CHARS);
  let refused;
  try {
    refused = (await d.dispatch(addLine('w1'))).data;
  } finally {
    release();
  }
  assert.equal(refused.success, false);
  assert.match(String(refused.error), /try again once some are decided/);
  assert.equal(read(root), 'a\n');

  const retried = (await d.dispatch(addLine('w1'))).data;
  assert.equal(retried.success, true, String(retried.error));
  assert.equal(read(root), 'a\nb\n');
  // The same id after a restart: the first outcome, not a second write.
  const again = (await host(root, journalDir).dispatch(addLine('w1'))).data;
  assert.equal(again.success, true, String(again.error));
  assert.equal(read(root), 'a\nb\n');
});

test('a write answered busy can be retried with the same id, also after a restart, and lands once', async () => {
  const { root, journalDir } = project();
  const d = host(root, journalDir);
  // Every slot to read and plan a write taken, and the line behind them full (2 + 256).
  const holders = new AbortController();
  const slots = Array.from({ length: 2 + 256 }, () => preparingSlot(holders.signal));
  let busy;
  try {
    busy = (await d.dispatch(addLine('w2'))).data;
  } finally {
    holders.abort(new Error('test over'));
    for (const slot of slots) await slot.then((release) => release(), () => undefined);
  }
  assert.equal(busy.success, false);
  assert.match(String(busy.error), /busy/);
  assert.equal(read(root), 'a\n');

  // The backend's retry comes after the host restarted with the same session.
  const retried = (await host(root, journalDir).dispatch(addLine('w2'))).data;
  assert.equal(retried.success, true, String(retried.error));
  assert.equal(read(root), 'a\nb\n');
  const again = (await host(root, journalDir).dispatch(addLine('w2'))).data;
  assert.equal(again.success, true, String(again.error));
  assert.equal(read(root), 'a\nb\n');
});

test('a write still running when the host restarts is answered CONFLICT after the restart, and not run again', async () => {
  const { root, journalDir } = project();
  // A gate that never decides: the host "stops" while the change waits.
  const d = host(root, journalDir, { commit: () => new Promise(() => undefined) });
  void d.dispatch(addLine('w3'));
  await new Promise((r) => setTimeout(r, 200));
  const after = (await host(root, journalDir).dispatch(addLine('w3'))).data;
  assert.equal(after.success, false);
  assert.equal(after.code, 'CONFLICT');
  assert.match(String(after.error), /interrupted by a restart/);
  assert.equal(read(root), 'a\n');
});

test('the journal stays under its byte bound with large answers, and after a restart forgets no id', async () => {
  const { root, journalDir } = project();
  const limits = { answersBudgetBytes: 64 * 1024, compactAtBytes: 256 * 1024 };
  const first = await host(root, journalDir, undefined, limits).dispatch(addLine('old'));
  assert.equal(first.data.success, true, String(first.data.error));
  // Many writes with answers just under the size kept whole, written as the dispatcher writes them.
  const journal = WriteJournal.forSession(journalDir, 'session-1', silentLogger, limits);
  const answerText = 'x'.repeat(ANSWER_KEEP_BYTES - 1024);
  let largest = 0;
  for (let i = 0; i < 300; i++) {
    const id = `many-${i}`;
    journal.started(id, 'Replace', `hash-${i}`);
    journal.done(id, 'Replace', `hash-${i}`, toolSuccess({ id, idKey: 'toolCallId' }, answerText, 1));
    largest = Math.max(largest, fs.statSync(journalFile(journalDir)).size);
  }
  assert.ok(largest <= limits.compactAtBytes, `the journal file reached ${largest} bytes`);

  const restarted = WriteJournal.forSession(journalDir, 'session-1', silentLogger, limits);
  assert.equal(restarted.unreadable, undefined);
  for (let i = 0; i < 300; i++) assert.equal(restarted.get(`many-${i}`)?.state, 'done', `many-${i} forgotten`);
  const again = await host(root, journalDir, undefined, limits).dispatch(addLine('old'));
  assert.equal(again.data.success, true, String(again.data.error));
  assert.equal(read(root), 'a\nb\n', 'the old write was applied once');
});

test('with the real bounds a journal file never grows to the size that is not read back', () => {
  // A compacted file is below the compaction threshold, so between compactions the file is at most
  // the threshold and one line; that is far from the size that makes a session refuse writes.
  assert.ok(WORST_COMPACTED_BYTES < COMPACT_AT_BYTES, `${WORST_COMPACTED_BYTES} ≥ ${COMPACT_AT_BYTES}`);
  assert.ok(COMPACT_AT_BYTES + MAX_OUTCOME_LINE_BYTES + ANSWER_KEEP_BYTES < MAX_FILE_BYTES);
  // The worst outcome line really is within its bound: the longest id, every character escaped.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-journal-line-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const journal = WriteJournal.forSession(dir, 's', silentLogger);
  const id = '\u0001'.repeat(MAX_ID_CHARS);
  journal.started(id, 'NotebookEditCell', 'f'.repeat(64));
  journal.done(id, 'NotebookEditCell', 'f'.repeat(64), toolFailure({ id, idKey: 'callId' }, 'PERMISSION_DENIED', 'x'.repeat(ANSWER_KEEP_BYTES), 123_456_789));
  const lines = fs.readFileSync(journalFile(dir), 'utf8').split('\n').filter(Boolean);
  assert.equal(lines.length, 2);
  for (const line of lines) assert.ok(Buffer.byteLength(line) + 1 <= MAX_OUTCOME_LINE_BYTES, `a ${Buffer.byteLength(line)}-byte line`);
});

test('a journal file too large to be ours is kept, not deleted: the session refuses writes rather than apply one twice', async () => {
  const { root, journalDir } = project();
  const first = await host(root, journalDir).dispatch(addLine('w1'));
  assert.equal(first.data.success, true, String(first.data.error));
  const file = journalFile(journalDir);
  // Sparse: cheap to make, and past the size the loader accepts.
  fs.truncateSync(file, MAX_FILE_BYTES + 1);

  const restarted = host(root, journalDir);
  const resent = (await restarted.dispatch(addLine('w1'))).data;
  assert.equal(resent.success, false);
  assert.equal(resent.code, 'CONFLICT');
  assert.match(String(resent.error), /could not be read back/);
  const fresh = (await restarted.dispatch(addLine('w-new'))).data;
  assert.equal(fresh.code, 'CONFLICT', 'any write id may be a resend');
  assert.equal(read(root), 'a\nb\n', 'written once');
  assert.equal(fs.statSync(file).size, MAX_FILE_BYTES + 1, 'the file is left for a person to look at');
  const reading = (await restarted.dispatch({ id: 'r1', idKey: 'toolCallId', toolName: 'read_file', params: { relativePath: 'notes.md' } })).data;
  assert.equal(reading.success, true, 'reads still work');
});

test('a line cut at the end of the journal by a crash does not swallow the next write\'s line', async () => {
  const { root, journalDir } = project();
  assert.equal((await host(root, journalDir).dispatch(addLine('w1'))).data.success, true);
  fs.appendFileSync(journalFile(journalDir), '["w-cut",{"tool":"Ed');
  // After the crash, a write that is still waiting when the host stops again.
  void host(root, journalDir, { commit: () => new Promise(() => undefined) }).dispatch(addLine('w2'));
  await new Promise((r) => setTimeout(r, 200));
  const resent = (await host(root, journalDir).dispatch(addLine('w2'))).data;
  assert.equal(resent.code, 'CONFLICT', `w2 was forgotten: ${JSON.stringify(resent).slice(0, 200)}`);
  assert.equal(read(root), 'a\nb\n');
});

test('a damaged line inside the journal refuses the session\'s writes rather than risk applying one twice', async () => {
  const { root, journalDir } = project();
  assert.equal((await host(root, journalDir).dispatch(addLine('w1'))).data.success, true);
  const file = journalFile(journalDir);
  fs.writeFileSync(file, `{"not":"ours"}\n${fs.readFileSync(file, 'utf8')}`);
  const resent = (await host(root, journalDir).dispatch(addLine('w1'))).data;
  assert.equal(resent.code, 'CONFLICT', String(resent.error));
  const fresh = (await host(root, journalDir).dispatch(addLine('w4'))).data;
  assert.equal(fresh.code, 'CONFLICT', String(fresh.error));
  assert.equal(read(root), 'a\nb\n');
});

test('a write whose id cannot be written to the journal is not run, so a restart cannot apply it twice', async () => {
  const { root, journalDir } = project();
  assert.equal((await host(root, journalDir).dispatch(addLine('w1'))).data.success, true);
  const file = journalFile(journalDir);
  const d = host(root, journalDir);
  // The journal file turns into a folder under the running host: nothing can be appended to it any more.
  fs.rmSync(file);
  fs.mkdirSync(file);
  const refused = (await d.dispatch(addLine('w2'))).data;
  assert.equal(refused.success, false);
  assert.equal(refused.code, 'INTERNAL_ERROR');
  assert.match(String(refused.error), /could not be written/);
  assert.equal(read(root), 'a\nb\n', 'nothing written');
  // After a restart the journal cannot be read back: the resend is refused, not applied.
  const resent = (await host(root, journalDir).dispatch(addLine('w2'))).data;
  assert.equal(resent.code, 'CONFLICT', String(resent.error));
  assert.equal(read(root), 'a\nb\n');
});
