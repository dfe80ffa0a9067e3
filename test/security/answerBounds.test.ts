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
import { after, test } from 'node:test';
import * as z from 'zod';
import { Bridge } from '../../src/core/link/bridge';
import { BridgeConnection } from '../../src/core/link/connection';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { MAX_MESSAGE_BYTES } from '../../src/core/protocol/messages';
import { wireCost } from '../../src/core/protocol/answerBudget';
import { callChainTool } from '../../src/core/tools/callChain';
import { grepFileTool } from '../../src/core/tools/grepFile';
import { readClassTool } from '../../src/core/tools/readClass';
import { readMethodTool } from '../../src/core/tools/readMethod';
import { defineTool } from '../../src/core/tools/tool';
import { startDevBackend } from '../../src/devBackend/server';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { headlessLink, rawToolCall, tempFolder } from '../support/headlessLink';
import { heldDuring } from '../support/loopDelay';
import { silentLogger } from '../support/silentLogger';
import { callTool } from '../support/tools';

const MB = 1024 * 1024;
/** What an answer's two parts cost as sent. */
const wireBytes = (out: { result?: string; structured?: unknown }): number => Buffer.byteLength(JSON.stringify({ result: out.result, structured: out.structured }));

test('the wire cost the tools count is what JSON.stringify sends, for control characters, quotes, non-ASCII and lone surrogates', () => {
  const samples = ['plain', '\x01\x1f\x00', '\n\r\t\b\f', '"\\', 'é€😀', '\ud800x', 'x\udc00', '\ud83d', '\u2028\u007f', ''];
  samples.push(samples.join(''));
  for (const text of samples) assert.equal(wireCost(text), Buffer.byteLength(JSON.stringify(text)) - 2, JSON.stringify(text));
});

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

test('read_class (full) and read_method cut long source lines and stay bounded in bytes on the wire', async () => {
  const root = tempFolder('ab-readcode-');
  const literal = '\x01'.repeat(400_000);
  // Under the parser's 2 MB per file. Three overloads and a long import line: every part of both answers meets a huge line.
  const source = `import { x } from './${'\x01'.repeat(200_000)}';\nexport class Big {\n${[0, 1, 2].map((i) => `  run(${'a'.repeat(i + 1)}: string): string { return "${literal}"; }`).join('\n')}\n}\n`;
  fs.writeFileSync(path.join(root, 'big.ts'), source);
  const ws = new NodeWorkspace(root);
  const full = await callTool(readClassTool, ws, { className: 'Big', mode: 'full' });
  assert.ok(wireBytes(full) < 2 * MB, `read_class costs ${wireBytes(full)} bytes on the wire`);
  assert.match(full.result, /line cut: \d+ characters/);
  assert.deepEqual((full.structured as { omitted?: string[] }).omitted, ['content']);
  const method = await callTool(readMethodTool, ws, { className: 'Big', methodName: 'run' });
  assert.ok(wireBytes(method) < 2 * MB, `read_method costs ${wireBytes(method)} bytes on the wire`);
  assert.match(method.result, /line\(s\) longer than 2000 characters were cut/);
  assert.equal((method.structured as { methods: unknown[] }).methods.length, 3);
  assert.deepEqual((method.structured as { omitted?: string[] }).omitted, ['methods.code']);
});

test('grep_file with a large limit and context over lines of control characters builds an answer within the message limit, saying how many matches it left out', async () => {
  const root = tempFolder('ab-grep-ctrl-');
  const line = '\x01'.repeat(399);
  const body = `${Array.from({ length: 101 }, (_, i) => (i === 50 ? `HIT${line.slice(3)}` : line)).join('\n')}\n`;
  fs.mkdirSync(path.join(root, 'd'));
  for (let i = 0; i < 150; i++) fs.writeFileSync(path.join(root, 'd', `f${String(i).padStart(4, '0')}.txt`), body);
  const { value: out, heldMs } = await heldDuring(() => callTool(grepFileTool, new NodeWorkspace(root), { pattern: 'HIT', limit: 1000, context_lines: 50 }));
  const bytes = wireBytes(out);
  // Uncut: 150 × 101 lines of 399 control characters, 6 bytes each, in both parts (73 MB).
  assert.ok(bytes < MAX_MESSAGE_BYTES - MB, `the answer costs ${bytes} bytes on the wire`);
  const structured = out.structured as { totalMatches: number; returnedMatches: number; truncated: boolean; notes: string[] };
  assert.equal(structured.totalMatches, 150);
  assert.ok(structured.returnedMatches > 0 && structured.returnedMatches < 150, `returned ${structured.returnedMatches}`);
  assert.equal(structured.truncated, true);
  assert.ok(structured.notes.some((n) => /Only the first \d+ of 150 matches/.test(n)), structured.notes.join('\n'));
  assert.match(out.result, /Only the first \d+ of 150 matches/);
  assert.ok(heldMs < 1000, `the event loop was held ${Math.round(heldMs)} ms`);
});

test('read_file of a file of long control-character lines answers within the message limit over a real link, without holding the event loop', async () => {
  const root = tempFolder('ab-read-ctrl-');
  const line = '\x01'.repeat(10_000);
  fs.writeFileSync(path.join(root, 'ctrl.txt'), `${Array.from({ length: 1000 }, () => line).join('\n')}\n`);
  const link = await headlessLink(root);
  after(() => link.close());
  const { value: answer, heldMs } = await heldDuring(() => link.backend.callTool('read_file', { relativePath: 'ctrl.txt' }, { timeoutMs: 30_000 }));
  const data = answer.data as { success: boolean; result: string; structured: { content: string; truncated: boolean; endLine: number; omitted?: string[]; note?: string } };
  assert.equal(data.success, true);
  const bytes = Buffer.byteLength(JSON.stringify(answer));
  assert.ok(bytes < MAX_MESSAGE_BYTES - MB, `the answer was ${bytes} bytes`);
  // The tool cut it itself, saying where to read on; the bridge's last-resort cut (which drops `structured`) was not needed.
  assert.doesNotMatch(data.result, /Result cut/);
  assert.match(data.result, /Output cut at \d+ MB\.\*\* Read the rest with start_line=\d+/);
  assert.equal(data.structured.truncated, true);
  assert.deepEqual(data.structured.omitted, ['content']);
  assert.ok(data.structured.content.length <= data.structured.endLine * 2001, `content holds ${data.structured.content.length} characters`);
  assert.ok(heldMs < 600, `the event loop was held ${Math.round(heldMs)} ms`);
});

test('a write does not echo a text whose escaped size is over the echo bound, though its length is under it', async () => {
  const root = tempFolder('ab-echo-ctrl-');
  fs.writeFileSync(path.join(root, 'small.txt'), 'small\n');
  // 900 K characters, 5.4 MB once escaped: echoed, then listed again in the patch, it was over the 10 MB message limit.
  const content = `${'\x01'.repeat(900_000)}\n`;
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { ripgrep: false }), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });
  const r = await d.dispatch({ id: 'echo-1', idKey: 'toolCallId', toolName: 'Replace', params: { file_path: 'small.txt', content } });
  assert.equal(r.data.success, true, r.data.error);
  assert.equal(fs.readFileSync(path.join(root, 'small.txt'), 'utf8'), content, 'the write itself is whole');
  const answer = JSON.parse(r.data.result!) as { content?: string; omitted?: string[]; note?: string };
  assert.equal(answer.content, undefined);
  assert.ok(answer.omitted?.includes('content'), JSON.stringify(answer.omitted));
  assert.ok(Buffer.byteLength(JSON.stringify(r)) < MAX_MESSAGE_BYTES, `the answer was ${Buffer.byteLength(JSON.stringify(r))} bytes`);
});
