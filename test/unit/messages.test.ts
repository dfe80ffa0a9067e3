import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_MESSAGE_BYTES, parseServerMessage, toolFailure, toolSuccess, ToolResultSchema } from '../../src/core/protocol/messages';

test('TOOL_CALL in the root shape parses with its id key', () => {
  const out = parseServerMessage(JSON.stringify({
    type: 'TOOL_CALL', toolCallId: 'grep_file-1', toolName: 'grep_file',
    params: { pattern: 'TODO', projectKey: 'p' }, webSocketSessionId: 'ws-1',
  }));
  assert.equal(out.ok, true);
  assert.ok(out.ok === true && out.message.type === 'TOOL_CALL');
  const call = out.message.call;
  assert.deepEqual(
    { id: call.id, idKey: call.idKey, toolName: call.toolName, ws: call.webSocketSessionId },
    { id: 'grep_file-1', idKey: 'toolCallId', toolName: 'grep_file', ws: 'ws-1' },
  );
  assert.equal(call.params.pattern, 'TODO');
});

test('TOOL_CALL in the data shape parses with callId', () => {
  const out = parseServerMessage(JSON.stringify({
    type: 'TOOL_CALL', data: { callId: 'call-456', toolName: 'read_class', params: { className: 'X' }, projectPath: '/p' },
  }));
  assert.ok(out.ok === true && out.message.type === 'TOOL_CALL');
  assert.equal(out.message.call.id, 'call-456');
  assert.equal(out.message.call.idKey, 'callId');
  assert.equal(out.message.call.projectPath, '/p');
});

test('root-level fields win over data fields', () => {
  const out = parseServerMessage(JSON.stringify({
    type: 'TOOL_CALL', toolCallId: 'root', toolName: 'read_file', params: { relativePath: 'a' },
    data: { callId: 'inner', toolName: 'grep_file', params: { pattern: 'x' } },
  }));
  assert.ok(out.ok === true && out.message.type === 'TOOL_CALL');
  assert.equal(out.message.call.id, 'root');
  assert.equal(out.message.call.toolName, 'read_file');
  assert.deepEqual(out.message.call.params, { relativePath: 'a' });
});

test('trace ids are picked up under either spelling', () => {
  const out = parseServerMessage(JSON.stringify({ type: 'TOOL_CALL', toolCallId: 'a', toolName: 't', params: {}, trace_id: 'tr_1' }));
  assert.ok(out.ok === true && out.message.type === 'TOOL_CALL');
  assert.equal(out.message.call.traceId, 'tr_1');
});

test('a TOOL_CALL without toolName is refused with a BAD_REQUEST reply to its id', () => {
  const out = parseServerMessage(JSON.stringify({ type: 'TOOL_CALL', toolCallId: 'x1', params: {} }));
  assert.equal(out.ok, false);
  assert.ok(out.ok === false && out.reply);
  assert.equal(out.reply.data.toolCallId, 'x1');
  assert.equal(out.reply.data.success, false);
  assert.equal(out.reply.data.code, 'BAD_REQUEST');
  assert.match(out.reply.data.error ?? '', /toolName/);
});

test('a TOOL_CALL with params of the wrong type names the field', () => {
  const out = parseServerMessage(JSON.stringify({ type: 'TOOL_CALL', callId: 'c', toolName: 'read_file', params: 'nope' }));
  assert.ok(out.ok === false && out.reply);
  assert.equal(out.reply.data.callId, 'c');
  assert.match(out.error, /params/);
});

test('malformed JSON, non-objects and missing type are clear errors', () => {
  for (const [raw, re] of [['{nope', /Malformed JSON/], ['[1,2]', /JSON object/], ['"x"', /JSON object/], ['{"a":1}', /"type"/]] as const) {
    const out = parseServerMessage(raw);
    assert.equal(out.ok, false, raw);
    assert.ok(out.ok === false);
    assert.match(out.error, re);
  }
});

test('a message over 10 MB is refused without parsing', () => {
  const big = Buffer.alloc(MAX_MESSAGE_BYTES + 1, 0x20);
  const out = parseServerMessage(big);
  assert.ok(out.ok === false);
  assert.match(out.error, /exceeds/);
});

test('server messages of known types are validated; unknown types are ignored, not errors', () => {
  const ok = parseServerMessage(JSON.stringify({ type: 'THINKING', data: { thinking: '...', percent: 30 } }));
  assert.ok(ok.ok === true && ok.message.type === 'THINKING');
  const bad = parseServerMessage(JSON.stringify({ type: 'THINKING', data: { percent: 'lots' } }));
  assert.equal(bad.ok, false);
  const unknown = parseServerMessage(JSON.stringify({ type: 'SOMETHING_NEW', data: {} }));
  assert.deepEqual(unknown, { ok: 'ignored', type: 'SOMETHING_NEW' });
  const connected = parseServerMessage(JSON.stringify({ type: 'CONNECTED', data: { requestId: 'req-1', serverTime: 1 } }));
  assert.ok(connected.ok === true && connected.message.type === 'CONNECTED');
  assert.equal(connected.message.data?.requestId, 'req-1');
});

test('results put every field in data and echo the id under the call\'s key', () => {
  const ok = toolSuccess({ id: 'call-1', idKey: 'callId', traceId: 'tr' }, 'hello', 12);
  assert.deepEqual(ok, { type: 'TOOL_RESULT', data: { toolCallId: 'call-1', callId: 'call-1', success: true, result: 'hello', executionTime: 12, traceId: 'tr' } });
  assert.equal(ToolResultSchema.safeParse(ok).success, true);
  const bad = toolFailure({ id: 'g-1', idKey: 'toolCallId' }, 'NOT_FOUND', 'File not found: a', 3);
  assert.deepEqual(bad, { type: 'TOOL_RESULT', data: { toolCallId: 'g-1', success: false, error: 'File not found: a', code: 'NOT_FOUND', executionTime: 3 } });
  assert.equal(ToolResultSchema.safeParse(bad).success, true);
});

test('COMMANDS (the backend\'s / menu) parses when well formed; a hostile list is refused, not half taken', () => {
  const ok = parseServerMessage(JSON.stringify({ type: 'COMMANDS', data: { commands: [{ name: 'grep', description: 'searches' }, { name: 'help' }] } }));
  assert.equal(ok.ok, true);
  assert.deepEqual(ok.ok === true && ok.message.type === 'COMMANDS' ? ok.message.data.commands.map((c) => c.name) : [], ['grep', 'help']);
  for (const commands of [
    [{ name: 'has space' }],
    [{ name: '<img src=x>' }],
    [{ name: 'x', description: 'd'.repeat(301) }],
    Array.from({ length: 101 }, (_, i) => ({ name: `c${i}` })),
  ]) {
    assert.equal(parseServerMessage(JSON.stringify({ type: 'COMMANDS', data: { commands } })).ok, false);
  }
});
