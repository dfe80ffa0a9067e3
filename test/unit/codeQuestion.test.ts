import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { answerCodeQuestion, type CodeQuestion } from '../../src/core/code/intel/codeQuestion';
import { codeIntelFor, dropCodeIntel, readyCodeIntel } from '../../src/core/code/intel/intel';
import { silentLogger } from '../support/silentLogger';
import { ToolError } from '../../src/core/protocol/errors';
import type { LanguageIntel } from '../../src/core/workspace/languageIntel';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

/**
 * The front door of read_class, read_method and call_chain: the language server first, then the
 * files the question names while the index lacks what it needs, then the index; the first answer
 * wins and says where it came from.
 */

const JAVA = 'package app;\n\npublic class Greeter {\n    public String greet(String name) {\n        return name;\n    }\n}\n';

/** A server the steps below never call: `find` is the question's own. */
const someServer = {} as LanguageIntel;

function setUp(server?: LanguageIntel) {
  const root = makeTree({ 'src/app/Greeter.java': JAVA });
  const base = new NodeWorkspace(root, { ripgrep: false });
  const workspace = server ? Object.assign(base, { languageIntel: server }) : base;
  const ctx = { workspace, signal: new AbortController().signal, log: silentLogger };
  const done = (): void => {
    dropCodeIntel(workspace);
    fs.rmSync(root, { recursive: true, force: true });
  };
  return { ctx, done };
}

/** A question whose steps answer with their own names, and note that they were asked. */
function question(asked: string[], steps: { server?: boolean; filesAlone?: boolean } = {}): CodeQuestion<string, string> {
  return {
    tool: 'test',
    needs: 'declarations',
    languageServer: {
      find: async () => (asked.push('server'), steps.server ? 'found' : undefined),
      answer: async (found) => `server: ${found}`,
    },
    fromFilesAlone: async () => (asked.push('files'), steps.filesAlone ? async () => 'files alone' : undefined),
    fromIndex: async () => (asked.push('index'), 'index'),
  };
}

test('the language server answers first when it knows the name; nothing else is asked', async () => {
  const { ctx, done } = setUp(someServer);
  try {
    const asked: string[] = [];
    const got = await answerCodeQuestion(ctx, question(asked, { server: true, filesAlone: true }));
    assert.deepEqual(got, { answer: 'server: found', answeredBy: 'language-server' });
    assert.deepEqual(asked, ['server']);
  } finally {
    done();
  }
});

test('before the index is built, the files the question names answer; else the index does', async () => {
  for (const [filesAlone, answer, answeredBy, steps] of [
    [true, 'files alone', 'files-alone', ['files']],
    [false, 'index', 'index', ['files', 'index']],
  ] as const) {
    // a fresh workspace each: the first answer starts the build, which could end before a second question
    const { ctx, done } = setUp();
    try {
      const asked: string[] = [];
      assert.deepEqual(await answerCodeQuestion(ctx, question(asked, { filesAlone })), { answer, answeredBy });
      assert.deepEqual(asked, steps, 'no server in this workspace: it is not asked');
    } finally {
      done();
    }
  }
});

test('once the index has what the question needs, the files alone are not asked', async () => {
  const { ctx, done } = setUp();
  try {
    await readyCodeIntel(ctx);
    assert.ok(codeIntelFor(ctx.workspace).index.declarationsIn);
    const asked: string[] = [];
    assert.deepEqual(await answerCodeQuestion(ctx, question(asked, { filesAlone: true })), { answer: 'index', answeredBy: 'index' });
    assert.deepEqual(asked, ['index']);
  } finally {
    done();
  }
});

test('a NOT_FOUND after the language server failed says so: trying again later may find it', async () => {
  const { ctx, done } = setUp(someServer);
  try {
    const q = question([]);
    await assert.rejects(
      answerCodeQuestion(ctx, {
        ...q,
        languageServer: { ...q.languageServer, find: () => Promise.reject(new Error('boom')) },
        fromIndex: () => Promise.reject(new ToolError('NOT_FOUND', 'Class not found: Nope.')),
      }),
      (e: unknown) => e instanceof ToolError && e.code === 'NOT_FOUND' && /Class not found: Nope\. \(Only the extension's parser answered: the language server failed: boom\./.test(e.message),
    );
  } finally {
    done();
  }
});
