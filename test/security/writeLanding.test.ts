/**
 * The hostile-agent suite: how a headless write lands next to the developer's own saves and on
 * names near the file system's limit. The real tools through the dispatcher over a real folder,
 * with the headless host's writer.
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
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';

/**
 * A project whose writer, for its first change only, runs `beforeRename` at the last check it makes
 * before it puts the new file in place (the path judged again while the change is being written):
 * the instant after the original was read and the new text made beside it.
 */
function project(beforeRename?: (change: ProposedChange) => void) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-landing-')));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const writer = new DirectWriteGate();
  let hooked = false;
  const gate: ChangeGate = {
    commit(change, signal) {
      if (beforeRename && !hooked) {
        const recheck = change.judged.recheck.bind(change.judged);
        change.judged.recheck = async (when) => {
          await recheck(when);
          if (!hooked && when === 'while the change was being written') {
            hooked = true;
            beforeRename(change);
          }
        };
      }
      return writer.commit(change, signal);
    },
  };
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: gate });
  let n = 0;
  const call = async (toolName: string, params: Record<string, unknown>) => (await d.dispatch({ id: `l${++n}`, idKey: 'toolCallId', toolName, params })).data;
  return { root, call };
}

/** What an editor does on save: the whole text to a new file beside it, renamed over the name. */
function atomicSave(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.editor-save`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

test("the developer's atomic save between the writer's read and its rename is kept: CONFLICT, nothing of the change written", async () => {
  const p = project((change) => atomicSave(change.path.abs, 'counter 0\nthe developer saved this\n'));
  const file = path.join(p.root, 'notes.md');
  fs.writeFileSync(file, 'counter 0\n');
  const r = await p.call('Edit', { file_path: 'notes.md', old_string: 'counter 0', new_string: 'counter 1' });
  assert.equal(r.success, false, 'the edit must not claim success over the developer’s save');
  assert.equal(r.code, 'CONFLICT', String(r.error));
  assert.match(String(r.error), /notes\.md.*saved by another program.*nothing of this change was written/);
  assert.equal(fs.readFileSync(file, 'utf8'), 'counter 0\nthe developer saved this\n');
  assert.deepEqual(fs.readdirSync(p.root).sort(), ['notes.md'], 'no temp file left');
  // Read again, the same edit goes through.
  const again = await p.call('Edit', { file_path: 'notes.md', old_string: 'counter 0', new_string: 'counter 1' });
  assert.equal(again.success, true, String(again.error));
  assert.equal(fs.readFileSync(file, 'utf8'), 'counter 1\nthe developer saved this\n');
});

test('a file whose name is near the 255-byte limit is edited, replaced and created like any other', async () => {
  const p = project();
  // 251 + ".txt" = 255 bytes, the longest name Linux, macOS and Windows file systems take.
  const long = `${'n'.repeat(251)}.txt`;
  fs.writeFileSync(path.join(p.root, long), 'version = 1\n');
  const edit = await p.call('Edit', { file_path: long, old_string: 'version = 1', new_string: 'version = 2' });
  assert.equal(edit.success, true, String(edit.error));
  assert.equal(fs.readFileSync(path.join(p.root, long), 'utf8'), 'version = 2\n');
  const replace = await p.call('Replace', { file_path: long, content: 'replaced\n' });
  assert.equal(replace.success, true, String(replace.error));
  assert.equal(fs.readFileSync(path.join(p.root, long), 'utf8'), 'replaced\n');
  // Multibyte: 120 × "é" (2 bytes) + ".md" = 243 bytes.
  const made = `${'é'.repeat(120)}.md`;
  const create = await p.call('Replace', { file_path: `docs/${made}`, content: 'new\n' });
  assert.equal(create.success, true, String(create.error));
  assert.equal(fs.readFileSync(path.join(p.root, 'docs', made), 'utf8'), 'new\n');
  assert.deepEqual(fs.readdirSync(p.root).sort(), ['docs', long].sort(), 'no temp file left');
  assert.deepEqual(fs.readdirSync(path.join(p.root, 'docs')), [made]);
  // A name the file system cannot hold: a clear refusal that names no absolute path.
  const tooLong = await p.call('Replace', { file_path: `${'x'.repeat(300)}.txt`, content: 'x\n' });
  assert.equal(tooLong.success, false);
  assert.ok(!String(tooLong.error).includes(p.root), `the answer names an absolute path: ${String(tooLong.error)}`);
  assert.ok(!String(tooLong.error).includes('/proc/'), `the answer names a handle path: ${String(tooLong.error)}`);
});
