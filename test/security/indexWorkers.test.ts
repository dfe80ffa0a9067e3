import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { ParsePool } from '../../src/core/code/index/parsePool';
import { DEFAULT_EXCLUDE_GLOBS } from '../../src/core/policy/secrets';
import { SecretGuard } from '../../src/core/workspace/globSet';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { ALL_CANARIES, CANARY, hostileTree } from '../support/hostile';
import { declsOf } from '../support/packed';

/**
 * The index build's parse workers read the files themselves (the main thread only checks the
 * paths). On a hostile tree big enough to start them: a FIFO named like a source file must not
 * pin a worker, a link out of the project or to a secret (symbolic or hard) and a binary file are
 * never indexed, no canary reaches the index, and the index is the one the main thread builds.
 */

const BUILD_DEADLINE_MS = 60_000;

async function build(root: string, workers: number): Promise<CodeIndex> {
  const secrets = new SecretGuard([...DEFAULT_EXCLUDE_GLOBS, '**/private/**']);
  const index = new CodeIndex(new NodeWorkspace(root, { secrets }), { workers });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`index build (${workers} workers) still running after ${BUILD_DEADLINE_MS} ms`)), BUILD_DEADLINE_MS);
  });
  try {
    await Promise.race([index.ready(), deadline]);
  } finally {
    clearTimeout(timer);
  }
  return index;
}

test('parse workers that read for themselves index only what the policy lets through, and never hang on a FIFO', { timeout: 3 * BUILD_DEADLINE_MS }, async () => {
  const tree = hostileTree(); // has src/Pipe.java (a FIFO), src/Ext.java (a link out), private/Hidden.java (secret by setting)
  try {
    const root = tree.root;
    // Enough files that the build starts its workers (below 64 the main thread parses).
    for (let i = 0; i < 90; i++) fs.writeFileSync(path.join(root, `src/Filler${i}.java`), `package app;\nclass Filler${i} { void f() { new Filler${(i + 1) % 90}().f(); } }\n`);
    fs.writeFileSync(path.join(root, 'src/Bin.java'), Buffer.from([0x63, 0x6c, 0x61, 0x73, 0x73, 0, 0, 0, 0x41, 0x7b, 0x7d]));
    fs.linkSync(path.join(root, '.git/config'), path.join(root, 'src/Config.java'));
    fs.writeFileSync(path.join(root, 'src/Latin.java'), Buffer.from('package app;\n/** Caf\xe9 */\nclass Latin {}\n', 'latin1'));

    const viaWorkers = await build(root, 2);
    const mainThread = await build(root, 0);
    const files = [...viaWorkers.allFiles()];
    const names = files.map(([rel]) => rel);
    assert.equal(files.length, 90 + 3, names.join(', ')); // the fillers, App, Helper, Latin
    for (const gone of ['src/Pipe.java', 'src/Ext.java', 'private/Hidden.java', 'src/Bin.java', 'src/Config.java']) assert.ok(!names.includes(gone), `${gone} indexed`);
    assert.ok(names.includes('src/Latin.java'));
    assert.deepEqual(files, [...mainThread.allFiles()]);

    const everything = JSON.stringify(files) + JSON.stringify([...viaWorkers.typeEntries()].flatMap((owner) => owner.type.methods.map((method) => viaWorkers.callsOf({ owner, method }))));
    for (const canary of ALL_CANARIES) assert.ok(!everything.includes(canary), `the index holds ${canary}`);
    assert.ok(!everything.includes(CANARY.outside));
  } finally {
    tree.remove();
  }
});

test('a parse worker handed a path reads it only as a regular file, where it was checked, and bounded', { timeout: BUILD_DEADLINE_MS }, async () => {
  // What the main thread's checks rule out can still be there by the time the worker opens the
  // path (a file swapped for a FIFO or a link after the stat): the worker's own read must refuse it.
  const tree = hostileTree();
  const pool = ParsePool.start(1);
  assert.ok(pool);
  try {
    const root = tree.root;
    // What the main thread saw when it checked the path (nothing there: nothing to match).
    const checked = (rel: string) => {
      const st = fs.statSync(path.join(root, rel), { throwIfNoEntry: false });
      return { size: st?.size ?? 0, mtimeMs: st?.mtimeMs ?? 0 };
    };
    const ask = (rel: string, maxBytes = 1_000_000, seen = checked(rel)) => pool.parseFile(rel, path.join(root, rel), maxBytes, seen);
    assert.deepEqual(await ask('src/Pipe.java'), { unreadable: true }); // a FIFO: never opened for a blocking read
    assert.deepEqual(await ask('src/Ext.java'), { unreadable: true }); // a symbolic link out of the project
    assert.deepEqual(await ask('out/Outside.java'), { unreadable: true }); // through a linked folder
    assert.deepEqual(await ask('src/App.java', 10), { unreadable: true }); // over the byte bound
    // UTF-16 big-endian by its BOM, but an odd number of bytes: read (the odd byte as U+FFFD), never a dead worker.
    fs.writeFileSync(path.join(root, 'src/Odd.java'), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('\0c\0l\0a\0s\0s\0 \0O\0d\0d\0 \0{\0}', 'latin1'), Buffer.from([0x41])]));
    const odd = await ask('src/Odd.java');
    assert.equal(pool.alive, true, 'a file took the worker down');
    assert.equal(declsOf(odd.packed).types[0]?.name, 'Odd');
    const app = await ask('src/App.java');
    assert.equal(declsOf(app.packed).types[0].fqn, 'app.App');
    // Replaced after the check (another file now, or the same name hard-linked to a secret one):
    // the worker does not parse it, the main thread checks it again.
    const before = checked('src/App.java');
    fs.renameSync(path.join(root, 'src/App.java'), path.join(root, 'src/App.old'));
    fs.writeFileSync(path.join(root, 'src/App.java'), 'package app;\nclass Swapped { /* a different file */ }\n');
    assert.deepEqual(await ask('src/App.java', 1_000_000, before), { changed: true });
    fs.linkSync(path.join(root, '.git/config'), path.join(root, 'src/Config.java'));
    assert.deepEqual(await ask('src/Config.java'), { changed: true }); // two names: only the checker judges links
  } finally {
    await pool.close();
    tree.remove();
  }
});

test('files a worker finds changed since the main thread checked them are checked and read again there: none is lost', { timeout: BUILD_DEADLINE_MS }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-changed-'));
  try {
    for (let i = 0; i < 80; i++) fs.writeFileSync(path.join(root, `F${i}.java`), `class F${i} { void f() { new F${(i + 1) % 80}().f(); } }\n`);
    // Every stat the index makes is 5 ms off what the workers' handles show: every file looks replaced.
    class Skewed extends NodeWorkspace {
      override async stat(abs: string) {
        const s = await super.stat(abs);
        return s && { ...s, mtimeMs: s.mtimeMs + 5 };
      }
    }
    const skewed = new CodeIndex(new Skewed(root), { workers: 2 });
    await skewed.ready();
    const plain = new CodeIndex(new NodeWorkspace(root), { workers: 0 });
    await plain.ready();
    assert.equal(skewed.fileCount, 80);
    assert.deepEqual([...skewed.allFiles()], [...plain.allFiles()]);
    const calls = (index: CodeIndex) => [...index.typeEntries()].flatMap((owner) => owner.type.methods.map((method) => index.callsOf({ owner, method }).length));
    assert.deepEqual(calls(skewed), calls(plain));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
