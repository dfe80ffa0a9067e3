/**
 * The source listing the code index and the cold lookups start from (`listSourceFiles`): which
 * folders it skips, that it never follows a link to a folder, that it agrees with `IndexedPathRule`
 * (the same rule decided from a path alone), and that a wide tree read many folders at a time
 * gives the same sorted list every time.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { IndexedPathRule, listSourceFiles } from '../../src/core/code/languages/sourceFiles';
import { makeTree } from '../support/fixtures';

test('the listing skips dot folders, dependencies and build output beside a build file, and follows no folder link', async () => {
  const root = makeTree({
    'src/A.java': 'class A {}',
    'src/notes.txt': 'x',
    '.git/B.java': 'class B {}',
    'node_modules/m/c.ts': 'export const c = 1;',
    'target/Gen.java': 'class Gen {}',
    'mod/pom.xml': '<project/>',
    'mod/target/Out.java': 'class Out {}',
    'mod/src/M.java': 'class M {}',
    'deep/com/acme/build/Builder.java': 'class Builder {}',
    'py/pkg/__pycache__/x.py': '',
    'py/pkg/y.py': 'def y(): pass',
  });
  const outside = makeTree({ 'Far.java': 'class Far {}' });
  fs.symlinkSync(outside, path.join(root, 'linked'), 'dir');
  fs.symlinkSync(path.join(root, 'src', 'A.java'), path.join(root, 'src', 'Alias.java'));
  try {
    const listed = await listSourceFiles(root);
    assert.deepEqual(listed, ['deep/com/acme/build/Builder.java', 'mod/src/M.java', 'py/pkg/y.py', 'src/A.java', 'src/Alias.java']);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  }
});

test('a wide and deep tree: every file once, sorted, the same as IndexedPathRule says, run after run', async () => {
  const files: Record<string, string> = {};
  for (let a = 0; a < 30; a++) {
    for (let b = 0; b < 8; b++) files[`m${a}/p${b}/q/C${a}_${b}.java`] = 'class C {}';
    if (a % 3 === 0) files[`m${a}/build.gradle`] = '';
    files[`m${a}/build/G${a}.java`] = 'class G {}';
  }
  const root = makeTree(files);
  try {
    const rule = new IndexedPathRule(root);
    const indexed = await Promise.all(Object.keys(files).map(async (rel) => ((await rule.includes(rel)) ? [rel] : [])));
    const expected = indexed.flat().sort();
    assert.equal(expected.length, 30 * 8 + 20, 'build/ is skipped only beside a build file');
    for (let run = 0; run < 3; run++) assert.deepEqual(await listSourceFiles(root), expected);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('an aborted listing stops with an error instead of a partial list', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-list-'));
  for (let i = 0; i < 50; i++) fs.mkdirSync(path.join(root, `d${i}`, 'e'), { recursive: true });
  try {
    const ctl = new AbortController();
    ctl.abort();
    await assert.rejects(listSourceFiles(root, ctl.signal), /cancelled/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('callers at the same moment share one walk, each with its own copy; a later call walks again; a cancelled caller stops no other', async () => {
  const root = makeTree({ 'a/A.java': 'class A {}', 'b/B.kt': 'class B', 'c/notes.md': '' });
  try {
    const ctl = new AbortController();
    ctl.abort();
    const [one, two, cancelled] = await Promise.allSettled([listSourceFiles(root), listSourceFiles(root), listSourceFiles(root, ctl.signal)]);
    assert.equal(cancelled.status, 'rejected');
    assert.ok(one.status === 'fulfilled' && two.status === 'fulfilled');
    assert.deepEqual(one.value, ['a/A.java', 'b/B.kt']);
    assert.deepEqual(two.value, one.value);
    assert.notEqual(two.value, one.value, 'each caller its own array');
    one.value.length = 0;
    assert.deepEqual(two.value, ['a/A.java', 'b/B.kt']);
    // finished walks are not kept: a file added since is listed
    fs.writeFileSync(path.join(root, 'c', 'C.py'), 'x = 1');
    assert.deepEqual(await listSourceFiles(root), ['a/A.java', 'b/B.kt', 'c/C.py']);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
