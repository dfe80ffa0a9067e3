import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callChainTool } from '../../src/core/tools/callChain';
import { readClassTool } from '../../src/core/tools/readClass';
import { readMethodTool } from '../../src/core/tools/readMethod';
import { ToolError } from '../../src/core/protocol/errors';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { callTool } from '../support/tools';

/**
 * The names a user writes for TypeScript namespace members (`Shape.twice`, `Geo.Util.norm`), a
 * namespace merged with an interface or a type alias, a default-imported namespace and a module
 * in a `$` folder, answered by the parser: each can be asked for, and each call through them is
 * resolved. Every name an answer lists can be asked for in turn.
 */

const TS_NAMES_PROJECT: Record<string, string> = {
  'src/shapes.ts': [
    'export interface Shape {',
    '  area(): number;',
    '}',
    'export namespace Shape {',
    '  export function unit(): Shape {',
    '    return { area: () => 1 };',
    '  }',
    '  export function twice(s: Shape): number {',
    '    return helper(s) * 2;',
    '  }',
    '  function helper(s: Shape): number {',
    '    return s.area();',
    '  }',
    '}',
    'export namespace Geo.Util {',
    '  export function norm(): number {',
    '    return Shape.twice(Shape.unit());',
    '  }',
    '}',
    'export namespace Outer {',
    '  export namespace Inner {',
    '    export function deep(): number {',
    '      return Geo.Util.norm();',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/cfg.ts': 'type Cfg = { a: number };\nnamespace Cfg {\n  export function load(): Cfg {\n    return { a: 1 };\n  }\n}\nexport default Cfg;\n',
  'src/$lib/util.ts': 'export function pad(s: string): string {\n  return s.trim();\n}\n',
  'src/app.ts': [
    "import { Shape } from './shapes';",
    "import * as geo from './shapes';",
    "import Cfg from './cfg';",
    "import { pad } from './$lib/util';",
    'export function main(): number {',
    "  pad('x');",
    '  Cfg.load();',
    '  return Shape.twice(Shape.unit()) + geo.Outer.Inner.deep();',
    '}',
    '',
  ].join('\n'),
};

const ws = new NodeWorkspace(makeTree(TS_NAMES_PROJECT, 'ab-tsnames-'));

interface TreeNode {
  className?: string;
  methodName?: string;
  unresolved?: Array<{ call: string; reason: string }>;
  children: TreeNode[];
}
interface Chain {
  source: string;
  matches: Array<{ className: string; methodName: string }>;
  callers?: TreeNode[];
  callees?: TreeNode[];
  possibleCallers?: Array<{ className: string; methodName: string }>;
}

const chain = async (method: string): Promise<Chain> => (await callTool(callChainTool, ws, { method, direction: 'both', depth: 1 })).structured as Chain;
const edges = (nodes: readonly TreeNode[] | undefined): string[] => (nodes ?? []).flatMap((r) => r.children.map((c) => `${c.className}.${c.methodName}`)).sort();

test('calls through a namespace, a nested namespace and a namespace merged with an interface are resolved', async () => {
  const twice = await chain('Shape.twice');
  assert.equal(twice.source, 'parser');
  assert.deepEqual(twice.matches.map((m) => `${m.className}.${m.methodName}`), ['src.shapes.Shape.twice']);
  assert.deepEqual(edges(twice.callers), ['src.app.main', 'src.shapes.Geo.Util.norm']);
  assert.deepEqual(edges(twice.callees), ['src.shapes.Shape.helper']);
  assert.deepEqual(edges((await chain('Geo.Util.norm')).callers), ['src.shapes.Outer.Inner.deep']);
  // `geo.Outer.Inner.deep()` through `import * as geo`
  assert.deepEqual(edges((await chain('Outer.Inner.deep')).callers), ['src.app.main']);
  assert.deepEqual(edges((await chain('Shape.unit')).callers), ['src.app.main', 'src.shapes.Geo.Util.norm']);
});

test('a default-imported namespace merged with a type alias, and a module in a $ folder, are reached', async () => {
  assert.deepEqual(edges((await chain('Cfg.load')).callers), ['src.app.main']);
  const pad = await chain('util.pad');
  assert.deepEqual(pad.matches.map((m) => m.className), ['src.$lib.util']);
  assert.deepEqual(edges(pad.callers), ['src.app.main']);
  assert.deepEqual(edges((await chain('src.$lib.util.pad')).callers), ['src.app.main']);
  const main = await chain('main');
  assert.deepEqual(edges(main.callees), ['src.$lib.util.pad', 'src.cfg.Cfg.load', 'src.shapes.Outer.Inner.deep', 'src.shapes.Shape.twice', 'src.shapes.Shape.unit']);
  assert.deepEqual(main.callees?.flatMap((r) => r.unresolved ?? []), []);
});

test('read_method and read_class take a namespace member as the user writes it', async () => {
  const m = (await callTool(readMethodTool, ws, { className: 'Shape', methodName: 'twice' })).structured as { methods: Array<{ code: string }> };
  assert.match(m.methods[0]?.code ?? '', /export function twice/);
  const nested = (await callTool(readMethodTool, ws, { className: 'Geo.Util', methodName: 'norm' })).structured as { methods: Array<{ code: string }> };
  assert.match(nested.methods[0]?.code ?? '', /function norm/);
  // The interface and the namespace share one name: one answer, the namespace as its other part.
  const cls = (await callTool(readClassTool, ws, { className: 'src.shapes.Shape' })).structured as { ambiguous?: boolean; kind: string; otherParts?: Array<{ methods: Array<{ name: string }> }> };
  assert.equal(cls.ambiguous, undefined);
  assert.equal(cls.kind, 'interface');
  assert.deepEqual(cls.otherParts?.flatMap((p) => p.methods.map((x) => x.name)), ['unit', 'twice', 'helper']);
});

test('every class and method an answer lists can be asked for', async () => {
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
  assert.ok(asked.size >= 12, [...asked].join(', '));
});
