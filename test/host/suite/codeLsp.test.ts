import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { connectedBackend, rootCall } from './backend';

/**
 * read_class / read_method / call_chain answered by VS Code's TypeScript language server (a small
 * TS project written into the workspace here), and by the extension's parser for the fixture's
 * Java (no Java server in this host), in the same result shape.
 */

const MATH_TS = `/** Adds and doubles numbers. */
export class Calculator {
  private total = 0;

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

type Data = { success: boolean; error?: string; result: string; structured: Record<string, unknown> };
type Node = { className?: string; methodName?: string; children: Node[] };

/** Keys of `structured` that only some answers carry. */
const OPTIONAL = new Set(['doc', 'outer', 'possibleCallers', 'sources']);
const shape = (s: Record<string, unknown>) => Object.keys(s).filter((k) => !OPTIONAL.has(k)).sort();

describe('Code intelligence from the language server (TypeScript) and the parser (Java)', () => {

  const call = async (tool: string, params: Record<string, unknown>): Promise<Data> => (await live.backend.call(rootCall(tool, params))).data as Data;

  /** Calls until the language server answers (it needs a few seconds to start), with a deadline. */
  const fromServer = async (tool: string, params: Record<string, unknown>, deadlineMs = 100_000): Promise<Data> => {
    const start = Date.now();
    let last: Data | undefined;
    while (Date.now() - start < deadlineMs) {
      last = await call(tool, params);
      if (last.success && last.structured?.source === 'language-server') return last;
      await new Promise((r) => setTimeout(r, 1000));
    }
    throw new Error(`${tool} never answered from the language server; last answer: ${JSON.stringify(last).slice(0, 600)}`);
  };

  before(() => {
    const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    fs.mkdirSync(path.join(root, 'ts'), { recursive: true });
    fs.writeFileSync(path.join(root, 'ts', 'math.ts'), MATH_TS);
    fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'ES2020', module: 'commonjs' }, include: ['ts/**/*.ts'] }));
  });
  const live = connectedBackend();

  it('read_class lists a TypeScript class\'s members, from the language server', async function () {
    this.timeout(120_000);
    const res = await fromServer('read_class', { className: 'Calculator' });
    const s = res.structured as { path: string; doc?: string; methods: Array<{ name: string; line: number; doc?: string }>; fields: Array<{ name: string }> };
    assert.equal(s.path, 'ts/math.ts');
    assert.deepEqual(s.methods.map((m) => m.name), ['add', 'twice']);
    assert.deepEqual(s.fields.map((f) => f.name), ['total']);
    assert.equal(s.methods[0]?.line, 6);
    assert.equal(s.methods[0]?.doc, 'Adds two numbers.');
    assert.equal(s.doc, 'Adds and doubles numbers.');
    assert.match(res.result, /source: language-server/);
    assert.match(res.result, /add\(a: number, b: number\): number/);
  });

  it('read_method gives a TypeScript method\'s source, from the language server', async function () {
    this.timeout(60_000);
    const res = await fromServer('read_method', { className: 'Calculator', methodName: 'add' });
    const m = (res.structured.methods as Array<{ code: string; startLine: number; line: number }>)[0]!;
    assert.match(m.code, /return a \+ b;/);
    assert.match(m.code, /Adds two numbers/);
    assert.equal(m.startLine, 5);
    assert.match(res.result, /```ts/);
  });

  it('call_chain follows the call hierarchy: Calculator.add ← twice ← useCalculator, and twice → add', async function () {
    this.timeout(60_000);
    const callers = await fromServer('call_chain', { method: 'Calculator.add', direction: 'callers', depth: 2 });
    const root = (callers.structured.callers as Node[])[0]!;
    const twice = root.children.find((c) => c.methodName === 'twice');
    assert.ok(twice, callers.result);
    assert.equal(twice.className, 'ts.math.Calculator');
    assert.ok(twice.children.some((c) => c.methodName === 'useCalculator'), callers.result);
    const callees = await fromServer('call_chain', { method: 'Calculator.twice', direction: 'callees' });
    assert.ok((callees.structured.callees as Node[])[0]!.children.some((c) => c.methodName === 'add' && c.className === 'ts.math.Calculator'), callees.result);
    assert.match(callees.result, /Source: language-server/);
  });

  it('Java still answers from the parser, in the same result shape', async function () {
    this.timeout(60_000);
    const tsClass = await fromServer('read_class', { className: 'Calculator' });
    const javaClass = await call('read_class', { className: 'Greeter' });
    assert.equal(javaClass.success, true, javaClass.error);
    assert.equal(javaClass.structured.source, 'parser');
    assert.deepEqual(shape(javaClass.structured), shape(tsClass.structured));

    const tsMethod = await fromServer('read_method', { className: 'Calculator', methodName: 'add' });
    const javaMethod = await call('read_method', { className: 'Greeter', methodName: 'greet' });
    assert.equal(javaMethod.structured.source, 'parser');
    assert.deepEqual(shape(javaMethod.structured), shape(tsMethod.structured));
    const methodKeys = (d: Data) => shape((d.structured.methods as Array<Record<string, unknown>>)[0]!);
    assert.deepEqual(methodKeys(javaMethod), methodKeys(tsMethod));

    const tsChain = await fromServer('call_chain', { method: 'Calculator.add', direction: 'both' });
    const javaChain = await call('call_chain', { method: 'Greeter.greet', direction: 'both' });
    assert.equal(javaChain.structured.source, 'parser');
    assert.deepEqual(shape(javaChain.structured), shape(tsChain.structured));
  });
});
