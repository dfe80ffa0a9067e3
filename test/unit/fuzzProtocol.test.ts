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
import { Dispatcher } from '../../src/core/link/dispatcher';
import type { ChangeGate, ProposedChange } from '../../src/core/write/gate';
import { silentLogger } from '../../src/core/log';
import { parseServerMessage, ToolResultSchema } from '../../src/core/protocol/messages';
import { SecretGuard } from '../../src/core/policy/secrets';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from './helpers/fixtures';

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

test('Dispatcher: any params for every tool give exactly one valid TOOL_RESULT; nothing is written', async () => {
  const proposed: ProposedChange[] = [];
  const recorder: ChangeGate = {
    commit: (change) => {
      proposed.push(change);
      return Promise.resolve({ finalText: change.proposed, modifiedByUser: false, formatted: false, saved: false });
    },
  };
  const guard = new SecretGuard();
  const dispatcher = new Dispatcher({
    workspace: new NodeWorkspace(tree, { ripgrep: false, secrets: guard }),
    tools: ALL_TOOLS,
    log: silentLogger,
    changes: recorder,
    limits: () => ({ timeoutMs: 3000 }),
  });
  const before = snapshot();
  const pathLike = fc.constantFrom('a.txt', 'src', 'src/Main.java', 'nb.ipynb', '.env', '../etc/passwd', '/etc/passwd', 'missing.txt', '', '.', 'a.txt\0x');
  const value = fc.oneof(pathLike, fc.string({ maxLength: 20 }), fc.integer({ min: -5, max: 50 }), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }));
  const keys = ['relativePath', 'file_path', 'notebook_path', 'pattern', 'searchContent', 'replaceContent', 'content', 'old_string', 'new_string', 'edits', 'start_line', 'end_line', 'line', 'context_lines', 'limit', 'regex', 'className', 'methodName', 'method', 'mode', 'cell_number', 'new_source', 'edit_mode', 'depth', 'direction'];
  const params = fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 })), value, { maxKeys: 6 });
  const toolName = fc.oneof(fc.constantFrom(...ALL_TOOLS.map((t) => t.name)), fc.string({ maxLength: 10 }));
  let n = 0;
  const started = Date.now();
  await fc.assert(
    fc.asyncProperty(toolName, params, async (name, p) => {
      const id = `fz-${++n}`;
      const results = await Promise.all([dispatcher.dispatch({ id, idKey: 'callId', toolName: name, params: p })]);
      assert.equal(results.length, 1);
      const r = results[0];
      assert.ok(ToolResultSchema.safeParse(r).success, JSON.stringify(r));
      assert.equal(r.data.toolCallId, id);
      assert.equal(r.data.callId, id);
      if (!r.data.success) assert.ok((r.data.error ?? '').length > 0 && r.data.code);
      if (r.data.success && ['read_file', 'grep_file', 'text_search'].includes(name)) assert.ok(!(r.data.result ?? '').includes('SECRET=1'));
    }),
    { numRuns: 400 },
  );
  assert.ok(Date.now() - started < 9000, 'fast');
  assert.equal(snapshot(), before, 'the recording gate wrote nothing');
  for (const c of proposed) assert.ok(c.path.abs.startsWith(fs.realpathSync(tree)), `proposal outside the project: ${c.path.abs}`);
});
