import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callChainTool } from '../../src/core/tools/callChain';
import { readClassTool } from '../../src/core/tools/readClass';
import { readMethodTool } from '../../src/core/tools/readMethod';
import { ToolError } from '../../src/core/protocol/errors';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { callTool } from '../support/tools';
import { TsLanguageIntel } from '../support/tsLanguageIntel';
import type { Workspace } from '../../src/core/workspace/workspace';
import { TS_NAMES_PROJECT } from '../support/tsNamesProject';

/**
 * The names a user writes for TypeScript namespace members (`Shape.twice`, `Geo.Util.norm`), a
 * namespace merged with an interface or a type alias, a default-imported namespace and a module
 * in a `$` folder, answered by the parser: each can be asked for, and each call through them is
 * resolved. Every name an answer lists can be asked for in turn.
 */

const parserOnly = new NodeWorkspace(makeTree(TS_NAMES_PROJECT, 'ab-tsnames-'));
const root = makeTree(TS_NAMES_PROJECT, 'ab-tsnames-ls-');
const withServer: Workspace = Object.assign(new NodeWorkspace(root), { languageIntel: new TsLanguageIntel(root) });

interface TreeNode {
  className?: string;
  path?: string;
  methodName?: string;
  unresolved?: Array<{ call: string; reason: string }>;
  children: TreeNode[];
}
interface Chain {
  source: string;
  matches: Array<{ className: string; methodName: string; path: string }>;
  callers?: TreeNode[];
  callees?: TreeNode[];
  possibleCallers?: Array<{ className: string; methodName: string }>;
}

/** Both ends of the ladder: the parser alone, and the TypeScript language service first. */
for (const [label, ws, source] of [['parser', parserOnly, 'parser'], ['language server', withServer, 'language-server']] as const) {
  const chain = async (method: string): Promise<Chain> => (await callTool(callChainTool, ws, { method, direction: 'both', depth: 1 })).structured as Chain;
  /** `file#function` of each caller or callee: the same from either source (their class names differ). */
  const edges = (nodes: readonly TreeNode[] | undefined): string[] => (nodes ?? []).flatMap((r) => r.children.map((c) => `${c.path}#${c.methodName}`)).sort();

  test(`${label}: calls through a namespace, a nested namespace and a namespace merged with an interface are resolved`, async () => {
    const twice = await chain('Shape.twice');
    assert.equal(twice.source, source);
    assert.deepEqual(twice.matches.map((m) => `${m.path}#${m.methodName}`), ['src/shapes.ts#twice']);
    assert.deepEqual(edges(twice.callers), ['src/app.ts#main', 'src/shapes.ts#norm']);
    assert.deepEqual(edges(twice.callees), ['src/shapes.ts#helper']);
    assert.deepEqual(edges((await chain('Geo.Util.norm')).callers), ['src/shapes.ts#deep']);
    // `geo.Outer.Inner.deep()` through `import * as geo`
    assert.deepEqual(edges((await chain('Outer.Inner.deep')).callers), ['src/app.ts#main']);
    assert.deepEqual(edges((await chain('Shape.unit')).callers), ['src/app.ts#main', 'src/shapes.ts#norm']);
  });

  test(`${label}: a default-imported namespace merged with a type alias, and a module in a $ folder, are reached`, async () => {
    assert.deepEqual(edges((await chain('Cfg.load')).callers), ['src/app.ts#main']);
    const pad = await chain('util.pad');
    assert.deepEqual(pad.matches.map((m) => m.path), ['src/$lib/util.ts']);
    assert.equal(pad.source, source);
    assert.deepEqual(edges(pad.callers), ['src/app.ts#main']);
    assert.deepEqual(edges((await chain('src.$lib.util.pad')).callers), ['src/app.ts#main']);
    const main = await chain('main');
    assert.deepEqual(edges(main.callees), ['src/$lib/util.ts#pad', 'src/cfg.ts#load', 'src/shapes.ts#deep', 'src/shapes.ts#twice', 'src/shapes.ts#unit']);
    assert.deepEqual(main.callees?.flatMap((r) => r.unresolved ?? []), []);
  });

  test(`${label}: read_method and read_class take a namespace member as the user writes it`, async () => {
    const m = (await callTool(readMethodTool, ws, { className: 'Shape', methodName: 'twice' })).structured as { source: string; methods: Array<{ code: string }> };
    assert.equal(m.source, source);
    assert.match(m.methods[0]?.code ?? '', /export function twice/);
    const nested = (await callTool(readMethodTool, ws, { className: 'Geo.Util', methodName: 'norm' })).structured as { methods: Array<{ code: string }> };
    assert.match(nested.methods[0]?.code ?? '', /function norm/);
    const inFile = (await callTool(readClassTool, ws, { className: 'Geo.Util', relativePath: 'src/shapes.ts' })).structured as { source: string; methods: Array<{ name: string }> };
    assert.deepEqual([inFile.source, inFile.methods.map((x) => x.name)], [source, ['norm']]);
    const load = (await callTool(readMethodTool, ws, { className: 'cfg', methodName: 'load', relativePath: 'src/legacy' })).structured as { source: string; methods: Array<{ path: string }> };
    assert.deepEqual([load.source, load.methods.map((x) => x.path)], [source, ['src/legacy/cfg.ts']]);
    assert.match((await callTool(readClassTool, ws, { className: 'Geo.Util' })).result, /^## Namespace: src\.shapes\.Geo\.Util$/m);
    // The interface and the namespace share one name: one answer, the namespace as its other part.
    const cls = (await callTool(readClassTool, ws, { className: 'src.shapes.Shape' })).structured as { ambiguous?: boolean; kind: string; otherParts?: Array<{ methods: Array<{ name: string }> }> };
    assert.equal(cls.ambiguous, undefined);
    assert.equal(cls.kind, 'interface');
    assert.deepEqual(cls.otherParts?.flatMap((p) => p.methods.map((x) => x.name)).sort(), ['helper', 'twice', 'unit']);
  });

  test(`${label}: every candidate of an ambiguous name, and every similar name suggested, can be asked for`, async () => {
    const out = await callTool(callChainTool, ws, { method: 'load', direction: 'callers' });
    const s = out.structured as { ambiguous?: boolean; source: string; candidates: Array<{ className: string }> };
    assert.equal(s.ambiguous, true, out.result);
    assert.equal(s.candidates.length, 3, out.result);
    for (const c of s.candidates) {
      const one = await chain(`${c.className}.load`).catch((e: unknown) => assert.fail(`${c.className}.load: ${String(e)}`));
      assert.equal(one.matches.length, 1, `${c.className}.load`);
      assert.equal(one.source, source);
      const cls = await callTool(readClassTool, ws, { className: c.className }).catch((e: unknown) => assert.fail(`read_class ${c.className}: ${String(e)}`));
      assert.notEqual((cls.structured as { ambiguous?: boolean }).ambiguous, true, `read_class ${c.className}`);
    }
    const miss = await callTool(readClassTool, ws, { className: 'Shap' }).then(() => assert.fail('Shap was found'), (e: unknown) => (e instanceof ToolError ? e.message : String(e)));
    const similar = /Similar: (.*)\.$/.exec(miss)?.[1]?.split(', ') ?? [];
    assert.ok(similar.length >= 1, miss);
    for (const name of similar) await callTool(readClassTool, ws, { className: name }).catch((e: unknown) => assert.fail(`read_class ${name}: ${String(e)}`));
  });

  test(`${label}: every class and method an answer lists can be asked for`, async () => {
    const asked = new Set<string>();
    const queue = ['main', 'Shape.twice', 'Cfg.load', 'util.pad', 'Outer.Inner.deep', 'Geo.Util.norm', 'Shape.helper', 'Shape.unit'];
    const walk = (nodes: readonly TreeNode[] | undefined): void => {
      for (const n of nodes ?? []) {
        if (n.className && n.methodName) queue.push(`${n.className}.${n.methodName}`);
        walk(n.children);
      }
    };
    while (queue.length) {
      const name = queue.shift() as string;
      if (asked.has(name)) continue;
      asked.add(name);
      const c = await chain(name).catch((e: unknown) => assert.fail(`${name}: ${e instanceof ToolError ? e.message : String(e)}`));
      for (const m of [...c.matches, ...(c.possibleCallers ?? [])]) queue.push(`${m.className}.${m.methodName}`);
      walk(c.callers);
      walk(c.callees);
      for (const m of c.matches) {
        const cls = await callTool(readClassTool, ws, { className: m.className }).catch((e: unknown) => assert.fail(`read_class ${m.className}: ${String(e)}`));
        assert.notEqual((cls.structured as { ambiguous?: boolean }).ambiguous, true, `read_class ${m.className} is ambiguous`);
        await callTool(readMethodTool, ws, { className: m.className, methodName: m.methodName }).catch((e: unknown) => assert.fail(`read_method ${m.className} ${m.methodName}: ${String(e)}`));
      }
    }
    assert.ok(asked.size >= 10, [...asked].join(', '));
  });
}
