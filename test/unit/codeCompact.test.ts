import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SymbolInterner } from '../../src/core/code/compactSymbols';
import { extractPacked } from '../../src/core/code/languages/registry';
import type { FileSymbols, ImportSymbol, MethodSymbol, ParamSymbol } from '../../src/core/code/model';
import { unpackJson } from '../../src/core/code/packedSymbols';

/** The index shares what declarations repeat (compactSymbols.ts) without changing a single answer. */

const A = `package p;
import java.util.List;
public class A {
  private static final int N = 1;
  public static void main(String[] args) {}
  public List<String> names() { return null; }
}
`;
const B = `package p;
import java.util.List;
import static java.util.List.of;
public class B extends A implements Runnable {
  public void run() {}
  public static void main(String[] args) {}
  void main(String[] argv) {}
  void main(final String[] args, int n) {}
}
`;

test('compacted symbols equal the plain ones, and share repeated lists and empty ones', async () => {
  const interner = new SymbolInterner();
  const [pa, pb] = await Promise.all([extractPacked('p/A.java', A), extractPacked('p/B.java', B)]);
  assert.ok(pa && pb);
  const a = unpackJson(pa, interner).symbols;
  const b = unpackJson(pb, interner).symbols;
  assert.deepEqual(a, unpackJson(pa).symbols);
  assert.deepEqual(b, unpackJson(pb).symbols);
  const [ta, tb] = [a.types[0], b.types[0]];
  assert.ok(ta && tb);
  const mainA = ta.methods.find((m) => m.name === 'main');
  const mainB = tb.methods.find((m) => m.name === 'main');
  assert.ok(mainA && mainB);
  assert.equal(mainA.modifiers, mainB.modifiers, '["public", "static"] is one array');
  assert.deepEqual(mainA.modifiers, ['public', 'static']);
  assert.equal(ta.modifiers, tb.modifiers);
  assert.equal(ta.annotations, mainA.annotations, 'every empty list is one array');
  assert.equal(ta.extends, ta.implements);
  // Shared lists are frozen: a stored record written to would change other files' answers.
  assert.throws(() => (mainA.modifiers as string[]).push('final'), TypeError);
  assert.throws(() => (ta.annotations as string[]).push('@X'), TypeError);
  assert.deepEqual(mainB.modifiers, ['public', 'static']);
  // Equal parameter lists and equal imports are one object; a list that differs in a name or
  // a length is its own.
  assert.equal(mainA.params, mainB.params, '(String[] args) is one list');
  assert.deepEqual(mainA.params, [{ name: 'args', type: 'String[]' }]);
  const [, argv, withN] = tb.methods.filter((m) => m.name === 'main');
  assert.ok(argv && withN);
  assert.notEqual(argv.params, mainA.params);
  assert.deepEqual(argv.params, [{ name: 'argv', type: 'String[]' }]);
  assert.deepEqual(withN.params, [{ name: 'args', type: 'String[]' }, { name: 'n', type: 'int' }]);
  assert.equal(withN.params[0], mainA.params[0], 'String[] args is one object in both lists');
  assert.throws(() => ((mainA.params as unknown[])[0] as { name: string }).name = 'x', TypeError);
  assert.equal(a.imports[0], b.imports[0], 'import java.util.List is one object');
  assert.deepEqual(b.imports[1], { name: 'java.util.List.of', isStatic: true, onDemand: false });
  assert.notEqual(b.imports[1], b.imports[0]);
  // Forgetting the tables keeps what is stored; what comes after shares afresh.
  interner.forget();
  assert.equal(interner.heldChars, 0);
  const again = unpackJson(pb, interner).symbols;
  assert.deepEqual(again, b);
  assert.notEqual(again.imports[0], b.imports[0]);
});

test('the interner holds no long strings and stays within its character budget', () => {
  const interner = new SymbolInterner();
  interner.str('ArrayList');
  const held = interner.heldChars;
  assert.equal(held, 'ArrayList'.length);
  // A generated return type of a megabyte, rewritten over and over: never kept by the table.
  for (let i = 0; i < 50; i++) interner.str(`Map<${'K'.repeat(1_000_000)}${i}>`);
  assert.equal(interner.heldChars, held);
  // Many distinct short names: the table starts afresh before 32 million characters.
  for (let i = 0; i < 200_000; i++) interner.str(`name_${i}_${'x'.repeat(200)}`);
  assert.ok(interner.heldChars <= 32_000_000, String(interner.heldChars));
});

test('what the interner shares is keyed by content exactly: names holding separator characters never share with other lists', () => {
  // A parser recovering from errors makes names with control characters; a key joined with them
  // made `(X\u0001\u0000b\u0001Y a)` the same list as `(X a, Y b)`, and gave one file the other's.
  const method = (name: string, params: ParamSymbol[], modifiers: string[] = []): MethodSymbol => ({ kind: 'method', name, params, modifiers, annotations: [], line: 1, endLine: 1, hasBody: true, calls: [] });
  const file = (methods: MethodSymbol[], imports: ImportSymbol[]): FileSymbols => ({
    language: 'java',
    package: 'p',
    imports,
    lineCount: 1,
    types: [{ kind: 'class', name: 'A', qname: 'A', fqn: 'p.A', modifiers: [], annotations: [], typeParams: [], extends: [], implements: [], line: 1, endLine: 1, signature: 'class A', fields: [], methods, enumConstants: [], components: [] }],
  });
  const interner = new SymbolInterner();
  const one = interner.file(file([method('m', [{ name: 'a', type: 'X\u0001\u0000b\u0001Y' }], ['a\u0000b'])], [{ name: 'q.R', isStatic: false, onDemand: false, alias: '\u0003' }]));
  const two = interner.file(file([method('m', [{ name: 'a', type: 'X' }, { name: 'b', type: 'Y' }], ['a', 'b'])], [{ name: 'q.R', isStatic: false, onDemand: false }]));
  const [m1, m2] = [one.types[0]?.methods[0], two.types[0]?.methods[0]];
  assert.deepEqual(m1?.params, [{ name: 'a', type: 'X\u0001\u0000b\u0001Y' }]);
  assert.deepEqual(m2?.params, [{ name: 'a', type: 'X' }, { name: 'b', type: 'Y' }]);
  assert.deepEqual(m1?.modifiers, ['a\u0000b']);
  assert.deepEqual(m2?.modifiers, ['a', 'b']);
  assert.deepEqual(one.imports[0], { name: 'q.R', isStatic: false, onDemand: false, alias: '\u0003' });
  assert.deepEqual(two.imports[0], { name: 'q.R', isStatic: false, onDemand: false });
});
