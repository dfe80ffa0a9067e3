/**
 * Before the code index is built, read_class and call_chain find the files declaring a class with
 * ripgrep and keep those the index would read (intel/quickLookup.ts). Whether a file under a
 * `build/` or `out/` folder is read depends on a build file beside that folder, so the folder's
 * parent is looked into. A hostile repository puts thousands of declaring files under one such
 * folder, beside tens of thousands of other entries: reading the parent again, at once, for each
 * file held the host's event loop for tens of seconds. Each question here runs on a fresh host:
 * the event loop is never held more than 500 ms, and the answer is the built index's. Named
 * `.slow` because each test builds such a tree: `npm run test:fast` leaves it out, `npm test` runs it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { closeColdParsePool } from '../../src/core/code/intel/coldParse';
import { codeIntelFor, configureCodeIndexes, dropCodeIntel } from '../../src/core/code/intel/intel';
import { filesDeclaring, QUICK_LOOKUP_LIMITS } from '../../src/core/code/intel/quickLookup';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import type { ToolResultMessage } from '../../src/core/protocol/messages';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { heldDuring } from '../support/loopDelay';

/** Far below what reading the crowded folder once per file costs, far above a loaded machine's hiccups. */
const MAX_HELD_MS = 500;
/** Entries beside the output folder: each read of the folder lists them all. */
const CROWD = 10_000;
/** Files declaring `Foo` inside the output folder: below the bound on the files a cold answer looks at. */
const DECLARING = 400;

/** `p/pom.xml` makes `p/build/` output: the index reads none of its files. */
function crowdedProject(): string {
  const root = makeTree({ 'p/pom.xml': '<project/>\n', 'src/app/Other.java': 'package app;\n\nclass Other {}\n' }, 'ab-coldfolders-');
  for (let i = 0; i < CROWD; i++) fs.writeFileSync(path.join(root, 'p', `e${i}`), '');
  fs.mkdirSync(path.join(root, 'p', 'build'));
  for (let i = 0; i < DECLARING; i++) fs.writeFileSync(path.join(root, 'p', 'build', `F${i}.java`), 'class Foo {}\n');
  return root;
}

const root = crowdedProject();

before(() => configureCodeIndexes({}));
after(async () => {
  configureCodeIndexes({});
  await closeColdParsePool();
});

interface Asked {
  readonly answer: ToolResultMessage;
  readonly heldMs: number;
}

/** One tool call on a fresh host, with the event loop's worst delay meanwhile. */
async function askWatched(ws: NodeWorkspace, toolName: string, params: Record<string, unknown>): Promise<Asked> {
  const d = new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log: silentLogger });
  const { value: answer, heldMs } = await heldDuring(() => {
    assert.equal(codeIntelFor(ws).index.declarationsIn, false, 'a fresh host: the index is not built');
    return d.dispatch({ id: 'cold', idKey: 'toolCallId', toolName, params });
  });
  return { answer, heldMs };
}

test('read_class of a class declared only in thousands of output files beside a crowded folder: the loop stays free, NOT_FOUND', { timeout: 120_000 }, async () => {
  const ws = new NodeWorkspace(root);
  try {
    const r = await askWatched(ws, 'read_class', { className: 'Foo' });
    assert.ok(r.heldMs < MAX_HELD_MS, `the event loop was held ${Math.round(r.heldMs)} ms`);
    // `p/build/` is output beside `p/pom.xml`: the index has no Foo
    assert.equal(r.answer.data.code, 'NOT_FOUND', `${r.answer.data.code}: ${r.answer.data.error}`);
  } finally {
    await codeIntelFor(ws).index.ready();
    dropCodeIntel(ws);
  }
});

test('call_chain on a class declared only in those output files: the loop stays free, the index answers', { timeout: 120_000 }, async () => {
  const ws = new NodeWorkspace(root);
  try {
    const r = await askWatched(ws, 'call_chain', { method: 'Foo.go', direction: 'callers' });
    assert.ok(r.heldMs < MAX_HELD_MS, `the event loop was held ${Math.round(r.heldMs)} ms`);
    assert.equal(r.answer.data.success, false, 'no Foo in the index');
    assert.equal(r.answer.data.code, 'NOT_FOUND', `${r.answer.data.code}: ${r.answer.data.error}`);
  } finally {
    await codeIntelFor(ws).index.ready();
    dropCodeIntel(ws);
  }
});

test('past the bound on declaring files, a cold lookup gives the question to the index, which still answers', { timeout: 120_000 }, async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) files[`src/app/Bar${i}.java`] = `package app;\n\nclass Bar${i} { class Foo {} }\n`;
  const many = makeTree(files, 'ab-coldfolders-many-');
  const saved = QUICK_LOOKUP_LIMITS.maxDeclaringFiles;
  QUICK_LOOKUP_LIMITS.maxDeclaringFiles = 20;
  const ws = new NodeWorkspace(many);
  try {
    assert.equal(await filesDeclaring(ws, 'Foo'), undefined, 'more declaring files than the bound: the index answers');
    assert.equal((await filesDeclaring(ws, 'Bar7'))?.length, 1, 'below the bound: the files are listed');
    const r = await askWatched(ws, 'read_class', { className: 'Bar3.Foo' });
    assert.ok(r.answer.data.success, `${r.answer.data.code}: ${r.answer.data.error}`);
    assert.match(JSON.stringify(r.answer.data.result), /Bar3/);
  } finally {
    QUICK_LOOKUP_LIMITS.maxDeclaringFiles = saved;
    await codeIntelFor(ws).index.ready();
    dropCodeIntel(ws);
  }
});
