import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { CallGraph, WITHOUT_CLASS_LIMITS } from '../../src/core/code/index/callGraph';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { closeSharedParsePools } from '../../src/core/code/index/offThreadParse';
import { UNPACKED_LIMITS } from '../../src/core/code/index/unpackedFiles';
import { codeIntelFor, dropCodeIntel } from '../../src/core/code/intel/intel';
import { extractFile } from '../../src/core/code/languages/registry';
import { callChainTool } from '../../src/core/tools/callChain';
import { readMethodTool } from '../../src/core/tools/readMethod';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { waitUntil } from '../support/waitUntil';
import { JAVA_PROJECT } from '../support/javaProject';
import { callTool, failsWith } from '../support/tools';

/**
 * The index keeps every file's declarations packed (packedSymbols.ts) and unpacks a file when a
 * lookup reaches it; unpacked files are let go only between answers (unpackedFiles.ts).
 */

// A parse worker left idle would keep this file's process alive until its pool closes itself.
after(() => closeSharedParsePools());

const MAIN = 'src/main/java/com/acme/app/Main.java';
const SERVICE = 'src/main/java/com/acme/app/Service.java';

async function built(prefix: string): Promise<CodeIndex> {
  const index = new CodeIndex(new NodeWorkspace(makeTree(JAVA_PROJECT, prefix)), { workers: 0 });
  await index.ready();
  return index;
}

/** Runs `fn` with unpacked files let go at the first turn of the event loop with no answer in flight. */
async function withNoRoom<T>(fn: () => Promise<T>, limits: Partial<typeof UNPACKED_LIMITS> = { bytes: 1 }): Promise<T> {
  const kept = { ...UNPACKED_LIMITS };
  Object.assign(UNPACKED_LIMITS, limits);
  try {
    return await fn();
  } finally {
    Object.assign(UNPACKED_LIMITS, kept);
  }
}

test('records hold the declarations packed, with only the heads as objects; unpacked they equal the parse', async () => {
  const index = await built('ab-unpacked-');
  const records = (index as unknown as { files: Map<string, Record<string, unknown>> }).files;
  assert.ok(records.size >= 8);
  for (const [rel, rec] of records) {
    assert.ok(Buffer.isBuffer(rec.packed), `${rel}: declarations packed`);
    assert.equal('symbols' in rec, false, `${rel}: no declarations as objects`);
  }
  const parsed = await extractFile(MAIN, JAVA_PROJECT[MAIN] as string);
  assert.ok(parsed);
  // the same declarations; the call sites are kept apart (`callsOf`)
  const withoutCalls = { ...parsed, types: parsed.types.map((t) => ({ ...t, methods: t.methods.map((m) => ({ ...m, calls: [] })) })) };
  assert.deepEqual(JSON.parse(JSON.stringify(index.fileSymbols(MAIN))), JSON.parse(JSON.stringify(withoutCalls)));
  // found by name without unpacking: the heads alone
  assert.deepEqual(
    [...index.typeHeads()].filter((r) => r.head.name === 'User').map((r) => r.head.fqn),
    ['com.acme.model.User', 'com.other.model.User'],
  );
  assert.equal(index.fileSymbols(MAIN), index.fileSymbols(MAIN), 'one copy while kept');
});

test('unpacked files are let go between answers, never within one: a pinned answer keeps one copy across its awaits', async () => {
  const index = await built('ab-unpacked-evict-');
  await withNoRoom(async () => {
    const owner = {};
    const cache = index.symbolScoped(owner, () => ({}));
    assert.equal(index.symbolScoped(owner, () => ({})), cache, 'a cache of symbols is kept while they are');
    const a = index.fileSymbols(MAIN);
    index.fileSymbols(SERVICE);
    assert.equal(index.fileSymbols(MAIN), a, 'a synchronous run of lookups is never split');
    await nextTurn();
    await nextTurn();
    assert.notEqual(index.fileSymbols(MAIN), a, 'let go once the turn ended with nothing pinned');
    assert.notEqual(index.symbolScoped(owner, () => ({})), cache, 'caches of symbols start afresh');

    await nextTurn();
    await nextTurn();
    const pinned = await index.pinned(async () => {
      const first = index.fileSymbols(MAIN);
      for (let i = 0; i < 5; i++) {
        await nextTurn();
        index.fileSymbols(SERVICE);
      }
      assert.equal(index.fileSymbols(MAIN), first, 'the same copy throughout the answer');
      return first;
    });
    await nextTurn();
    await nextTurn();
    assert.notEqual(index.fileSymbols(MAIN), pinned, 'let go after the answer');
  });
});

test('call_chain and read_method answer the same when every file is let go between answers', async () => {
  const ws = new NodeWorkspace(makeTree(JAVA_PROJECT, 'ab-unpacked-tools-'));
  try {
    await codeIntelFor(ws).index.ready();
    const ask = async () => [
      await callTool(callChainTool, ws, { method: 'com.acme.app.Main.main', direction: 'both', depth: 4 }),
      await callTool(callChainTool, ws, { method: 'com.acme.app.Service.handle', direction: 'callers', depth: 3 }),
      await callTool(readMethodTool, ws, { className: 'com.acme.model.User', methodName: 'greet' }).catch((e: unknown) => String(e)),
    ];
    const roomy = await ask();
    const tight = await withNoRoom(async () => {
      const out = [];
      for (let i = 0; i < 2; i++) {
        out.push(await ask());
        await nextTurn();
      }
      return out;
    });
    assert.deepEqual(tight[0], roomy);
    assert.deepEqual(tight[1], roomy);
  } finally {
    dropCodeIntel(ws);
  }
});

test('a minute with no lookup lets every unpacked file go, with the caches holding their symbols', async () => {
  const index = await built('ab-unpacked-idle-');
  await withNoRoom(
    async () => {
      const owner = {};
      const cache = index.symbolScoped(owner, () => ({}));
      const a = index.fileSymbols(MAIN);
      assert.equal(index.fileSymbols(MAIN), a, 'kept: within the budget');
      await index.pinned(async () => {
        index.fileSymbols(SERVICE);
        await new Promise((r) => setTimeout(r, 120));
        assert.equal(index.fileSymbols(MAIN), a, 'never while an answer is in flight');
      });
      // (a lookup would count as use: the caches tell)
      await waitUntil(() => index.symbolScoped(owner, () => ({})) !== cache, 'let go once idle', 5000, 5);
      assert.notEqual(index.fileSymbols(MAIN), a);
    },
    { idleMs: 50 },
  );
});

test('a method asked for without its class: a constructor alias still reaches every constructor, a name only the files declaring it', async () => {
  const index = await built('ab-unpacked-ctor-');
  const graph = new CallGraph(index);
  const everyConstructor = [...index.typeEntries()].flatMap((t) => t.type.methods.filter((m) => m.kind === 'constructor').map((m) => `${t.type.fqn}.${m.name}:${m.line}`));
  assert.ok(everyConstructor.length >= 2);
  for (const alias of ['<init>', 'new']) {
    const found = graph.findMethods(alias).matches.map((m) => `${m.owner.type.fqn}.${m.method.name}:${m.method.line}`);
    assert.deepEqual(found.sort(), [...everyConstructor].sort(), alias);
  }
  assert.deepEqual(
    graph.findMethods('greet').matches.map((m) => m.owner.type.fqn),
    ['com.acme.model.User'],
  );
});

test('the budget counts what a file takes unpacked, not its packed size: a generated class of 20,000 overloads deflates 36 to 1', async () => {
  const methods = Array.from({ length: 20_000 }, () => '  int get(int a) { return a; }').join('\n');
  const rel = 'gen/Big.java';
  const index = new CodeIndex(new NodeWorkspace(makeTree({ [rel]: `package gen;\nclass Big {\n${methods}\n}\n` }, 'ab-unpacked-big-')), { workers: 0 });
  await index.ready();
  const rec = (index as unknown as { files: Map<string, { packed: Buffer }> }).files.get(rel);
  assert.ok(rec && rec.packed.length < 400_000, `packed: ${rec?.packed.length}`);
  await withNoRoom(
    async () => {
      const a = index.fileSymbols(rel);
      await waitUntil(() => index.fileSymbols(rel) !== a, 'let go: over the budget once unpacked', 5000, 5);
    },
    { bytes: 4 * 1024 * 1024 },
  );
});

test('records share blocks of their own, not Node pool slabs they would share with short-lived buffers', async () => {
  const index = await built('ab-unpacked-arena-');
  const copy = new CodeIndex(index.ws, { workers: 0 });
  copy.load(index.serialize());
  for (const idx of [index, copy]) {
    const records = [...(idx as unknown as { files: Map<string, { packed: Buffer }> }).files.values()];
    const blocks = new Set(records.map((r) => r.packed.buffer));
    assert.equal(blocks.size, 1, 'a small project fits in one block');
    assert.equal(records[0]?.packed.buffer.byteLength, 256 * 1024);
  }
});

test('a stopped tool call no longer pins what it unpacked, even if its handler never ends', async () => {
  const index = await built('ab-unpacked-abort-');
  await withNoRoom(async () => {
    const stop = new AbortController();
    let a: unknown;
    let release = (): void => undefined;
    const never = index.pinned(async () => {
      a = index.fileSymbols(MAIN);
      await new Promise<void>((r) => (release = r));
    }, stop.signal);
    await nextTurn();
    await nextTurn();
    assert.equal(index.fileSymbols(MAIN), a, 'pinned while the call runs');
    stop.abort();
    await nextTurn();
    await nextTurn();
    assert.notEqual(index.fileSymbols(MAIN), a, 'let go once the call was stopped');
    release();
    await never;
  });
});

test('a method asked for without its class, declared in too many files: the class is asked for, and nothing is unpacked', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 4; i++) files[`p/C${i}.java`] = `package p;\nclass C${i} { void go() {} }\n`;
  const ws = new NodeWorkspace(makeTree(files, 'ab-unpacked-wide-'));
  const kept = WITHOUT_CLASS_LIMITS.files;
  try {
    const { index } = codeIntelFor(ws);
    await index.ready();
    const unpacked = (index as unknown as { unpacked: { size: number } }).unpacked;
    WITHOUT_CLASS_LIMITS.files = 3;
    await failsWith(callTool(callChainTool, ws, { method: 'go' }), 'VALIDATION_FAILED', /declared .* in 4 files .*ClassName\.go/);
    assert.equal(unpacked.size, 0, 'no file unpacked');
    WITHOUT_CLASS_LIMITS.files = 10;
    const out = (await callTool(callChainTool, ws, { method: 'go' })) as { structured: { ambiguous?: boolean; candidates?: unknown[] } };
    assert.equal(out.structured.ambiguous, true);
    assert.equal(out.structured.candidates?.length, 4);
  } finally {
    WITHOUT_CLASS_LIMITS.files = kept;
    dropCodeIntel(ws);
  }
});

test('`init`, `constructor` and `__init__` mean constructors outside Java only: a Java init() is a method, Java constructors are not counted', async () => {
  const index = new CodeIndex(
    new NodeWorkspace(
      makeTree(
        {
          'j/A.java': 'package j;\nclass A { A() {} void init() {} }\n',
          'j/B.java': 'package j;\nclass B { B(int x) {} }\n',
          'py/shop.py': 'class Cart:\n    def __init__(self, n):\n        self.n = n\n',
        },
        'ab-unpacked-init-',
      ),
    ),
    { workers: 0 },
  );
  await index.ready();
  const graph = new CallGraph(index);
  assert.deepEqual(index.typesDeclaring('init', 0), { files: 2 }, 'A.java (its init()) and shop.py (a constructor), not B.java');
  assert.deepEqual(
    graph.findMethods('init').matches.map((m) => `${m.owner.type.name}.${m.method.name}:${m.method.kind}`).sort(),
    ['A.init:method', 'Cart.Cart:constructor'],
  );
  assert.deepEqual(index.typesDeclaring('<init>', 0), { files: 3 }, 'every file with a constructor');
});

test('two answers in flight: the first one ending (stopped, then done) leaves the second one its copies', async () => {
  const index = await built('ab-unpacked-two-');
  await withNoRoom(async () => {
    const stop = new AbortController();
    let end = (): void => undefined;
    const first = index.pinned(async () => {
      index.fileSymbols(SERVICE);
      await new Promise<void>((r) => (end = r));
    }, stop.signal);
    await index.pinned(async () => {
      const a = index.fileSymbols(MAIN);
      stop.abort();
      end();
      await first;
      for (let i = 0; i < 4; i++) await nextTurn();
      assert.equal(index.fileSymbols(MAIN), a, 'still pinned by the second answer');
    });
  });
});

test('a record saved after the build has a buffer of its own, not a slot in the build blocks', async () => {
  const root = makeTree(JAVA_PROJECT, 'ab-unpacked-save-');
  const index = new CodeIndex(new NodeWorkspace(root), { workers: 0 });
  await index.ready();
  const records = (index as unknown as { files: Map<string, { packed: Buffer }> }).files;
  fs.writeFileSync(path.join(root, MAIN), (JAVA_PROJECT[MAIN] as string) + '\n// saved\n');
  await index.update(MAIN);
  const saved = records.get(MAIN);
  assert.ok(saved);
  assert.equal(saved.packed.buffer.byteLength, saved.packed.length, 'its own buffer');
  assert.equal(records.get(SERVICE)?.packed.buffer.byteLength, 256 * 1024, 'the build wrote into a block');
});
