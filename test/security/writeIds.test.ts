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
import { WriteJournal } from '../../src/core/link/writeJournal';
import { silentLogger } from '../../src/core/log';
import type { ToolCall } from '../../src/core/protocol/messages';
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
function host(root: string, journalDir: string, gate: ChangeGate = new DirectWriteGate()): Dispatcher {
  return new Dispatcher({
    workspace: new NodeWorkspace(root, { ripgrep: false }),
    tools: ALL_TOOLS,
    log: silentLogger,
    changes: gate,
    journal: WriteJournal.forSession(journalDir, 'session-1', silentLogger),
  });
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
