import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CallGraph } from '../../src/core/code/index/callGraph';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { setCodeIntel } from '../../src/core/code/intel/state';
import { dropCodeIntel } from '../../src/core/code/intel/intel';
import { javaOutline } from '../../src/core/code/java/outline';
import type { ExtractMode } from '../../src/core/code/languages/registry';
import { extractFile, extractPacked } from '../../src/core/code/languages/registry';
import { callChainTool } from '../../src/core/tools/callChain';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { JAVA_PROJECT } from '../support/javaProject';
import { declarations, declsOf } from '../support/packed';
import { callTool } from '../support/tools';

/**
 * The index's first pass parses each Java file's outline (java/outline.ts): the text with every
 * body emptied. Its declarations must be exactly the full parse's, whatever the text holds.
 */

const lines = (t: string): number => t.split('\n').length;


/** `outlined` false: a text the outline cannot follow, parsed whole (call sites and all). */
async function sameDeclarations(rel: string, text: string, outlined = true): Promise<string> {
  const outline = javaOutline(text);
  assert.equal(lines(outline), lines(text), `${rel}: the outline keeps every line`);
  const packed = await extractPacked(rel, text, 'outline');
  assert.equal(packed?.outline, outlined ? true : undefined, rel);
  if (outlined) assert.equal(packed?.calls, undefined, 'no call sites from an outline');
  assert.equal(declarations(declsOf(packed)), declarations(await extractFile(rel, text)), rel);
  return outline;
}

const HOSTILE = `package p;

/** A class whose bodies hold every brace a lexer can trip on. */
@Anno({ "a{", "}" })
public class Tricky<T extends Comparable<T>> extends Base implements Runnable {
  static final int[] NUMS = { 1, 2, 3 };
  private final Runnable lambda = () -> { System.out.println("}"); };
  private Object anon = new Object() { @Override public String toString() { return "{"; } };
  static { init("}"); }
  { char c = '{'; char q = '\\''; char b = '}'; }
  /** Documented. */
  @Deprecated
  public <R> R map(java.util.function.Function<? super T, ? extends R> f) throws java.io.IOException {
    String s = "\\"}\\"{"; // }
    /* } */ String block = """
        } " "" \\""" {
        """;
    class Local { void inner() { } }
    if (s.isEmpty()) { return null; } else { return f.apply(null); }
  }
  void record() { record(); }
  int record;
  interface Inner { default void d() { } void abstractOne(); }
  record Point(int x, int y) {
    Point { if (x < 0) { throw new IllegalArgumentException(); } }
    int sum() { return x + y; }
  }
  enum Op {
    PLUS("+") { int apply(int a, int b) { return a + b; } },
    MINUS { int apply(int a, int b) { return a - b; } };
    final String sym;
    Op(String s) { sym = s; }
    Op() { this("-"); }
    abstract int apply(int a, int b);
  }
  @interface Marker { String[] value() default { "x" }; }
  public Tricky() { super(); }
  public void run() { }
}
class Second { void after() { } }
`;

test('an outline drops every body and keeps every declaration, whatever braces hide in strings, chars, comments and text blocks', async () => {
  const outline = await sameDeclarations('p/Tricky.java', HOSTILE);
  // the bodies are gone…
  for (const body of ['f.apply(null)', 'IllegalArgumentException', 'sym = s', 'return a + b', 'class Local', 'init("}")', "char c = '{'"]) {
    assert.ok(!outline.includes(body), `body text left in the outline: ${body}`);
  }
  // …the declarations, initializers and annotation values are not
  for (const kept of ['static final int[] NUMS = { 1, 2, 3 };', 'System.out.println("}")', '@Anno({ "a{", "}" })', 'default { "x" }', 'int record;', 'void abstractOne();']) {
    assert.ok(outline.includes(kept), `declaration text lost: ${kept}`);
  }
  const symbols = declsOf(await extractPacked('p/Tricky.java', HOSTILE, 'outline'));
  const names = symbols.types.map((t) => t.qname);
  assert.deepEqual(names, ['Tricky', 'Tricky.Inner', 'Tricky.Point', 'Tricky.Op', 'Tricky.Marker', 'Second']);
  const tricky = symbols.types[0];
  assert.deepEqual(tricky?.methods.map((m) => `${m.name}:${m.line}-${m.endLine}`), ['map:12-20', 'record:21-21', 'Tricky:37-37', 'run:38-38']);
});

test('a file cut off inside a body, CRLF line ends, and text outside any class keep their lines and declarations', async () => {
  await sameDeclarations('p/Cut.java', 'package p;\nclass Cut {\n  void a() {\n    if (x) {\n      y();\n', false);
  await sameDeclarations('p/Crlf.java', 'package p;\r\nclass Crlf {\r\n  void a() {\r\n    b();\r\n  }\r\n  int f;\r\n}\r\n');
  await sameDeclarations('p/Stray.java', '} } { class X { void m() { } } { ;', false);
  await sameDeclarations('p/Unterminated.java', 'class U {\n  String s = "never closed;\n  void m() { "}" }\n  char c = \'\n}\n', false);
});

test('other languages are parsed whole in the first pass: they have no outline', async () => {
  const packed = await extractPacked('src/a.ts', 'export function f() { g(); }\nfunction g() {}\n', 'outline');
  assert.equal(packed?.outline, undefined);
  assert.deepEqual(packed?.keys, ['g']);
});

test('the index answers from declarations first, then has every call site; a cache written between the passes resumes with the calls', async () => {
  const root = makeTree(JAVA_PROJECT, 'ab-outline-');
  const index = new CodeIndex(new NodeWorkspace(root), { workers: 0 });
  await index.declarationsReady();
  assert.equal(index.declarationsIn, true);
  assert.equal(index.isReady, false, 'the call sites are still being parsed');
  assert.equal(index.progress.phase === 'ready', false);
  const between = index.serialize();
  assert.match(between, /,1\]\n/, 'outlined files are marked in the cache');
  assert.ok(index.findTypes('Main').length, 'declarations answer at once');
  await index.ready();
  assert.equal(index.isReady, true);
  assert.doesNotMatch(index.serialize(), /,1\]\n/);
  const graph = new CallGraph(index);
  const main = graph.findMethods('com.acme.app.Main.main').matches;
  assert.equal(main.length, 1);
  const callees = graph.callees(main[0] as NonNullable<(typeof main)[0]>).length;
  assert.ok(callees > 0, 'the full pass brought the call sites');
  // A host that stopped after the first pass: its cache has declarations only; the next build parses
  // no declaration again, only the call sites, and ends with the same call graph.
  const resumed = new CodeIndex(new NodeWorkspace(root), { workers: 0 });
  assert.equal(resumed.load(between), index.fileCount);
  await resumed.ready();
  assert.equal(resumed.lastBuild?.parsed, 0);
  const again = new CallGraph(resumed).findMethods('com.acme.app.Main.main').matches;
  assert.equal(new CallGraph(resumed).callees(again[0] as NonNullable<(typeof again)[0]>).length, callees);
  assert.equal(resumed.serialize(), index.serialize());
});

/** A workspace whose reads of one file wait for a gate: the call-site pass holds that file in hand. */
class GatedWorkspace extends NodeWorkspace {
  gate: Promise<void> | undefined;
  gated = '';
  held = 0;
  override async readBytes(abs: string, size?: number): Promise<Uint8Array> {
    const bytes = await super.readBytes(abs, size);
    if (this.gate && abs.endsWith(this.gated)) {
      this.held++;
      await this.gate;
    }
    return bytes;
  }
}

async function holdDuringCalls(gated: string, meanwhile: (index: CodeIndex, root: string) => Promise<void>): Promise<CodeIndex> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 5; i++) files[`p/C${i}.java`] = `package p;\nclass C${i} { void m() { C0.x(); } }\n`;
  const root = makeTree(files, 'ab-outline-race-');
  const ws = new GatedWorkspace(root);
  const index = new CodeIndex(ws, { workers: 0 });
  await index.declarationsReady();
  let open = (): void => undefined;
  ws.gate = new Promise((resolve) => (open = resolve));
  ws.gated = gated;
  const done = index.ready();
  while (!ws.held) await new Promise((resolve) => setTimeout(resolve, 5));
  ws.gate = undefined;
  await meanwhile(index, root);
  open();
  await done;
  return index;
}

test('a file removed or saved while the call-site pass holds an older read keeps what happened meanwhile', async () => {
  const removed = await holdDuringCalls('C3.java', async (index, root) => {
    fs.rmSync(path.join(root, 'p/C3.java'));
    index.remove('p/C3.java');
  });
  assert.equal(removed.fileSymbols('p/C3.java'), undefined, 'a removed file came back');
  assert.deepEqual(removed.findTypes('C3'), []);
  const saved = await holdDuringCalls('C2.java', async (index, root) => {
    const file = path.join(root, 'p/C2.java');
    fs.writeFileSync(file, 'package p;\nclass C2 { void m() { } void fresh() { } }\n');
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later);
    await index.update('p/C2.java');
  });
  assert.deepEqual(saved.findTypes('C2')[0]?.type.methods.map((m) => m.name), ['m', 'fresh']);
});

test('a build that fails before the declarations are in rejects ready() and leaves no unhandled rejection', async () => {
  const unhandled: unknown[] = [];
  const note = (e: unknown): void => void unhandled.push(e);
  process.on('unhandledRejection', note);
  try {
    const index = new CodeIndex(new NodeWorkspace(makeTree({ 'A.java': 'class A {}' }, 'ab-outline-fail-')), {
      workers: 0,
      listFiles: async () => {
        throw new Error('listing failed');
      },
    });
    await assert.rejects(index.ready(), /listing failed/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', note);
  }
});

test('a file the outline cannot follow (a brace missing mid-edit, a string left open) is parsed whole, as the full parse sees it', async () => {
  const cases: Record<string, string> = {
    'p/Missing.java': 'class A {\n void f() {\n if (x) {\n y();\n }\n void g() { }\n int h;\n}\n',
    'p/Open.java': 'class A {\n void f() { String s = "abc;\n }\n void g() { }\n}\n',
    'p/Escape.java': 'class A {\n void f() { String s = "\\u005c"}"; }\n void g() { }\n}\n',
    'p/OpenChar.java': "class A {\n void f() { char c = '{; }\n void g() { }\n}\n",
  };
  for (const [rel, text] of Object.entries(cases)) {
    const packed = await extractPacked(rel, text, 'outline');
    assert.equal(packed?.outline, undefined, `${rel} was outlined`);
    assert.equal(declarations(declsOf(packed)), declarations(await extractFile(rel, text)), rel);
  }
  // an annotation element's default after an array dimension is a value, not a body
  assert.match(javaOutline('@interface M { String v()[] default { "x" }; }\n'), /default \{ "x" \}/);
});

test('a file saved or deleted while the first pass holds an older read keeps what happened meanwhile', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 5; i++) files[`src/m${i}.ts`] = `export function f${i}(): void {}\n`;
  const root = makeTree(files, 'ab-outline-first-');
  const ws = new GatedWorkspace(root);
  let open = (): void => undefined;
  ws.gate = new Promise((resolve) => (open = resolve));
  ws.gated = 'm2.ts';
  const index = new CodeIndex(ws, { workers: 0 });
  const declared = index.declarationsReady();
  while (!ws.held) await new Promise((resolve) => setTimeout(resolve, 5));
  ws.gate = undefined;
  // m2.ts saved (the pass holds its old text), m3.ts deleted (the pass may have it in hand too)
  const m2 = path.join(root, 'src/m2.ts');
  fs.writeFileSync(m2, 'export function saved(): void {}\n');
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(m2, later, later);
  await index.update('src/m2.ts');
  fs.rmSync(path.join(root, 'src/m3.ts'));
  index.remove('src/m3.ts');
  open();
  await declared;
  await index.ready();
  const names = (rel: string) => index.fileSymbols(rel)?.types.flatMap((t) => t.methods.map((m) => m.name));
  assert.deepEqual(names('src/m2.ts'), ['saved']);
  assert.equal(index.fileSymbols('src/m3.ts'), undefined);
  assert.deepEqual(names('src/m1.ts'), ['f1']);
});

test('a file whose full parse fails keeps its declarations, and call_chain says the calls made in it are missing', async () => {
  const ws = new NodeWorkspace(
    makeTree({
      'src/p/Task.java': 'package p;\npublic class Task { public void run() {} }\n',
      'src/p/Good.java': 'package p;\nclass Good { void go() { new Task().run(); } }\n',
      'src/p/Bad.java': 'package p;\nclass Bad { void go() { new Task().run(); } }\n',
    }),
  );
  /** As when extraction throws in the call-site pass: logged, and the outlined record stays. */
  class FailingFullParse extends CodeIndex {
    protected override store(rel: string, text: string, mtimeMs: number, size: number, mode: ExtractMode = 'full', stillWanted?: () => boolean): Promise<void> {
      if (mode === 'full' && rel.endsWith('Bad.java')) return Promise.resolve();
      return super.store(rel, text, mtimeMs, size, mode, stillWanted);
    }
  }
  const index = new FailingFullParse(ws, { workers: 0 });
  setCodeIntel(ws, { index, graph: new CallGraph(index) });
  try {
    await index.ready();
    assert.deepEqual(index.callSitesMissing(), ['src/p/Bad.java']);
    assert.equal(index.findTypes('Bad').length, 1, 'its declarations are in');
    const out = (await callTool(callChainTool, ws, { method: 'p.Task.run', direction: 'callers' })) as { result: string; structured: { callSitesMissing?: string[] } };
    assert.match(out.result, /Good\.go/);
    assert.doesNotMatch(out.result, /`Bad\.go`/);
    assert.match(out.result, /Calls made in 1 file\(s\) are not listed: their call sites could not be parsed \(see the log\): src\/p\/Bad\.java\./);
    assert.deepEqual(out.structured.callSitesMissing, ['src/p/Bad.java']);
  } finally {
    dropCodeIntel(ws);
  }
});
