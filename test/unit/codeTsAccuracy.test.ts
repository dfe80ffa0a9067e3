import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { callChainTool } from '../../src/core/tools/callChain';
import type { IntelCallItem } from '../../src/core/workspace/languageIntel';
import type { Workspace } from '../../src/core/workspace/workspace';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { ACCURACY_PROJECT, answerEdges, functionKey, functionsOf, score, type FunctionAt } from '../support/callAccuracy';
import { makeTree } from '../support/fixtures';
import { callTool } from '../support/tools';
import { TsLanguageIntel } from '../support/tsLanguageIntel';

/**
 * call_chain on the accuracy project (test/support/callAccuracy.ts) against the real TypeScript
 * language service's call hierarchy, computed here: through the language-server step every caller
 * and callee is found, nothing else; the parser alone is measured beside it.
 */

const root = makeTree({ ...ACCURACY_PROJECT }, 'ab-tsacc-');
const intel = new TsLanguageIntel(root);
const rel = (abs: string): string => path.relative(root, abs).split(path.sep).join('/');
const FUNCTION_KINDS = new Set(['Function', 'Method', 'Constructor']);

async function oracle(): Promise<{ functions: FunctionAt[]; callers: Set<string>; callees: Set<string> }> {
  const functions: FunctionAt[] = [];
  const callers = new Set<string>();
  const callees = new Set<string>();
  const keyOf = (i: IntelCallItem): string | undefined => (FUNCTION_KINDS.has(i.kind) && i.path.startsWith(root) ? functionKey(rel(i.path), i.range.start.line + 1) : undefined);
  for (const file of intel.files) {
    for (const f of functionsOf(rel(file), await intel.documentSymbols(file))) {
      functions.push(f);
      const [item] = await intel.prepareCallHierarchy(file, f.symbol.selectionRange.start);
      const me = item && keyOf(item);
      assert.ok(item && me, `no call hierarchy item for ${f.name}`);
      for (const c of await intel.incomingCalls(item)) if (keyOf(c.item)) callers.add(`${keyOf(c.item)} -> ${me}`);
      for (const c of await intel.outgoingCalls(item)) if (keyOf(c.item)) callees.add(`${me} -> ${keyOf(c.item)}`);
    }
  }
  return { functions, callers, callees };
}

async function answers(ws: Workspace, functions: readonly FunctionAt[], source: string): Promise<{ callers: Set<string>; callees: Set<string> }> {
  const callers = new Set<string>();
  const callees = new Set<string>();
  for (const f of functions) {
    const out = await callTool(callChainTool, ws, { method: f.name, direction: 'both', depth: 1 });
    const s = out.structured as { source: string; matches: unknown[] };
    assert.equal(s.source, source, `${f.name}: ${out.result}`);
    assert.equal(s.matches.length, 1, `${f.name}: ${out.result}`);
    const e = answerEdges(out.structured as Parameters<typeof answerEdges>[0]);
    for (const x of e.callers) callers.add(x);
    for (const x of e.callees) callees.add(x);
  }
  return { callers, callees };
}

test('through the language server, call_chain finds every call the TypeScript service knows, and no other', async (t) => {
  const truth = await oracle();
  assert.ok(truth.functions.length >= 18 && truth.callees.size >= 20, `${truth.functions.length} functions, ${truth.callees.size} calls`);
  const ws: Workspace = Object.assign(new NodeWorkspace(root), { languageIntel: intel });
  const found = await answers(ws, truth.functions, 'language-server');
  for (const dir of ['callers', 'callees'] as const) {
    const s = score(truth[dir], found[dir]);
    t.diagnostic(`language server ${dir}: recall ${s.recall.toFixed(2)} (${truth[dir].size - s.missed.length}/${truth[dir].size}), precision ${s.precision.toFixed(2)}`);
    assert.ok(s.recall >= 0.95 && s.precision >= 0.98, `${dir}: recall ${s.recall.toFixed(2)}, precision ${s.precision.toFixed(2)}; missed ${s.missed.join('; ')}; wrong ${s.wrong.join('; ')}`);
  }
});

test('the parser alone answers every name too, finds nearly every call and claims none the service does not know', async (t) => {
  const truth = await oracle();
  const found = await answers(new NodeWorkspace(root), truth.functions, 'parser');
  for (const dir of ['callers', 'callees'] as const) {
    const s = score(truth[dir], found[dir]);
    t.diagnostic(`parser ${dir}: recall ${s.recall.toFixed(2)} (${truth[dir].size - s.missed.length}/${truth[dir].size}), precision ${s.precision.toFixed(2)}; missed ${s.missed.join('; ')}`);
    assert.equal(s.precision, 1, `${dir}: wrong ${s.wrong.join('; ')}`);
    assert.ok(s.recall >= 0.95, `${dir}: missed ${s.missed.join('; ')}`);
  }
});

test('parser: a function declared inside a callback is a function of its own, its calls its own', async () => {
  const ws = new NodeWorkspace(root);
  const chain = async (method: string) => answerEdges((await callTool(callChainTool, ws, { method, direction: 'callees', depth: 1 })).structured as Parameters<typeof answerEdges>[0]).callees;
  // helper (line 27) calls Geo.Util.norm (shapes.ts:16); register (line 25) calls helper, log and pad, not norm.
  assert.deepEqual(await chain('app.helper'), ['tsacc/app.ts@27 -> tsacc/shapes.ts@16']);
  assert.deepEqual((await chain('register')).sort(), ['tsacc/app.ts@25 -> tsacc/$lib/util.ts@1', 'tsacc/app.ts@25 -> tsacc/app.ts@27', 'tsacc/app.ts@25 -> tsacc/provider.ts@18']);
});

test('parser: receivers typed by a file-level variable, by `T | undefined`, and by a Map or array element are resolved', async () => {
  const ws = new NodeWorkspace(root);
  const callees = async (method: string) => {
    const out = await callTool(callChainTool, ws, { method, direction: 'callees', depth: 1 });
    const roots = (out.structured as { callees: Array<{ children: Array<{ call?: string; methodName?: string; line?: number }> }> }).callees;
    return roots.flatMap((r) => r.children.filter((c) => c.methodName).map((c) => `${c.call} -> ${c.methodName}@${c.line}`));
  };
  // provider.ts: dispose@2, run@6, Migration.apply@11, Step.apply@14
  assert.deepEqual(await callees('App.stop'), ['provider.dispose() -> dispose@2', 'current.apply() -> apply@11', 'next.apply() -> apply@11']);
  assert.deepEqual(await callees('App.start'), ['this.providers.get(key)!.dispose() -> dispose@2', 'this.steps[0].apply() -> apply@14', 'this.providers.get(key).run(…) -> run@6']);
});

test('parser: a call through an interface is a caller of each class method that implements it, marked so', async () => {
  const out = await callTool(callChainTool, new NodeWorkspace(root), { method: 'Step.apply', direction: 'callers', depth: 1 });
  const callers = (out.structured as { callers: Array<{ children: Array<{ methodName?: string; call?: string; virtual?: boolean }> }> }).callers;
  assert.deepEqual(callers.flatMap((r) => r.children.map((c) => `${c.methodName} ${c.call}${c.virtual ? ' via supertype' : ''}`)).sort(), [
    'start this.steps[0].apply()',
    'stop current.apply() via supertype',
    'stop next.apply() via supertype',
  ]);
});

test('parser: of two nested functions of one name, a call reaches the one declared in the function around it', async () => {
  const ws = new NodeWorkspace(makeTree({
    'src/two.ts': [
      'export function a(): number {',
      '  function helper(): number {',
      '    return x();',
      '  }',
      '  return helper();',
      '}',
      'export function b(): number {',
      '  function helper(): number {',
      '    return 2;',
      '  }',
      '  return helper();',
      '}',
      'export function x(): number {',
      '  return 1;',
      '}',
      '',
    ].join('\n'),
  }, 'ab-tsnested-'));
  const edges = async (method: string, direction: 'callers' | 'callees') => answerEdges((await callTool(callChainTool, ws, { method, direction, depth: 1 })).structured as Parameters<typeof answerEdges>[0])[direction];
  assert.deepEqual(await edges('two.a', 'callees'), ['src/two.ts@1 -> src/two.ts@2']);
  assert.deepEqual(await edges('two.b', 'callees'), ['src/two.ts@7 -> src/two.ts@8']);
  assert.deepEqual(await edges('two.x', 'callers'), ['src/two.ts@2 -> src/two.ts@13']);
});
