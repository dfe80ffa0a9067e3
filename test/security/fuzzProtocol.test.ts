/**
 * Property tests over the two doors in: any frame into parseServerMessage, any params into any
 * registered tool. Neither may throw or hang; every call gets exactly one schema-valid TOOL_RESULT.
 * Writing tools run against a gate that records and writes nothing.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { startLink } from '../../src/core/link/startLink';
import type { ChangeGate, ProposedChange } from '../../src/core/write/gate';
import { silentLogger } from '../support/silentLogger';
import { parseServerMessage, ToolResultSchema } from '../../src/core/protocol/messages';
import { DEFAULT_EXCLUDE_GLOBS } from '../../src/core/policy/secrets';
import { SecretGuard } from '../../src/core/workspace/globSet';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { startDevBackend } from '../../src/devBackend/server';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

const tree = makeTree(
  {
    'a.txt': 'alpha\nbeta\n',
    'src/Main.java': 'class Main {\n  void run() { helper(); }\n  void helper() {}\n}\n',
    'nb.ipynb': JSON.stringify({ cells: [{ cell_type: 'code', source: ['x = 1'], metadata: {}, outputs: [] }], metadata: {}, nbformat: 4, nbformat_minor: 5 }),
    '.env': 'SECRET=1\n',
  },
  'ab-fuzz-',
);
const snapshot = (): string => JSON.stringify(['a.txt', 'src/Main.java', 'nb.ipynb', '.env'].map((f) => fs.readFileSync(path.join(tree, f), 'utf8')));

test('parseServerMessage: any string or bytes give a result or a clear error, never a throw, quickly', () => {
  const frame = fc.oneof(
    fc.string(),
    fc.json(),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.record({ type: fc.constantFrom('TOOL_CALL', 'PING', 'CONNECTED', 'ERROR', 'THINKING', 'AGENT_RESPONSE', 'COMPLETE', 'X'), data: fc.jsonValue(), toolCallId: fc.jsonValue(), toolName: fc.jsonValue(), params: fc.jsonValue() }, { requiredKeys: ['type'] }).map((v) => JSON.stringify(v)),
    fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
  );
  fc.assert(
    fc.property(frame, (raw) => {
      const t0 = performance.now();
      const out = parseServerMessage(raw);
      assert.ok(performance.now() - t0 < 200, 'bounded time');
      if (out.ok === false) {
        assert.equal(typeof out.error, 'string');
        assert.ok(out.error.length > 0);
        if (out.reply) assert.ok(ToolResultSchema.safeParse(out.reply).success);
      } else if (out.ok === 'ignored') assert.equal(typeof out.type, 'string');
      else assert.equal(typeof out.message.type, 'string');
    }),
    { numRuns: 1500 },
  );
});

test('any params for every tool, through a real link: exactly one valid TOOL_RESULT per call; nothing is written', async () => {
  const proposed: ProposedChange[] = [];
  const recorder: ChangeGate = {
    commit: (change) => {
      proposed.push(change);
      return Promise.resolve({ finalText: change.proposed, modifiedByUser: false, formatted: false, saved: false });
    },
  };
  const guard = new SecretGuard(DEFAULT_EXCLUDE_GLOBS);
  const backend = await startDevBackend({ port: 0 });
  const link = startLink({
    dispatcher: { workspace: new NodeWorkspace(tree, { ripgrep: false, secrets: guard }), tools: ALL_TOOLS, log: silentLogger, changes: recorder, limits: () => ({ timeoutMs: 3000 }) },
    connection: { serverUrl: backend.wsUrl(), protocol: 'auto', sessionId: 'fuzz', projectKey: 'fuzz', projectPath: tree },
  });
  // Every TOOL_RESULT frame the backend receives, by id: a call answered twice (or never) shows here.
  const frames = new Map<string, number>();
  const off = backend.onMessage((m) => {
    if (m.message?.type !== 'TOOL_RESULT') return;
    const id = String((m.message.data as Record<string, unknown> | undefined)?.toolCallId);
    frames.set(id, (frames.get(id) ?? 0) + 1);
  });
  const ids: string[] = [];
  try {
    link.connect();
    await backend.waitForSession(undefined, 5000);
    const before = snapshot();
    const pathLike = fc.constantFrom('a.txt', 'src', 'src/Main.java', 'nb.ipynb', '.env', '../etc/passwd', '/etc/passwd', 'missing.txt', '', '.', 'a.txt\0x');
    const value = fc.oneof(pathLike, fc.string({ maxLength: 20 }), fc.integer({ min: -5, max: 50 }), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }));
    const keys = ['relativePath', 'file_path', 'notebook_path', 'pattern', 'searchContent', 'replaceContent', 'content', 'old_string', 'new_string', 'edits', 'start_line', 'end_line', 'line', 'context_lines', 'limit', 'regex', 'className', 'methodName', 'method', 'mode', 'cell_number', 'new_source', 'edit_mode', 'depth', 'direction'];
    const params = fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 })), value, { maxKeys: 6 });
    const toolName = fc.oneof(fc.constantFrom(...ALL_TOOLS.map((t) => t.name)), fc.string({ minLength: 1, maxLength: 10 }));
    await fc.assert(
      fc.asyncProperty(toolName, params, fc.constantFrom('root' as const, 'data' as const), async (name, p, shape) => {
        const r = await backend.callTool(name, p, { shape });
        const parsed = ToolResultSchema.safeParse(r);
        assert.ok(parsed.success, JSON.stringify(r));
        const data = parsed.data.data;
        ids.push(String(data.toolCallId));
        if (shape === 'data') assert.equal(data.callId, data.toolCallId);
        if (!data.success) assert.ok((data.error ?? '').length > 0 && data.code);
        if (data.success && ['read_file', 'grep_file', 'text_search'].includes(name)) assert.ok(!(data.result ?? '').includes('SECRET=1'));
      }),
      { numRuns: 300 },
    );
    // Late duplicates would arrive after the first answer: give them time to show.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(new Set(ids).size, ids.length, 'the backend used each id once');
    for (const id of ids) assert.equal(frames.get(id), 1, `TOOL_RESULT frames for ${id}`);
    assert.equal([...frames.values()].reduce((a, b) => a + b, 0), ids.length, 'no TOOL_RESULT for a call nobody made');
    assert.equal(snapshot(), before, 'the recording gate wrote nothing');
    for (const c of proposed) assert.ok(c.path.abs.startsWith(fs.realpathSync(tree)), `proposal outside the project: ${c.path.abs}`);
  } finally {
    off();
    link.stop('test over');
    await backend.close();
  }
});
