/**
 * The hostile-agent suite: one write built to hold the host. A MultiEdit may not match on a text
 * its own first edit grew past the matching bounds (1,000,000 lines, 16 MB): matching keeps a few
 * copies of the text's lines, so 60 M lines took 2 GB.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../../src/core/log';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';

function project(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-writeanswers-')));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
  return root;
}

const dispatcher = (root: string) =>
  new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });

test('a MultiEdit whose first edit grows the text past the matching bound cannot match on it: refused, nothing written', async () => {
  // 200,000 characters on one line; the first edit makes 3 M lines of them, past the 1,000,000-line bound.
  const original = `${'x'.repeat(200_000)}\n`;
  const root = project({ 'g.txt': original });
  const d = dispatcher(root);
  const edits = [
    { old_string: 'x', new_string: 'a\n'.repeat(15), replace_all: true },
    { old_string: 'a\na\n', new_string: 'b', replace_all: true },
  ];
  const r = await d.dispatch({ id: 'grow-then-match', idKey: 'toolCallId', toolName: 'MultiEdit', params: { file_path: 'g.txt', edits } });
  assert.equal(r.data.success, false, 'the second edit must not match on 3 M lines');
  assert.equal(r.data.code, 'BAD_REQUEST');
  assert.match(r.data.error ?? '', /Error in edit 2 of 2 .*too large to edit by matching text/);
  assert.equal(fs.readFileSync(path.join(root, 'g.txt'), 'utf8'), original);
});
