import { splitTopLevel } from '../java/typeRef';

/**
 * Type texts as TypeScript declarations write them, read just enough for call resolution
 * (nameResolver.ts): an optional value's type, and what an index or a lookup on a container gives.
 */

/** `T | undefined`, `null | T` → `T`; anything else as written. */
export function withoutNullish(text: string): string {
  if (!text.includes('|')) return text;
  const kept = splitTopLevel(text, '|').map((x) => x.trim()).filter((x) => x && x !== 'undefined' && x !== 'null');
  return kept.length === 1 ? (kept[0] as string) : text;
}

/** The element type `op` (`[]` or a method) gives on a container type: `P[]`/`Array<P>` `[]`, `at`, `find`…; `Map<K, P>` `get`; `Record<K, P>` `[]`. */
export function elementType(written: string, op: string): string | undefined {
  const text = withoutNullish(written).replace(/^readonly\s+/, '');
  const args = (/^(\w+)\s*<(.*)>$/s.exec(text) ?? []).slice(1);
  const params = args[1] !== undefined ? splitTopLevel(args[1]).map((x) => x.trim()) : [];
  const arrayOf = /\[\s*\]$/.test(text) ? text.replace(/\[\s*\]$/, '').trim() : args[0] === 'Array' || args[0] === 'ReadonlyArray' ? params[0] : undefined;
  if (arrayOf && ['[]', 'at', 'find', 'findLast', 'pop', 'shift'].includes(op)) return arrayOf.replace(/^\((.*)\)$/, '$1');
  if ((args[0] === 'Map' || args[0] === 'ReadonlyMap' || args[0] === 'WeakMap') && op === 'get') return params[1];
  if (args[0] === 'Record' && op === '[]') return params[1];
  return undefined;
}
