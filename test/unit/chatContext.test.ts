import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { contextLabel, messageWithContext } from '../../src/core/chat/contextMessage';
import { fenceFor } from '../../src/core/workspace/text';
import { fuzzyFilter, fuzzyScore } from '../../src/core/chat/fuzzy';

const files = [
  'src/main/java/com/acme/order/OrderService.java',
  'src/main/java/com/acme/order/OrderServiceImpl.java',
  'src/test/java/com/acme/order/OrderServiceTest.java',
  'src/main/java/com/acme/os/Screen.java',
  'docs/ordering.md',
  'README.md',
  'package.json',
];

test('fuzzy: the file name is preferred over the folders, an exact name or prefix first', () => {
  assert.deepEqual(fuzzyFilter('OrderService', files, (f) => f, 3), files.slice(0, 3));
  assert.equal(fuzzyFilter('ordersvc', files, (f) => f, 1)[0], files[0]);
  assert.equal(fuzzyFilter('readme', files, (f) => f, 1)[0], 'README.md');
  assert.equal(fuzzyFilter('pkg', files, (f) => f, 1)[0], 'package.json');
  // Camel humps: OSI is OrderServiceImpl, not a scattered match in a path.
  assert.equal(fuzzyFilter('OSI', files, (f) => f, 1)[0], files[1]);
  // With a slash, the folders count: test/ narrows to the test tree.
  assert.equal(fuzzyFilter('test/order', files, (f) => f, 1)[0], files[2]);
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
