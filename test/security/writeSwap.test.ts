/**
 * The hostile-agent suite: a folder on the way to a write swapped for a link after the access
 * policy judged the path (TOCTOU). A change that waits (for approval, here a gate that holds it
 * until the swap is done) and a racing swapper against hundreds of writes through the headless
 * host: nothing may land, or be left, outside the judged folder.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import type { ChangeGate } from '../../src/core/write/gate';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { fingerprint, hostileLink } from '../support/hostile';

/** Every file and folder under `dir` (not through links), relative, sorted. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.push(e.isDirectory() ? `${r}/` : r);
      if (e.isDirectory()) walk(path.join(d, e.name), r);
    }
  };
  walk(dir, '');
  return out.sort();
}

/**
 * A project beside an outside folder, served by the headless host's writer behind a gate that holds
 * each change (as a developer's approval would) until the test lets it through. `waiting` resolves
 * once `calls` changes are held.
 */
function heldProject(calls = 1) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-writeswap-')));
  after(() => fs.rmSync(base, { recursive: true, force: true }));
  const root = path.join(base, 'project');
  const outside = path.join(base, 'elsewhere');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'keep.txt'), 'outside\n');
  let arrived = 0;
  let allHeld!: () => void;
  const waiting = new Promise<void>((r) => (allHeld = r));
  let approve!: () => void;
  const approved = new Promise<void>((r) => (approve = r));
  const writer = new DirectWriteGate();
  const held: ChangeGate = {
    async commit(change, signal) {
      if (++arrived === calls) allHeld();
      await approved;
      return writer.commit(change, signal);
    },
  };
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: held });
  const call = (toolName: string, params: Record<string, unknown>) => d.dispatch({ id: `c${Math.random()}`, idKey: 'toolCallId', toolName, params }).then((m) => m.data);
  return { root, outside, call, waiting, approve };
}

test('a create waiting for approval while its folder is swapped for a link out of the project: refused, nothing outside', async () => {
  const p = heldProject();
  fs.mkdirSync(path.join(p.root, 'sw'));
  const before = listing(p.outside);
  const answer = p.call('Replace', { file_path: 'sw/made/new.txt', content: 'planted\n' });
  await p.waiting;
  // While the change waits: sw becomes a link to the outside folder.
  fs.rmdirSync(path.join(p.root, 'sw'));
  fs.symlinkSync(p.outside, path.join(p.root, 'sw'));
  p.approve();
  const r = await answer;
  assert.equal(r.success, false);
  assert.equal(r.code, 'PERMISSION_DENIED', String(r.error));
  assert.match(String(r.error), /sw\/made\/new\.txt.*changed.*nothing was written/);
  assert.deepEqual(listing(p.outside), before, 'nothing was created outside the project, not even a folder');
  assert.equal(fs.readFileSync(path.join(p.outside, 'keep.txt'), 'utf8'), 'outside\n');
});

test('a create waiting while its folder is swapped for a link to .vscode: refused, nothing written in the protected folder', async () => {
  const p = heldProject(2);
  fs.mkdirSync(path.join(p.root, '.vscode'));
  fs.writeFileSync(path.join(p.root, '.vscode/settings.json'), '{}\n');
  fs.mkdirSync(path.join(p.root, 'x'));
  // Source files (written unasked with --auto-approve), but protected once inside .vscode.
  const answers = [p.call('Replace', { file_path: 'x/notes.md', content: 'planted\n' }), p.call('Replace', { file_path: 'x/sub/notes.md', content: 'planted\n' })];
  await p.waiting;
  fs.rmdirSync(path.join(p.root, 'x'));
  fs.symlinkSync(path.join(p.root, '.vscode'), path.join(p.root, 'x'));
  p.approve();
  for (const r of await Promise.all(answers)) {
    assert.equal(r.code, 'PERMISSION_DENIED', String(r.error));
    assert.match(String(r.error), /nothing was written/);
  }
  assert.deepEqual(listing(path.join(p.root, '.vscode')), ['settings.json'], 'no file and no folder appeared in .vscode without the protected question');
});

test('a racing swapper (folder <-> link out) against 300 Replace calls with --auto-approve: nothing outside changes, no temp file anywhere', async () => {
  const link = await hostileLink({ autoApprove: true });
  after(() => link.close());
  const { root, outside } = link.tree;
  const sw = path.join(root, 'sw');
  fs.mkdirSync(sw);
  for (let i = 0; i < 20; i++) {
    fs.writeFileSync(path.join(sw, `f${i}.txt`), `inside ${i}\n`);
    // The same names outside: a write that follows the link would overwrite them.
    fs.writeFileSync(path.join(outside, `f${i}.txt`), `outside ${i}\n`);
  }
  const print = fingerprint(link.tree);
  const outsideBefore = new Map(listing(outside).map((f) => [f, f.endsWith('/') ? '' : fs.readFileSync(path.join(outside, f), 'utf8')]));
  // Plain renames (Node has no renameat2): sw is by turns the folder, missing, and a link out. A
  // write that made sw anew while it was missing gets that folder moved aside (inside the project).
  const swapper = spawn(process.execPath, ['-e', `
    const fs = require('fs');
    const sw = ${JSON.stringify(sw)}, real = sw + '.real', out = sw + '.out';
    const step = (from, to) => { try { fs.renameSync(from, to); } catch {} };
    const kind = (p) => { try { return fs.lstatSync(p).isSymbolicLink() ? 'link' : 'folder'; } catch { return 'none'; } };
    fs.symlinkSync(${JSON.stringify(outside)}, out);
    const end = Date.now() + 8000;
    let n = 0;
    while (Date.now() < end && !fs.existsSync(sw + '.stop')) {
      if (kind(real) === 'folder') {
        if (kind(sw) === 'folder') step(sw, sw + '.made' + n);
        if (kind(sw) === 'link') step(sw, out);
        step(real, sw);
      }
      step(sw, real); step(out, sw);
      step(sw, out); step(real, sw);
      n++;
    }
    process.stdout.write(String(n));
  `]);
  swapper.stderr.pipe(process.stderr);
  let swaps = '';
  swapper.stdout.on('data', (c: Buffer) => (swaps += c.toString()));
  const stopped = new Promise<void>((resolve) => swapper.on('close', () => resolve()));
  const outcomes = new Map<string, number>();
  const unexpected: string[] = [];
  try {
    for (let k = 0; k < 300; k++) {
      const i = k % 20;
      const params = k % 3 === 0 ? { file_path: `sw/new${k}.txt`, content: `new ${k}\n` } : { file_path: `sw/f${i}.txt`, content: `agent ${k}\n` };
      const r = await link.call('Replace', params);
      const key = r.success ? 'ok' : String(r.code);
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      if (!r.success && !['PERMISSION_DENIED', 'CONFLICT', 'NOT_FOUND'].includes(String(r.code))) unexpected.push(`${String(r.code)}: ${String(r.error)}`);
    }
  } finally {
    fs.writeFileSync(`${sw}.stop`, '');
    await stopped;
    fs.rmSync(`${sw}.stop`);
    // Put the real folder back if the last turn stopped half-way.
    if (fs.existsSync(`${sw}.real`)) {
      if (fs.lstatSync(sw, { throwIfNoEntry: false })) fs.rmSync(sw, { recursive: true });
      fs.renameSync(`${sw}.real`, sw);
    }
    fs.rmSync(`${sw}.out`, { force: true });
  }
  assert.ok(Number(swaps) > 100, `the swapper ran (${swaps} swaps)`);
  // Late appends are watched for a while after each write: look once those watches are over.
  await new Promise((r) => setTimeout(r, 1700));
  const outsideAfter = new Map(listing(outside).map((f) => [f, f.endsWith('/') ? '' : fs.readFileSync(path.join(outside, f), 'utf8')]));
  assert.deepEqual(outsideAfter, outsideBefore, `a file outside the project changed or appeared (outcomes: ${JSON.stringify([...outcomes])})`);
  const temps = [...listing(root), ...listing(outside)].filter((f) => f.includes('.agent-bridge-'));
  assert.deepEqual(temps, [], 'no temp file is left behind');
  assert.equal(fingerprint(link.tree), print);
  assert.deepEqual(unexpected, [], 'every refusal is a clear one');
  // Every write that succeeded is in the folder it named.
  for (const f of listing(sw)) if (!f.endsWith('/')) assert.match(fs.readFileSync(path.join(sw, f), 'utf8'), /^(inside|agent|new) \d+\n$/);
});
