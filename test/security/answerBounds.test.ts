/**
 * Answers are bounded while tools build them, in what they cost on the wire (a control character is
 * 6 bytes of JSON), and every call gets exactly one answer whatever happens while it is serialized.
 * Found by review: call_chain with includeSource over methods whose one line was a 1.9 M-character
 * literal built an answer JSON.stringify could not hold (RangeError), and the call was never answered;
 * read_file and grep_file built answers of hundreds of MB and held the event loop for seconds.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as z from 'zod';
import { Bridge } from '../../src/core/link/bridge';
import { BridgeConnection } from '../../src/core/link/connection';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { callChainTool } from '../../src/core/tools/callChain';
import { defineTool } from '../../src/core/tools/tool';
import { startDevBackend } from '../../src/devBackend/server';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { rawToolCall, tempFolder } from '../support/headlessLink';
import { silentLogger } from '../support/silentLogger';
import { callTool } from '../support/tools';

const MB = 1024 * 1024;
/** What an answer's two parts cost as sent. */
const wireBytes = (out: { result?: string; structured?: unknown }): number => Buffer.byteLength(JSON.stringify({ result: out.result, structured: out.structured }));

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

test('call_chain includeSource bounds each method and all sources in bytes on the wire, cutting long lines with a note', async () => {
  const root = tempFolder('ab-callchain-src-');
  const literal = '\x01'.repeat(1_000_000);
  fs.mkdirSync(path.join(root, 'src'));
  for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(root, 'src', `f${i}.ts`), `export function f${i}() { return "${literal}"; }\n`);
  fs.writeFileSync(
    path.join(root, 'src', 'root.ts'),
    `${[0, 1, 2, 3].map((i) => `import { f${i} } from './f${i}';`).join('\n')}\nexport class Root {\n  run() {\n${[0, 1, 2, 3].map((i) => `    f${i}();`).join('\n')}\n  }\n}\n`,
  );
  const out = await callTool(callChainTool, new NodeWorkspace(root), { method: 'Root.run', direction: 'callees', depth: 1, includeSource: true });
  const bytes = wireBytes(out);
  // Uncut this was 48 MB: four 1 M-character lines, 6 bytes each, twice.
  assert.ok(bytes < 5 * MB, `the answer costs ${bytes} bytes on the wire`);
  assert.match(out.result, /source line\(s\) longer than 2000 characters were cut/);
  assert.match(out.result, /line cut: \d+ characters/);
  const structured = out.structured as { sources: Record<string, string>; omitted?: string[]; note?: string };
  assert.deepEqual(structured.omitted, ['sources']);
  assert.match(String(structured.note), /cut/);
  assert.ok(Object.keys(structured.sources).some((k) => k.startsWith('src/f0.ts')), JSON.stringify(Object.keys(structured.sources)));
});
