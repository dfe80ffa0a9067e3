import assert from 'node:assert/strict';
import type { FileSymbols } from '../../src/core/code/model';
import { packedDeclarations, type PackedJson } from '../../src/core/code/packedSymbols';

/** The declarations a parse packed (it must have packed some). */
export function declsOf(p: PackedJson | undefined): FileSymbols {
  assert.ok(p, 'nothing packed');
  return packedDeclarations(p);
}

/** A file's declarations as the index compares them: without call sites and initializer pseudo-methods (the outline has neither). */
export function declarations(f: FileSymbols | undefined): string {
  assert.ok(f);
  return JSON.stringify({
    ...f,
    hasErrors: undefined,
    types: f.types.map((t) => ({ ...t, methods: t.methods.filter((m) => m.kind !== 'initializer').map((m) => ({ ...m, calls: [] })) })),
  });
}
