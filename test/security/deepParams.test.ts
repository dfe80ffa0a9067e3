/**
 * The hostile-agent suite: a TOOL_CALL whose params nest thousands of levels deep. A few KB of
 * brackets must not end the host (code that walks params recursively runs out of stack): the
 * headless host, in its own process as in real use, gets such frames over a real loopback WebSocket,
 * answers each to its id with a clear error, stays up, and answers the next ordinary call.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { DevBackend, SessionInfo } from '../../src/devBackend/server';
import type { HostileTree } from '../support/hostile';
import { startHostProcess, type HostProcess } from '../support/hostProcess';

let host: HostProcess;
let tree: HostileTree;
let backend: DevBackend;
let session: SessionInfo;

before(async () => {
  host = await startHostProcess();
  ({ tree, backend, session } = host);
});

after(async () => {
  await host?.close();
});

/** `[[[…1…]]]`, `depth` arrays deep. */
const nested = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

async function answerTo(id: string, frame: string): Promise<Record<string, unknown>> {
  const answered = backend.waitForMessage((e) => (e.message?.data as Record<string, unknown> | undefined)?.toolCallId === id, 15_000);
  backend.sendRaw(session, frame);
  const event = await answered;
  return event.message?.data as Record<string, unknown>;
}

const frames: { what: string; id: string; frame: (id: string) => string }[] = [
  { what: 'a read, params at the root', id: 'deep-read', frame: (id) => `{"type":"TOOL_CALL","toolCallId":"${id}","toolName":"read_file","params":{"relativePath":${nested(5000)}}}` },
  { what: 'a write, params inside data', id: 'deep-write', frame: (id) => `{"type":"TOOL_CALL","data":{"toolCallId":"${id}","toolName":"Edit","params":{"file_path":"notes.md","old_string":"x","new_string":"y","extra":${nested(5000)}}}}` },
  { what: 'deep in a field the call does not use', id: 'deep-extra', frame: (id) => `{"type":"TOOL_CALL","toolCallId":"${id}","toolName":"read_file","params":{"relativePath":"notes.md"},"x":${nested(5000)}}` },
];

for (const { what, id, frame } of frames) {
  test(`a TOOL_CALL nested 5,000 deep (${what}) is answered BAD_REQUEST; the host stays up and answers the next call`, async () => {
    const before = fs.readFileSync(path.join(tree.root, 'notes.md'), 'utf8');
    const text = frame(id);
    assert.ok(Buffer.byteLength(text) < 12_000, 'a small frame');
    const answer = await answerTo(id, text);
    assert.equal(answer.success, false);
    assert.equal(answer.code, 'BAD_REQUEST', String(answer.error));
    assert.match(String(answer.error), /nest deeper than 64 levels/);
    await sleep(200);
    assert.equal(host.exited(), undefined, `the host ended: ${host.exited()}`);
    const next = (await backend.callTool('read_file', { relativePath: 'notes.md' }, { timeoutMs: 15_000 })).data as Record<string, unknown>;
    assert.equal(next.success, true, JSON.stringify(next).slice(0, 300));
    assert.match(String(next.result), /ordinary notes/);
    assert.equal(fs.readFileSync(path.join(tree.root, 'notes.md'), 'utf8'), before);
  });
}

test('params 60 levels deep are still accepted (the limit is on nesting, not on ordinary shapes)', async () => {
  const answer = await answerTo('shallow', `{"type":"TOOL_CALL","toolCallId":"shallow","toolName":"read_file","params":{"relativePath":"notes.md","extra":${nested(60)}}}`);
  assert.notEqual(answer.code, 'BAD_REQUEST', String(answer.error));
});

test('a TOOL_CALL whose params hold 300,000 keys is answered BAD_REQUEST at once; the host answers the next call', async () => {
  const keys = Array.from({ length: 300_000 }, (_, i) => `"k${i}":0`).join(',');
  const started = Date.now();
  const answer = await answerTo('wide', `{"type":"TOOL_CALL","toolCallId":"wide","toolName":"read_file","params":{"relativePath":"notes.md",${keys}}}`);
  assert.equal(answer.code, 'BAD_REQUEST', String(answer.error));
  assert.match(String(answer.error), /more than 50000 object keys/);
  const next = (await backend.callTool('read_file', { relativePath: 'notes.md' }, { timeoutMs: 15_000 })).data as Record<string, unknown>;
  assert.equal(next.success, true, JSON.stringify(next).slice(0, 300));
  assert.ok(Date.now() - started < 15_000, 'answered in good time');
});
