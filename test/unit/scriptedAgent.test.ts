/**
 * The dev backend's scripted agent against a real dev backend on loopback, with a `ws` client
 * playing the IDE: it answers TOOL_CALLs with canned results and records everything it receives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startDevBackend, V1_PATH, V2_PATH, type DevBackend } from '../../src/devBackend/server';
import { createScriptedAgent, uniqueTail } from '../../src/devBackend/scriptedAgent';
import type { ProtocolVersion } from '../../src/core/protocol/messages';

type Json = Record<string, unknown>;

const GREETER = 'package app;\n\npublic class Greeter {\n    public String greet(String name) {\n        return "Hello, " + name;\n    }\n}';

/** Canned answers per tool; read_file carries `structured.content` as the real tool does. */
function answer(toolName: string, params: Json): Json {
  switch (toolName) {
    case 'read_file':
      return { success: true, result: '## File: x', structured: { content: GREETER, startLine: 1, endLine: 7, totalLines: 7, language: 'java' }, executionTime: 3 };
    case 'grep_file':
      return { success: true, result: `**1 match** for \`${String(params.pattern)}\`\n\n\`\`\`java\n5: // TODO\n\`\`\``, executionTime: 4 };
    case 'apply_change':
      return { success: true, result: JSON.stringify({ applied: true }), executionTime: 5 };
    default:
      return { success: false, error: `Unknown tool ${toolName}`, code: 'TOOL_NOT_FOUND', executionTime: 0 };
  }
}

interface Ide {
  readonly received: Json[];
  readonly calls: Json[];
  /** Sends one chat message and resolves with everything up to and including the turn's last message. */
  chat(message: string): Promise<Json[]>;
  close(): void;
}

async function connect(backend: DevBackend, protocol: ProtocolVersion): Promise<Ide> {
  const query: Record<string, string> = { sessionId: 's-1', projectKey: 'demo', ...(protocol === 'v1' ? { projectPath: '/tmp/demo' } : {}) };
  const ws = new WebSocket(backend.wsUrl(protocol === 'v1' ? V1_PATH : V2_PATH, query));
  const received: Json[] = [];
  const calls: Json[] = [];
  let onMessage: (m: Json) => void = () => undefined;
  ws.on('message', (raw) => {
    const m = JSON.parse(String(raw)) as Json;
    received.push(m);
    if (m.type === 'TOOL_CALL') {
      calls.push(m);
      const id = String(m.toolCallId);
      ws.send(JSON.stringify({ type: 'TOOL_RESULT', data: { toolCallId: id, ...answer(String(m.toolName), (m.params ?? {}) as Json) } }));
    }
    onMessage(m);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const isLast = (m: Json): boolean =>
    m.type === 'COMPLETE' || m.type === 'ERROR' || (m.type === 'AGENT_RESPONSE' && (m.data as Json).done === true);
  return {
    received,
    calls,
    chat: (message) =>
      new Promise((resolve, reject) => {
        const start = received.length;
        const timer = setTimeout(() => reject(new Error(`no end of turn; got ${JSON.stringify(received.slice(start))}`)), 5_000);
        onMessage = (m) => {
          if (!isLast(m)) return;
          clearTimeout(timer);
          resolve(received.slice(start));
        };
        const wire =
          protocol === 'v1'
            ? { type: 'ANALYZE', data: { requestId: null, message, projectKey: 'demo', projectPath: '/tmp/demo', mode: 'claude-code' } }
            : { type: 'AGENT_CHAT', data: { sessionId: 's-1', projectKey: 'demo', message } };
        ws.send(JSON.stringify(wire));
      }),
    close: () => ws.close(),
  };
}

async function withIde(protocol: ProtocolVersion, fn: (ide: Ide) => Promise<void>): Promise<void> {
  const backend = await startDevBackend({ port: 0, chat: createScriptedAgent({ stepDelayMs: 0 }) });
  const ide = await connect(backend, protocol);
  try {
    await fn(ide);
  } finally {
    ide.close();
    await backend.close();
  }
}

/** A call's params without the session id the dev backend adds to every call. */
function paramsOf(call: Json): Json {
  const { webSocketSessionId: _ignored, ...rest } = (call.params ?? {}) as Json;
  return rest;
}

const answerText = (turn: Json[]): string =>
  turn
    .filter((m) => m.type === 'AGENT_RESPONSE' || m.type === 'COMPLETE')
    .map((m) => String((m.data as Json).content ?? (m.data as Json).result ?? ''))
    .join('');

test('v2 /grep: THINKING, a real grep_file TOOL_CALL, then AGENT_RESPONSE chunks ending done:true with a code block', async () => {
  await withIde('v2', async (ide) => {
    const turn = await ide.chat('/grep TODO');
    const thinking = turn.filter((m) => m.type === 'THINKING');
    assert.ok(thinking.length >= 2, 'streams THINKING');
    for (const t of thinking) {
      const d = t.data as Json;
      assert.equal(typeof d.stage, 'string');
      assert.equal(typeof d.percent, 'number');
      assert.equal(typeof d.round, 'number');
    }
    assert.equal(ide.calls.length, 1);
    assert.equal(ide.calls[0].toolName, 'grep_file');
    assert.deepEqual((ide.calls[0].params as Json).pattern, 'TODO');
    const responses = turn.filter((m) => m.type === 'AGENT_RESPONSE');
    assert.ok(responses.length >= 2, 'the answer comes in chunks');
    assert.equal((responses.at(-1)!.data as Json).done, true);
    assert.equal((responses.at(-1)!.data as Json).sessionId, 's-1');
    const text = answerText(turn);
    assert.match(text, /### `grep_file`/);
    assert.match(text, /```java\n5: \/\/ TODO\n```/);
  });
});

test('v1 /read: read_file with the line range, then one COMPLETE with the file in a java code block', async () => {
  await withIde('v1', async (ide) => {
    const turn = await ide.chat('/read src/app/Greeter.java 2 6');
    assert.deepEqual(paramsOf(ide.calls[0]), { relativePath: 'src/app/Greeter.java', start_line: 2, end_line: 6 });
    const complete = turn.filter((m) => m.type === 'COMPLETE');
    assert.equal(complete.length, 1);
    assert.equal(turn.filter((m) => m.type === 'AGENT_RESPONSE').length, 0);
    const d = complete[0].data as Json;
    assert.equal(typeof d.requestId, 'string', 'v1 answers carry the requestId');
    assert.match(String(d.result), /```java\npackage app;/);
    const thinking = turn.find((m) => m.type === 'THINKING')!.data as Json;
    assert.equal(thinking.requestId, d.requestId);
  });
});

test('/class and /calls call read_class and call_chain; a failed tool is summarized as failed', async () => {
  await withIde('v2', async (ide) => {
    await ide.chat('/class Greeter');
    const text = answerText(await ide.chat('/calls Greeter.greet'));
    assert.deepEqual(ide.calls.map((c) => c.toolName), ['read_class', 'call_chain']);
    assert.deepEqual(paramsOf(ide.calls[0]), { className: 'Greeter', mode: 'structure' });
    assert.deepEqual(paramsOf(ide.calls[1]), { method: 'Greeter.greet', direction: 'both', depth: 1 });
    assert.match(text, /\*\*Failed\*\* \(`TOOL_NOT_FOUND`\)/);
  });
});

test('/edit reads the file, then proposes apply_change anchored on its unique last lines', async () => {
  await withIde('v2', async (ide) => {
    const text = answerText(await ide.chat('/edit src/app/Greeter.java'));
    assert.deepEqual(ide.calls.map((c) => c.toolName), ['read_file', 'apply_change']);
    const p = ide.calls[1].params as Json;
    assert.equal(p.relativePath, 'src/app/Greeter.java');
    // `}` alone occurs three times; the last two lines together occur once.
    assert.equal(p.searchContent, '    }\n}');
    assert.equal(p.replaceContent, '    }\n}\n// Reviewed with the Agent Bridge dev backend.');
    assert.equal(typeof p.description, 'string');
    assert.match(text, /the change was written/);
  });
});

test('/error CODE answers with ERROR of that code and nothing after it', async () => {
  await withIde('v2', async (ide) => {
    const turn = await ide.chat('/error ANALYSIS_TIMEOUT');
    const last = turn.at(-1)!;
    assert.equal(last.type, 'ERROR');
    assert.equal((last.data as Json).code, 'ANALYSIS_TIMEOUT');
    assert.equal(ide.calls.length, 0);
  });
});

test('/help and plain text get a Markdown guide to the commands, without tool calls', async () => {
  await withIde('v2', async (ide) => {
    const help = answerText(await ide.chat('/help'));
    assert.match(help, /\| `\/grep <pattern>` \|/);
    assert.match(help, /```bash\n\/grep TODO/);
    const plain = answerText(await ide.chat('What does this project do?'));
    assert.match(plain, /> What does this project do\?/);
    assert.match(plain, /`\/edit <path>`/);
    assert.equal(ide.calls.length, 0);
  });
});

test('uniqueTail picks the shortest unique run of last lines', () => {
  assert.equal(uniqueTail('a\nb\nc\n'), 'c');
  assert.equal(uniqueTail('}\nx\n}\n'), 'x\n}');
  assert.equal(uniqueTail(''), undefined);
});

test('v2 /stream sends the answer in many small delta chunks, only the last done:true; v1 gets it whole in COMPLETE', async () => {
  await withIde('v2', async (ide) => {
    const turn = await ide.chat('/stream 25');
    const responses = turn.filter((m) => m.type === 'AGENT_RESPONSE');
    assert.ok(responses.length >= 20, `${responses.length} chunks`);
    assert.deepEqual(responses.map((m) => (m.data as Json).done), [...Array(responses.length - 1).fill(false), true]);
    assert.match(answerText(turn), /^Streaming works like this:[\s\S]*```ts\n[\s\S]*That is the whole answer\.$/);
  });
  await withIde('v1', async (ide) => {
    const turn = await ide.chat('/stream');
    assert.deepEqual(turn.filter((m) => m.type === 'COMPLETE').length, 1);
    assert.match(answerText(turn), /That is the whole answer\.$/);
  });
});
