import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SymbolInterner } from '../../src/core/code/compactSymbols';
import { extractPacked } from '../../src/core/code/languages/registry';
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
public class B extends A implements Runnable {
  public void run() {}
  public static void main(String[] args) {}
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
