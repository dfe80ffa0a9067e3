import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callChainTool } from '../../src/core/tools/callChain';
import { readClassTool } from '../../src/core/tools/readClass';
import { readMethodTool } from '../../src/core/tools/readMethod';
import { codeIntelFor } from '../../src/core/code/intel/intel';
import type { ToolDefinition } from '../../src/core/tools/tool';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { CASES, POLYGLOT_PROJECT } from '../support/polyglotProject';
import { callTool } from '../support/tools';

/**
 * read_class, read_method and call_chain over the same small project in TypeScript, JavaScript,
 * Python, Go, C# and Kotlin (test/support/polyglotProject.ts), parsed by the extension's own
 * tree-sitter grammars: structure and full source, every overload, and callee and caller trees
 * two levels deep with the cycle cut and marked and the undeclared call listed as unresolved.
 */

const ws = new NodeWorkspace(makeTree(POLYGLOT_PROJECT, 'ab-polyglot-'));

const call = (tool: ToolDefinition, params: Record<string, unknown>) => callTool(tool, ws, params);

interface Node {
  className?: string;
  methodName?: string;
  path?: string;
  line?: number;
  callLine?: number;
  cycle?: boolean;
  external?: string;
  unresolved?: Array<{ call: string; reason: string; line: number }>;
  children: Node[];
}

const names = (nodes: readonly Node[]): string[] => nodes.map((n) => n.methodName ?? n.external ?? '?');

test('every language is indexed by its own grammar, and the files parse without errors', async () => {
  const { index } = codeIntelFor(ws);
  await index.ready();
  const langs = new Map<string, string>();
  for (const [rel, f] of index.allFiles()) {
    langs.set(rel, f.language);
    assert.ok(!f.hasErrors, `${rel} has syntax errors`);
  }
  assert.equal(langs.get('ts/shop/service.ts'), 'typescript');
  assert.equal(langs.get('ts/view.tsx'), 'tsx');
  assert.equal(langs.get('js/main.mjs'), 'javascript');
  assert.equal(langs.get('py/shop/service.py'), 'python');
  assert.equal(langs.get('go/shop/service.go'), 'go');
  assert.equal(langs.get('cs/Service.cs'), 'csharp');
  assert.equal(langs.get('kt/shop/Service.kt'), 'kotlin');
});

for (const c of CASES) {
  test(`${c.language}: read_class structure gives package, declaration, fields, methods with lines and doc`, async () => {
    const out = await call(readClassTool, { className: c.service });
    const s = out.structured as { source: string; className: string; path: string; doc?: string; methods: Array<{ name: string; line: number; doc?: string }>; fields: Array<{ name: string; type: string }> };
    assert.equal(s.source, 'parser');
    assert.equal(s.className, c.service);
    assert.equal(s.path, c.servicePath);
    assert.match(s.doc ?? '', /andles orders\./);
    const handles = s.methods.filter((m) => m.name === c.handle);
    assert.equal(handles.length, c.overloads);
    assert.ok(handles.some((m) => /andles one order\.$/.test(m.doc ?? '')), JSON.stringify(handles));
    assert.ok(s.methods.some((m) => m.name === c.check));
    assert.ok(s.fields.some((f) => f.name === 'repo'), JSON.stringify(s.fields));
    const text = POLYGLOT_PROJECT[c.servicePath] as string;
    const handleLine = text.split('\n').findIndex((l) => new RegExp(`\\b${c.handle}\\(`).test(l) && !/^\s*(\/\/|\/\*|\*)/.test(l)) + 1;
    assert.equal(Math.min(...handles.map((m) => m.line)), handleLine);
    assert.match(out.result, new RegExp(`source: parser`));
  });

  test(`${c.language}: read_class full gives the numbered source`, async () => {
    const out = await call(readClassTool, { className: c.service, mode: 'full' });
    const s = out.structured as { content: string; startLine: number };
    const lines = (POLYGLOT_PROJECT[c.servicePath] as string).split('\n');
    assert.equal(s.content, lines.slice(s.startLine - 1, s.startLine - 1 + s.content.split('\n').length).join('\n'));
    assert.match(s.content, new RegExp(`${c.check}\\(`));
  });

  test(`${c.language}: read_method gives every overload with its source`, async () => {
    const out = await call(readMethodTool, { className: c.service, methodName: c.handle });
    const s = out.structured as { methods: Array<{ code: string; startLine: number }> };
    assert.equal(s.methods.length, c.overloads);
    assert.ok(s.methods.some((m) => m.code.includes('mystery')));
  });

  test(`${c.language}: call_chain callees, depth 2: own methods, another file's function, a field's class; the cycle marked; mystery unresolved`, async () => {
    const out = await call(callChainTool, { method: `${c.service}.${c.handle}`, direction: 'callees', depth: 2 });
    const roots = (out.structured as { callees: Node[] }).callees;
    const root = roots.find((r) => r.unresolved?.some((u) => u.call.startsWith('mystery.')));
    assert.ok(root, `no root with mystery unresolved: ${JSON.stringify(roots)}`);
    const kids = names(root.children);
    assert.ok(kids.includes(c.check), `callees ${kids.join(', ')}`);
    assert.ok(kids.includes(c.log), `callees ${kids.join(', ')}`);
    const check = root.children.find((n) => n.methodName === c.check) as Node;
    assert.equal(check.className, c.service);
    assert.ok(names(check.children).includes(c.save), `check calls ${names(check.children).join(', ')}`);
    // Overloads of the same arity are all possible targets; the one on the path is the cycle.
    const back = check.children.filter((n) => n.methodName === c.handle);
    assert.ok(back.some((n) => n.cycle), `cycle not marked: ${JSON.stringify(check.children)}`);
    const save = check.children.find((n) => n.methodName === c.save) as Node;
    assert.match(save.path ?? '', /[Rr]epo\.\w+$/);
    assert.ok((root.unresolved ?? []).every((u) => u.reason.length > 0));
    assert.match(out.result, /↻ cycle/);
    assert.match(out.result, /unresolved: `mystery\.\w+\(…\)`/);
  });

  test(`${c.language}: call_chain callers, depth 2: the entry point in another file and the cycle through check`, async () => {
    const out = await call(callChainTool, { method: `${c.service}.${c.handle}`, direction: 'callers', depth: 2 });
    const roots = (out.structured as { callers: Node[] }).callers;
    const all = roots.flatMap((r) => r.children);
    const [entryPath, entryMethod] = c.entry.split(':');
    assert.ok(all.some((n) => n.path === entryPath && n.methodName === entryMethod), `callers ${all.map((n) => `${n.path}:${n.methodName}`).join(', ')}`);
    const check = all.find((n) => n.methodName === c.check) as Node;
    assert.ok(check, `callers ${names(all).join(', ')}`);
    assert.ok(check.callLine && check.callLine > 0);
    assert.ok(check.children.some((n) => n.methodName === c.handle && n.cycle), JSON.stringify(check.children));
  });
}

test('tsx: a component function is in the file module, and its call inside JSX reaches Service.handle', async () => {
  const out = await call(readClassTool, { className: 'ts.view' });
  const s = out.structured as { kind: string; methods: Array<{ name: string }> };
  assert.equal(s.kind, 'module');
  assert.deepEqual(s.methods.map((m) => m.name), ['View']);
  const callers = await call(callChainTool, { method: 'ts.shop.service.Service.handle', direction: 'callers', depth: 1 });
  const all = (callers.structured as { callers: Node[] }).callers.flatMap((r) => r.children);
  assert.ok(all.some((n) => n.path === 'ts/view.tsx' && n.methodName === 'View'));
});

test('a simple name several languages share lists every candidate with its path', async () => {
  const out = await call(readClassTool, { className: 'Repo' });
  const s = out.structured as { ambiguous: boolean; candidates: Array<{ path: string }> };
  assert.equal(s.ambiguous, true);
  assert.equal(s.candidates.length, 6);
  const picked = await call(readClassTool, { className: 'Repo', relativePath: 'go/shop/repo.go' });
  assert.equal((picked.structured as { kind: string }).kind, 'struct');
});

test('a class is found before the module of the same name; a module by its dotted path', async () => {
  const { index } = codeIntelFor(ws);
  await index.ready();
  const util = index.findTypes('ts.shop.util');
  assert.deepEqual(util.map((e) => `${e.type.kind} ${e.path}`), ['module ts/shop/util.ts']);
  const log = await call(readMethodTool, { className: 'ts.shop.util', methodName: 'log' });
  assert.match((log.structured as { methods: Array<{ code: string }> }).methods[0]?.code ?? '', /Writes a line/);
});

/** The tools over a small project of a test's own. */
function toolsOver(files: Record<string, string>, prefix: string) {
  const local = new NodeWorkspace(makeTree(files, prefix));
  return { local, run: (tool: ToolDefinition, params: Record<string, unknown>) => callTool(tool, local, params) };
}

test('top-level code that runs when a module loads is a caller: Python `if __name__ == "__main__"`, a TypeScript script, `export default f(…)`', async () => {
  const { local, run } = toolsOver(
    {
      'tools/jobs.py': 'def run(n):\n    return n\n\ndef helper():\n    pass\n',
      'tools/cli.py': 'from tools.jobs import run\n\ndef unused():\n    helper()\n\nif __name__ == "__main__":\n    run(3)\n',
      'web/lib.ts': 'export function start(port: number): number {\n  return port;\n}\n',
      'web/main.ts': "import { start } from './lib';\n\nconst port = 8080;\nstart(port);\n\nexport function later(): void {}\n",
      'web/config.ts': "import { start } from './lib';\n\nexport default start(1);\n",
    },
    'ab-module-calls-',
  );
  const chain = async (method: string) => (await run(callChainTool, { method, direction: 'callers', depth: 1 })).structured as { callers: Node[] };
  const py = await chain('jobs.run');
  assert.deepEqual(py.callers[0]?.children.map((c) => [c.className, c.methodName, c.path, c.callLine]), [['tools.cli', '<module>', 'tools/cli.py', 7]]);
  const ts = await chain('lib.start');
  assert.deepEqual(
    ts.callers[0]?.children.map((c) => [c.path, c.methodName, c.callLine]).sort(),
    [['web/config.ts', '<module>', 3], ['web/main.ts', '<module>', 4]],
  );
  // the module's functions are not the module's load-time code: `unused` calls helper, not run
  const fileMembers = codeIntelFor(local).index.fileSymbols('tools/cli.py')?.types[0]?.methods.map((m) => m.name);
  assert.deepEqual(fileMembers, ['unused', '<module>']);
});

test('a Go type with methods in other files of its package, and a C# partial class, are one type, not an ambiguity', async () => {
  const { run } = toolsOver(
    {
      'srv/server.go': 'package srv\n\n// Server serves.\ntype Server struct {\n\tport int\n}\n\nfunc (s *Server) Start() error {\n\treturn s.listen()\n}\n',
      'srv/listen.go': 'package srv\n\nfunc (s *Server) listen() error {\n\treturn nil\n}\n\nfunc (s *Server) Stop() {}\n',
      'App/Shop.cs': 'namespace App;\n\npublic partial class Shop\n{\n    public int Total() { return Sum(); }\n}\n',
      'App/Shop.Sum.cs': 'namespace App;\n\npublic partial class Shop\n{\n    private int Sum() { return 0; }\n}\n',
    },
    'ab-parts-',
  );
  const go = await run(readClassTool, { className: 'Server' });
  const gs = go.structured as { ambiguous?: boolean; path: string; methods: Array<{ name: string }>; otherParts: Array<{ path: string; methods: Array<{ name: string; line: number }> }> };
  assert.equal(gs.ambiguous, undefined, go.result);
  assert.equal(gs.path, 'srv/server.go');
  assert.deepEqual(gs.methods.map((m) => m.name), ['Start']);
  assert.deepEqual(gs.otherParts.map((p) => [p.path, p.methods.map((m) => `${m.name}@${m.line}`)]), [['srv/listen.go', ['listen@3', 'Stop@7']]]);
  assert.match(go.result, /### Also written in other files \(1\)\n- srv\/listen\.go, /);
  const cs = (await run(readClassTool, { className: 'App.Shop' })).structured as { ambiguous?: boolean; path: string; otherParts: Array<{ path: string }> };
  assert.equal(cs.ambiguous, undefined);
  assert.deepEqual([cs.path, cs.otherParts.map((p) => p.path)], ['App/Shop.cs', ['App/Shop.Sum.cs']]);
  // a method in the other file is read as the type's
  const listen = await run(readMethodTool, { className: 'Server', methodName: 'listen' });
  assert.match(listen.result, /srv\/listen\.go:3/);
});

test('a method called on an array or a standard collection of project types is the container\'s, not the element type\'s (TypeScript, Python, Go, Kotlin, C#)', async () => {
  const files: Record<string, string> = {
    'ts/cart.ts': 'export class CartLine {\n  total(): number { return 1; }\n}\nexport class Cart {\n  sum(lines: CartLine[], more: Array<CartLine>): number {\n    more.push(lines[0]);\n    return lines.reduce((a, l) => a + l.total(), 0);\n  }\n}\n',
    'py/cart.py': 'class CartLine:\n    def total(self) -> int:\n        return 1\n\nclass Cart:\n    def sum(self, lines: list[CartLine]) -> int:\n        lines.append(CartLine())\n        return 0\n',
    'go/cart/cart.go': 'package cart\n\ntype CartLine struct{}\n\nfunc (c CartLine) Total() int { return 1 }\n\ntype Cart struct{}\n\nfunc (c Cart) Sum(lines []CartLine) int {\n\tlines.Total()\n\treturn 0\n}\n',
    'kt/Cart.kt': 'package cart\n\nclass CartLine {\n    fun total(): Int = 1\n}\n\nclass Cart {\n    fun sum(lines: List<CartLine>): Int {\n        return lines.size + lines.count()\n    }\n}\n',
    'cs/Cart.cs': 'namespace Shop {\n  public class CartLine {\n    public int Total() { return 1; }\n  }\n  public class Cart {\n    public int Sum(CartLine[] lines) {\n      return lines.Count();\n    }\n  }\n}\n',
  };
  for (const [file, method, call] of [
    ['ts/cart.ts', 'Cart.sum', 'reduce'],
    ['ts/cart.ts', 'Cart.sum', 'push'],
    ['py/cart.py', 'Cart.sum', 'append'],
    ['go/cart/cart.go', 'Cart.Sum', 'Total'],
    ['kt/Cart.kt', 'Cart.sum', 'count'],
    ['cs/Cart.cs', 'Cart.Sum', 'Count'],
  ] as const) {
    // One language per folder, so the simple names do not collide.
    const local = new NodeWorkspace(makeTree({ [file]: files[file] as string }, 'ab-collections-'));
    const out = await callTool(callChainTool, local, { method, direction: 'callees', depth: 1 }).catch((e: Error) => ({ structured: { error: e.message } }));
    const roots = ((out.structured as { callees?: Node[] }).callees ?? []) as Node[];
    const u = roots.flatMap((r) => r.unresolved ?? []).find((x) => x.call.includes(`.${call}(`));
    assert.ok(u, `${method}: no unresolved ${call} in ${JSON.stringify(out.structured)}`);
    assert.match(u.reason, /built in/, `${method} ${call}: ${u.reason}`);
    assert.doesNotMatch(u.reason, /no method/);
  }
});
