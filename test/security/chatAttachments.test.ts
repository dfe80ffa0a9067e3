/**
 * The hostile-agent suite, chat attachments: what the developer attaches to a message (Add File or
 * Add Selection to Chat, an `@` mention) leaves through the same door as read_file. A path the agent
 * planted in the repository (a symbolic link named like an ordinary file, a FIFO, a hard link to a
 * secret) must not carry a secret out with the developer's message, nor hang the host, nor quote
 * the secret in the refusal.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { MAX_CONTEXT_BYTES, MAX_CONTEXT_ITEMS, readContext } from '../../src/core/chat/attachments';
import { messageWithContext } from '../../src/core/chat/contextMessage';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { ALL_CANARIES, hostileTree } from '../support/hostile';

describe('chat attachments against a hostile repository', () => {
  const tree = hostileTree();
  after(() => tree.remove());
  const ws = new NodeWorkspace(tree.root);

  const refused = async (rel: string, code: string) => {
    const err = await readContext(ws, [{ path: rel }]).then(
      () => assert.fail(`${rel} was attached`),
      (e: unknown) => e as { code?: string; message: string },
    );
    assert.equal(err.code, code, `${rel}: ${err.message}`);
    for (const canary of ALL_CANARIES) assert.ok(!err.message.includes(canary), `the refusal for ${rel} quotes a secret`);
  };

  test('secret files, and links named like ordinary files that lead to them, are refused', async () => {
    await refused('.env', 'PERMISSION_DENIED');
    await refused('id_rsa', 'PERMISSION_DENIED');
    await refused('.envrc', 'PERMISSION_DENIED');
    await refused('notes.txt', 'PERMISSION_DENIED'); // a symbolic link to .env
  });

  test('a path outside the project, directly or through a link, is refused', async () => {
    await refused('../elsewhere/notes.txt', 'PERMISSION_DENIED');
    await refused(path.join(tree.outside, 'notes.txt'), 'PERMISSION_DENIED');
    await refused('out/notes.txt', 'PERMISSION_DENIED');
    await refused('src/Ext.java', 'PERMISSION_DENIED');
  });

  test('a hard link to a secret file is refused', async () => {
    fs.linkSync(path.join(tree.root, '.env'), path.join(tree.root, 'src/config.txt'));
    try {
      await refused('src/config.txt', 'PERMISSION_DENIED');
    } finally {
      fs.rmSync(path.join(tree.root, 'src/config.txt'));
    }
  });

  test('a FIFO is refused at once instead of hanging the host', async () => {
    const started = Date.now();
    await refused('pipe.txt', 'BAD_REQUEST');
    await refused('src/Pipe.java', 'BAD_REQUEST');
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  });

  test('one refused attachment refuses the message: nothing of the others is read into it', async () => {
    await assert.rejects(readContext(ws, [{ path: 'src/App.java' }, { path: '.env' }]), (e: { code?: string }) => e.code === 'PERMISSION_DENIED');
  });

  test('bounded: more than MAX_CONTEXT_ITEMS refs are refused, and a huge file is cut to the byte budget at a line', async () => {
    const many = Array.from({ length: MAX_CONTEXT_ITEMS + 1 }, () => ({ path: 'src/App.java' }));
    await assert.rejects(readContext(ws, many), (e: { code?: string }) => e.code === 'BAD_REQUEST');
    const big = path.join(tree.root, 'big.log');
    fs.writeFileSync(big, `${'x'.repeat(99)}\n`.repeat(10_000)); // ~1 MB
    try {
      const [item] = await readContext(ws, [{ path: 'big.log' }]);
      assert.equal(item.truncated, true);
      assert.ok(Buffer.byteLength(item.text) <= MAX_CONTEXT_BYTES);
      assert.equal(item.text.split('\n').length, item.endLine);
      assert.ok(item.text.split('\n').every((l) => l.length === 99), 'cut inside a line');
      assert.match(messageWithContext('look', [item]), /big\.log:1-\d+ \(truncated\)/);
    } finally {
      fs.rmSync(big);
    }
  });

  test('a range outside the file is refused; a range inside is what is sent', async () => {
    await assert.rejects(readContext(ws, [{ path: 'src/App.java', startLine: 50, endLine: 60 }]), (e: { code?: string }) => e.code === 'BAD_REQUEST');
    const [item] = await readContext(ws, [{ path: 'src/App.java', startLine: 4, endLine: 6 }]);
    assert.deepEqual(item, { path: 'src/App.java', startLine: 4, endLine: 6, text: 'public class App {\n  public void run() {\n    new Helper().help();' });
  });
});

describe('chat attachments: lines as the editor counts them', () => {
  test('a lone CR breaks a line, so a range sends the lines the developer selected; an empty file attaches as one empty line', async () => {
    const tree = hostileTree();
    try {
      fs.writeFileSync(path.join(tree.root, 'cr.txt'), 'line1\rline2\nline3\nline4\n');
      fs.writeFileSync(path.join(tree.root, 'empty.txt'), '');
      const ws = new NodeWorkspace(tree.root);
      const [item] = await readContext(ws, [{ path: 'cr.txt', startLine: 3, endLine: 3 }]);
      assert.equal(item.text, 'line3');
      const [empty] = await readContext(ws, [{ path: 'empty.txt' }]);
      assert.deepEqual([empty.startLine, empty.endLine, empty.text], [1, 1, '']);
    } finally {
      tree.remove();
    }
  });
});
