import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { contextLabel, messageWithContext } from '../../src/core/chat/contextMessage';
import { fenceFor } from '../../src/core/workspace/text';
import { FUZZY_SLICE, fuzzyFilterYielding, fuzzyScore } from '../../src/core/chat/fuzzy';
import { Mentions } from '../../src/core/chat/mentions';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { CallGraph } from '../../src/core/code/index/callGraph';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { dropCodeIntel } from '../../src/core/code/intel/intel';
import { peekCodeIntel, setCodeIntel } from '../../src/core/code/intel/state';

const files = [
  'src/main/java/com/acme/order/OrderService.java',
  'src/main/java/com/acme/order/OrderServiceImpl.java',
  'src/test/java/com/acme/order/OrderServiceTest.java',
  'src/main/java/com/acme/os/Screen.java',
  'docs/ordering.md',
  'README.md',
  'package.json',
];

/** The `limit` best matches of `query` among `items`, with no newer query to stop it. */
async function rank(query: string, items: readonly string[], limit: number): Promise<string[]> {
  return (await fuzzyFilterYielding(query, items, (f) => f, limit, () => false)) ?? [];
}

test('fuzzy: the file name is preferred over the folders, an exact name or prefix first', async () => {
  assert.deepEqual(await rank('OrderService', files, 3), files.slice(0, 3));
  assert.equal((await rank('ordersvc', files, 1))[0], files[0]);
  assert.equal((await rank('readme', files, 1))[0], 'README.md');
  assert.equal((await rank('pkg', files, 1))[0], 'package.json');
  // Camel humps: OSI is OrderServiceImpl, not a scattered match in a path.
  assert.equal((await rank('OSI', files, 1))[0], files[1]);
  // With a slash, the folders count: test/ narrows to the test tree.
  assert.equal((await rank('test/order', files, 1))[0], files[2]);
});

test('fuzzy: no match is undefined; every character must appear in order', () => {
  assert.equal(fuzzyScore('xyz', 'src/Main.java'), undefined);
  assert.equal(fuzzyScore('avaj', 'src/Main.java'), undefined);
  assert.equal(fuzzyScore('', 'anything'), 0);
  fc.assert(
    fc.property(fc.string({ maxLength: 8 }), fc.string({ maxLength: 40 }), (q, c) => {
      const s = fuzzyScore(q, c);
      const lower = c.toLowerCase();
      let at = 0;
      const inOrder = [...q.trim().toLowerCase().replace(/\\/g, '/')].every((ch) => {
        const i = lower.indexOf(ch, at);
        at = i + 1;
        return i >= 0;
      });
      assert.equal(s !== undefined, inOrder, `${JSON.stringify(q)} in ${JSON.stringify(c)}`);
    }),
  );
});

test('an attachment goes into the message as a fenced block under its path:lines label, never closable by its own backticks', () => {
  const item = { path: 'src/A.ts', startLine: 3, endLine: 5, text: 'const a = 1;\n```\nnot the end' };
  const m = messageWithContext('Why does this fail?', [item, { path: 'x/B.java', startLine: 7, endLine: 7, text: 'int b;' }]);
  assert.ok(m.startsWith('Why does this fail?\n\nAttached by the developer:\n\nsrc/A.ts:3-5\n````typescript\nconst a = 1;'), m);
  assert.ok(m.endsWith('x/B.java:7\n```java\nint b;\n```'), m);
  assert.equal(fenceFor('a ````` b'), '``````');
  assert.equal(messageWithContext('plain', []), 'plain');
  assert.equal(contextLabel(item, true), 'src/A.ts');
});

test('@ ranking of a monorepo-sized list: the event loop turns between slices, and a newer query stops an older one', async () => {
  const many = Array.from({ length: 3 * FUZZY_SLICE + 7 }, (_, i) => `src/pkg${i % 97}/File${i}.java`);
  const order: string[] = [];
  setImmediate(() => order.push('turn'));
  const ranked = await fuzzyFilterYielding('file12', many, (f) => f, 5, () => false);
  order.push('done');
  assert.deepEqual(order, ['turn', 'done'], 'another task ran while the list was ranked');
  assert.deepEqual(ranked, ['src/pkg12/File12.java', 'src/pkg23/File120.java', 'src/pkg24/File121.java', 'src/pkg25/File122.java', 'src/pkg26/File123.java'], 'the exact name, then the prefixes in list order, across slices');
  let asked = 0;
  let scored = 0;
  const stopped = await fuzzyFilterYielding('file', many, (f) => (scored++, f), 5, () => ++asked > 1);
  assert.equal(stopped, undefined);
  assert.equal(scored, FUZZY_SLICE, 'nothing scored after the query went stale');

  // Through Mentions, on a real folder: the first of two keystrokes gets no answer, the newest does.
  const root = makeTree(Object.fromEntries(Array.from({ length: FUZZY_SLICE + 500 }, (_, i) => [`src/p${i % 50}/Name${i}.txt`, ''])), 'ab-mentions-');
  const mentions = new Mentions(new NodeWorkspace(root));
  await mentions.suggest('warm the file list');
  const [first, second] = await Promise.all([mentions.suggest('name1'), mentions.suggest('name10499')]);
  assert.equal(first, undefined);
  assert.deepEqual(second?.slice(0, 1).map((m) => m.path), ['src/p49/Name10499.txt']);
});

test('the first @ starts the code index; once its declarations are in, @isBlan offers the method, an exact name first', async () => {
  const root = makeTree(
    {
      'src/p/StringUtils.java': 'package p;\npublic class StringUtils { public static boolean isBlank(String s) { return s == null; } }\n',
      'src/p/isBlankCheck.txt': 'notes\n',
    },
    'ab-mentions-',
  );
  const ws = new NodeWorkspace(root);
  try {
    const mentions = new Mentions(ws);
    const symbols = async (q: string) => ((await mentions.suggest(q)) ?? []).filter((m) => m.kind === 'symbol').map((m) => m.label);
    assert.deepEqual(await symbols('isBlan'), [], 'no index yet: files only, and the build starts');
    const intel = peekCodeIntel(ws);
    assert.ok(intel, 'the first @ started the code index');
    await intel.index.declarationsReady();
    assert.deepEqual(await symbols('isBlan'), ['StringUtils.isBlank']);
    const exact = (await mentions.suggest('isBlank')) ?? [];
    assert.deepEqual([exact[0]?.kind, exact[0]?.label], ['symbol', 'StringUtils.isBlank'], 'the exact name before the file that only contains it');
  } finally {
    await peekCodeIntel(ws)?.index.ready().catch(() => undefined);
    dropCodeIntel(ws);
  }
});

test('@ symbols follow the index: a class saved a moment ago is offered at the next keystroke', async () => {
  const root = makeTree({ 'src/p/Greeter.java': 'package p;\npublic class Greeter { void greet() {} }\n' }, 'ab-mentions-');
  const ws = new NodeWorkspace(root);
  const index = new CodeIndex(ws, { workers: 0 });
  setCodeIntel(ws, { index, graph: new CallGraph(index) });
  try {
    await index.ready();
    const mentions = new Mentions(ws);
    const symbols = async (q: string) => ((await mentions.suggest(q)) ?? []).filter((m) => m.kind === 'symbol').map((m) => m.label);
    assert.deepEqual(await symbols('Greeter.greet'), ['Greeter.greet']);
    fs.writeFileSync(path.join(root, 'src/p/Fresh.java'), 'package p;\npublic class Fresh { void hello() {} }\n');
    await index.update('src/p/Fresh.java');
    assert.deepEqual(await symbols('Fresh.hello'), ['Fresh.hello'], 'not the list of before the save');
  } finally {
    dropCodeIntel(ws);
  }
});
