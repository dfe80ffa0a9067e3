/**
 * The hostile-agent suite: many large writes at once. A write reads and plans in one of a few
 * slots, and the text of proposals waiting for a decision is bounded in total; a proposal that
 * waits on a person gives its slot up, so a batch of changes still reaches review. Calls waiting
 * for one file's lock are bounded too, by count and by the text their params carry.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import type { ChangeGate, ProposedChange } from '../../src/core/write/gate';
import { heldChars, holdProposal, MAX_HELD_CHARS, waitingWrites, WRITES_WAITING } from '../../src/core/write/writeLoad';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';

function project(files: number, size: number) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-writeload-')));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  for (let i = 0; i < files; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), `${'x'.repeat(size)}\nend ${i}\n`);
  return root;
}

/** A gate that keeps every proposal waiting until the test decides (rejecting all). */
function waitingGate() {
  const waiting: { change: ProposedChange; reject: (e: Error) => void }[] = [];
  let arrived!: () => void;
  let want = 0;
  let reached = new Promise<void>((r) => (arrived = r));
  const gate: ChangeGate = {
    commit: (change) =>
      new Promise((_, reject) => {
        waiting.push({ change, reject });
        if (waiting.length === want) arrived();
      }),
  };
  return {
    gate,
    waiting,
    until(n: number) {
      want = n;
      if (waiting.length >= n) return Promise.resolve();
      reached = new Promise<void>((r) => (arrived = r));
      return reached;
    },
    rejectAll() {
      for (const w of waiting.splice(0)) w.reject(Object.assign(new Error('no'), { code: 'USER_REJECTED' }));
    },
  };
}

test('70 changes sent at once all reach review: a proposal waiting on a person holds no slot', async () => {
  const root = project(70, 10);
  const g = waitingGate();
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: g.gate });
  const answers = Array.from({ length: 70 }, (_, i) =>
    d.dispatch({ id: `w${i}`, idKey: 'toolCallId', toolName: 'Replace', params: { file_path: `f${i}.txt`, content: `new ${i}\n` } }),
  );
  await g.until(70);
  assert.equal(g.waiting.length, 70);
  g.rejectAll();
  await Promise.all(answers);
  assert.equal(heldChars(), 0, 'every decided proposal gave its text back');
});

test('proposals waiting together hold a bounded amount of text; past it a change is refused, and room comes back', async () => {
  const big = 64 * 1024 * 1024;
  const releases: (() => void)[] = [];
  // A single proposal always fits, whatever its size.
  releases.push(holdProposal(MAX_HELD_CHARS + 1));
  assert.throws(() => holdProposal(1), /already hold .* MB/);
  releases.pop()!();
  for (let held = 0; held + big <= MAX_HELD_CHARS; held += big) releases.push(holdProposal(big));
  assert.throws(() => holdProposal(big), /Nothing was written/);
  releases.pop()!();
  releases.push(holdProposal(big));
  for (const r of releases.splice(0)) r();
  assert.equal(heldChars(), 0);
});

test('the budget is enforced through the write path: a large change beyond it is refused while others wait', async () => {
  // Replacing a 60M-character file holds about 60M characters: two such proposals fit, a third does not.
  const size = 60 * 1024 * 1024;
  const root = project(3, size);
  const g = waitingGate();
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: g.gate });
  const replace = (i: number) => d.dispatch({ id: `b${i}`, idKey: 'toolCallId', toolName: 'Replace', params: { file_path: `f${i}.txt`, content: `short ${i}\n` } });
  const first = [replace(0), replace(1)];
  await g.until(2);
  const refused = await replace(2);
  assert.equal(refused.data.success, false);
  assert.match(String(refused.data.error), /already hold .*Nothing was written/);
  assert.ok(fs.readFileSync(path.join(root, 'f2.txt'), 'utf8').endsWith('end 2\n'), 'nothing written');
  g.rejectAll();
  await Promise.all(first);
  assert.equal(heldChars(), 0);
});

test('writes queued on one file are bounded: past the bound a call is answered busy at once, nothing written', async () => {
  // 24 Replace calls of 8 M characters each to ONE file, while the first waits for a decision:
  // the others wait for its lock, each holding its params, so only a bounded number may wait.
  const size = 8 * 1024 * 1024;
  const calls = 24;
  const root = project(1, 10);
  const g = waitingGate();
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: g.gate });
  const answers = Array.from({ length: calls }, (_, i) =>
    d.dispatch({ id: `q${i}`, idKey: 'toolCallId', toolName: 'Replace', params: { file_path: 'f0.txt', content: `${String(i % 10).repeat(size)}\n` } }),
  );
  const busy: string[] = [];
  for (const a of answers) void a.then((r) => r.data.success === false && /busy/.test(String(r.data.error)) && busy.push(r.data.toolCallId));
  await g.until(1);
  const mostWaiting = Math.floor(WRITES_WAITING.maxChars / (size + 1)) + 1;
  // The calls beyond the bound are answered at once, while the first still waits for its decision.
  for (const giveUp = Date.now() + 10_000; busy.length < calls - mostWaiting && Date.now() < giveUp; ) await new Promise((r) => setTimeout(r, 20));
  assert.ok(busy.length >= calls - mostWaiting, `${busy.length} of ${calls} calls answered busy; at most ${mostWaiting} may wait`);
  assert.ok(waitingWrites().chars <= WRITES_WAITING.maxChars, `waiting writes hold ${waitingWrites().chars} characters`);
  assert.equal(g.waiting.length, 1, 'one proposal at a time reaches the gate for one file');
  assert.ok(fs.readFileSync(path.join(root, 'f0.txt'), 'utf8').endsWith('end 0\n'), 'nothing written');
  // The calls that waited reach the gate one after another; each is rejected.
  const rejecting = setInterval(() => g.rejectAll(), 10);
  await Promise.all(answers);
  clearInterval(rejecting);
  assert.deepEqual(waitingWrites(), { calls: 0, chars: 0 });
  assert.equal(heldChars(), 0);
});
