import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { callTextAt } from '../../src/core/code/lsp/lspCalls';
import { parseMethodHead, parseVar, superTypes, toFileSymbols } from '../../src/core/code/lsp/lspModel';
import { callChainTool } from '../../src/core/tools/callChain';
import { readClassTool } from '../../src/core/tools/readClass';
import { readMethodTool } from '../../src/core/tools/readMethod';
import { dropCodeIntel } from '../../src/core/code/intel/intel';
import { silentLogger } from '../support/silentLogger';
import type { ToolDefinition } from '../../src/core/tools/tool';
import type { IntelCall, IntelCallItem, IntelPosition, IntelRange, IntelSymbol, IntelSymbolKind, LanguageIntel } from '../../src/core/workspace/languageIntel';
import type { Workspace } from '../../src/core/workspace/workspace';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { callTool } from '../support/tools';

/** The language-server path of read_class / read_method / call_chain, over a fake LanguageIntel (the core's own interface). */

const MATH_TS = `/** Adds and doubles numbers. */
export class Calculator {
  private total: number = 0;

  /** Adds two numbers. */
  add(a: number, b: number): number {
    this.total += 1;
    return a + b;
  }

  twice(x: number): number {
    return this.add(x, x);
  }
}

export function useCalculator(): number {
  const c = new Calculator();
  return c.twice(2);
}
`;

const r = (sl: number, sc: number, el: number, ec: number): IntelRange => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });
const sym = (name: string, kind: IntelSymbolKind, range: IntelRange, sel: IntelRange, children: IntelSymbol[] = []): IntelSymbol => ({ name, kind, range, selectionRange: sel, children });

const SYMBOLS: IntelSymbol[] = [
  sym('Calculator', 'Class', r(1, 0, 13, 1), r(1, 13, 1, 23), [
    sym('total', 'Property', r(2, 2, 2, 28), r(2, 10, 2, 15)),
    sym('add', 'Method', r(5, 2, 8, 3), r(5, 2, 5, 5)),
    sym('twice', 'Method', r(10, 2, 12, 3), r(10, 2, 10, 7)),
  ]),
  sym('useCalculator', 'Function', r(15, 0, 18, 1), r(15, 16, 15, 29)),
];

/** A fake server: knows ts/math.ts, and the calls add ← twice ← useCalculator. */
class FakeIntel implements LanguageIntel {
  calls = 0;
  constructor(
    private readonly root: string,
    private readonly opts: { fail?: boolean; hang?: boolean } = {},
  ) {}
  private file = (): string => path.join(this.root, 'ts', 'math.ts');
  private async gate(): Promise<void> {
    this.calls++;
    if (this.opts.fail) throw new Error('server crashed');
    if (this.opts.hang) await new Promise(() => undefined);
  }
  private item(name: string): IntelCallItem {
    const s = SYMBOLS.flatMap((x) => [x, ...x.children]).find((x) => x.name === name) as IntelSymbol;
    return { name, kind: s.kind, detail: name === 'useCalculator' ? '' : 'Calculator', path: this.file(), range: s.range, selectionRange: s.selectionRange };
  }
  async workspaceSymbols(query: string) {
    await this.gate();
    return query === 'Calculator' ? [{ name: 'Calculator', kind: 'Class' as const, path: this.file(), range: r(1, 0, 13, 1) }] : [];
  }
  async documentSymbols(absPath: string) {
    await this.gate();
    return absPath === this.file() ? SYMBOLS : [];
  }
  async prepareCallHierarchy(_absPath: string, p: IntelPosition) {
    await this.gate();
    const name = p.line === 5 ? 'add' : p.line === 10 ? 'twice' : p.line === 15 ? 'useCalculator' : undefined;
    return name ? [this.item(name)] : [];
  }
  async incomingCalls(item: IntelCallItem): Promise<IntelCall[]> {
    await this.gate();
    if (item.name === 'add') return [{ item: this.item('twice'), fromRanges: [r(11, 16, 11, 19)] }];
    if (item.name === 'twice') return [{ item: this.item('useCalculator'), fromRanges: [r(17, 11, 17, 16)] }];
    return [];
  }
  async outgoingCalls(item: IntelCallItem): Promise<IntelCall[]> {
    await this.gate();
    if (item.name === 'twice') return [{ item: this.item('add'), fromRanges: [r(11, 16, 11, 19)] }];
    if (item.name === 'add') return [{ item: { ...this.item('add'), name: 'max', detail: 'Math', path: '/usr/lib/lib.es5.d.ts' }, fromRanges: [r(7, 11, 7, 12)] }];
    return [];
  }
}

const JAVA = 'package app;\n\npublic class Greeter {\n    /** Says hello. */\n    public String greet(String name) {\n        return "Hello, " + name;\n    }\n}\n';

function workspace(intel?: (root: string) => LanguageIntel): Workspace {
  const root = makeTree({ 'ts/math.ts': MATH_TS, 'src/app/Greeter.java': JAVA });
  const base = new NodeWorkspace(root, { ripgrep: false });
  return intel ? Object.assign(base, { languageIntel: intel(base.root) }) : base;
}

async function run(tool: ToolDefinition, ws: Workspace, params: Record<string, unknown>): Promise<{ result: string; structured: Record<string, unknown> }> {
  const out = await callTool(tool, ws, params);
  return out as { result: string; structured: Record<string, unknown> };
}

test('document symbols map onto the model: members, signatures, parameters, docs, the module of functions', () => {
  const f = toFileSymbols('ts/math.ts', MATH_TS, SYMBOLS);
  const [calc, mod] = f.types;
  assert.equal(calc?.kind, 'class');
  assert.equal(calc?.signature, 'export class Calculator');
  assert.deepEqual(calc?.modifiers, ['export']);
  assert.equal(calc?.doc, 'Adds and doubles numbers.');
  assert.deepEqual(calc?.fields.map((x) => [x.name, x.type, x.modifiers]), [['total', 'number', ['private']]]);
  const add = calc?.methods[0];
  assert.equal(add?.signature, 'add(a: number, b: number): number');
  assert.deepEqual(add?.params.map((p) => [p.name, p.type]), [['a', 'number'], ['b', 'number']]);
  assert.equal(add?.returnType, 'number');
  assert.equal(add?.doc, 'Adds two numbers.');
  assert.deepEqual([add?.line, add?.endLine, add?.hasBody], [6, 9, true]);
  assert.equal(mod?.kind, 'module');
  assert.equal(mod?.name, 'math');
  assert.deepEqual(mod?.methods.map((m) => m.name), ['useCalculator']);
});

test('heads of other languages: C-like parameters, Python and C# supertypes, call text', () => {
  assert.deepEqual(parseVar('final int count'), { name: 'count', type: 'int' });
  assert.deepEqual(parseVar('...rest: string[]'), { name: 'rest', type: 'string[]' });
  assert.deepEqual(parseMethodHead('public List<String> names(Map<K, V> m, int n)', 'names'), {
    params: [{ name: 'm', type: 'Map<K, V>', line: 0 }, { name: 'n', type: 'int', line: 0 }],
    returnType: 'List<String>',
  });
  assert.equal(parseMethodHead('def area(self, r: float) -> float', 'area').returnType, 'float');
  assert.deepEqual(superTypes('class Circle(Shape, Mixin)').extends, ['Shape', 'Mixin']);
  assert.deepEqual(superTypes('public class Repo : IRepo, IDisposable'), { extends: ['IRepo', 'IDisposable'], implements: [] });
  assert.deepEqual(superTypes('export class A<T> extends B<T> implements C, D<T>'), { extends: ['B<T>'], implements: ['C', 'D<T>'] });
  const lines = MATH_TS.split('\n');
  assert.equal(callTextAt(lines, r(11, 16, 11, 19)), 'this.add(…)');
  assert.equal(callTextAt(lines, r(16, 16, 16, 26)), 'new Calculator()');
});

test('read_class and read_method answer from the language server, in the parser\'s shape', async () => {
  const ws = workspace((root) => new FakeIntel(root));
  const cls = await run(readClassTool, ws, { className: 'Calculator' });
  assert.equal(cls.structured.source, 'language-server');
  assert.match(cls.result, /source: language-server/);
  assert.deepEqual((cls.structured.methods as Array<{ name: string }>).map((m) => m.name), ['add', 'twice']);
  const java = await run(readClassTool, ws, { className: 'Greeter' });
  assert.equal(java.structured.source, 'parser');
  const keys = (s: Record<string, unknown>) => Object.keys(s).filter((k) => k !== 'doc').sort();
  assert.deepEqual(keys(cls.structured), keys(java.structured));

  const m = await run(readMethodTool, ws, { className: 'Calculator', methodName: 'add' });
  assert.equal(m.structured.source, 'language-server');
  const decl = (m.structured.methods as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
  assert.equal(decl.startLine, 5);
  assert.match(String(decl.code), /\/\*\* Adds two numbers\. \*\/\n {2}add\(a: number/);
  const jm = await run(readMethodTool, ws, { className: 'Greeter', methodName: 'greet' });
  assert.deepEqual(Object.keys(decl).sort(), Object.keys((jm.structured.methods as Array<Record<string, unknown>>)[0] as object).sort());
  await assert.rejects(run(readMethodTool, ws, { className: 'Calculator', methodName: 'nope' }), /No method nope in ts\.math\.Calculator\. Methods: add, twice/);
  dropCodeIntel(ws);
});

test('call_chain walks the call hierarchy to depth, marks calls leaving the project', async () => {
  const ws = workspace((root) => new FakeIntel(root));
  const callers = await run(callChainTool, ws, { method: 'Calculator.add', direction: 'callers', depth: 2 });
  assert.equal(callers.structured.source, 'language-server');
  type N = { className?: string; methodName?: string; callLine?: number; call?: string; external?: string; children: N[] };
  const root = (callers.structured.callers as N[])[0] as N;
  const twice = root.children[0] as N;
  assert.deepEqual([twice.className, twice.methodName, twice.callLine, twice.call], ['ts.math.Calculator', 'twice', 12, 'this.add(…)']);
  assert.deepEqual(twice.children.map((c) => [c.className, c.methodName, c.callLine]), [['ts.math', 'useCalculator', 18]]);
  const callees = await run(callChainTool, ws, { method: 'Calculator.twice', direction: 'callees', depth: 2 });
  const add = ((callees.structured.callees as N[])[0] as N).children[0] as N;
  assert.equal(add.methodName, 'add');
  assert.deepEqual(add.children.map((c) => c.external), ['Math.max']);
  assert.match(callees.result, /`Math\.max` \(outside the project\)/);
  const fn = await run(callChainTool, ws, { method: 'useCalculator', direction: 'callees' });
  assert.equal(fn.structured.source, 'language-server');
  dropCodeIntel(ws);
});

test('no languageIntel, a failing server, a hanging server: the parser answers', async () => {
  for (const ws of [workspace(), workspace((root) => new FakeIntel(root, { fail: true }))]) {
    const java = await run(readClassTool, ws, { className: 'Greeter' });
    assert.equal(java.structured.source, 'parser');
    // Without a (working) server, the TypeScript class is the parser's too.
    const ts = await run(readClassTool, ws, { className: 'Calculator' });
    assert.equal(ts.structured.source, 'parser');
    assert.deepEqual((ts.structured.methods as Array<{ name: string }>).map((m) => m.name), ['add', 'twice']);
    dropCodeIntel(ws);
  }
  const { viaLanguageServer } = await import('../../src/core/code/lsp/attempt');
  const hanging = workspace((root) => new FakeIntel(root, { hang: true }));
  const ctx = { workspace: hanging, callId: 'c', signal: new AbortController().signal, log: silentLogger };
  const attempt = await viaLanguageServer(ctx, 'read_class', (s) => s.findClasses('Calculator'), 50);
  assert.equal(attempt.value, undefined);
  assert.match(attempt.note ?? '', /did not answer within 0\.05 s/);
});
