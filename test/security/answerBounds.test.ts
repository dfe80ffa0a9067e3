/**
 * Answers are bounded while tools build them, in what they cost on the wire (a control character is
 * 6 bytes of JSON), and every call gets exactly one answer whatever happens while it is serialized.
 * Found by review: call_chain with includeSource over methods whose one line was a 1.9 M-character
 * literal built an answer JSON.stringify could not hold (RangeError), and the call was never answered;
 * read_file and grep_file built answers of hundreds of MB and held the event loop for seconds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { Bridge } from '../../src/core/link/bridge';
import { BridgeConnection } from '../../src/core/link/connection';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { defineTool } from '../../src/core/tools/tool';
import { startDevBackend } from '../../src/devBackend/server';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { rawToolCall, tempFolder } from '../support/headlessLink';
import { silentLogger } from '../support/silentLogger';

test('an answer too large to serialize is still answered once, INTERNAL_ERROR naming no content, and a retry with the same id gets that answer', async () => {
  const root = tempFolder('ab-unsendable-');
  let runs = 0;
  // One 16 M-character line of control characters, seen six times: over what one JavaScript string can hold once escaped.
  const huge = defineTool({
    name: 'huge',
    description: '',
    writes: false,
    params: z.object({}),
    handler: async () => {
      runs++;
      const line = '\x01'.repeat(16_000_000);
      return { result: 'ok', structured: [line, line, line, line, line, line] };
    },
  });
  const backend = await startDevBackend({ port: 0 });
  const connection = new BridgeConnection({ serverUrl: backend.wsUrl(), protocol: 'auto', sessionId: 'unsendable', projectKey: 'p', projectPath: root, log: silentLogger });
  const bridge = new Bridge(connection, new Dispatcher({ workspace: new NodeWorkspace(root), tools: [huge], log: silentLogger }), { log: silentLogger });
  connection.connect();
  try {
    const session = await backend.waitForSession(undefined, 5000);
    const answers: Record<string, unknown>[] = [];
    backend.onMessage((m) => {
      if (m.message?.type === 'TOOL_RESULT') answers.push(m.message.data as Record<string, unknown>);
    });
    for (let attempt = 1; attempt <= 2; attempt++) {
      backend.sendRaw(session, rawToolCall('huge-1', 'huge', {}));
      await backend.waitForMessage((m) => m.message?.type === 'TOOL_RESULT' && answers.length >= attempt, 20_000);
    }
    assert.equal(answers.length, 2);
    for (const a of answers) {
      assert.equal(a.toolCallId, 'huge-1');
      assert.equal(a.success, false);
      assert.equal(a.code, 'INTERNAL_ERROR');
      assert.match(String(a.error), /too large to send/);
      assert.ok(!JSON.stringify(a).includes('\\u0001'), 'the answer quotes none of the content');
    }
    assert.equal(runs, 1, 'the retry got the kept answer, not a second run');
  } finally {
    bridge.dispose();
    connection.disconnect();
    await backend.close();
  }
});
