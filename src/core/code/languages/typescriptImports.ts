import type { Node } from 'web-tree-sitter';
import type { ImportSymbol } from '../model';

/**
 * A TypeScript or JavaScript file's imports (`import … from`, `require(…)`) as ImportSymbols,
 * the specifier kept as written, for the resolver (index/projectModules.ts).
 */

/** `import …` and `require(…)` as ImportSymbols. */
export function scriptImports(node: Node, out: ImportSymbol[]): void {
  const from = node.childForFieldName('source')?.namedChildren[0]?.text;
  if (!from) return;
  const clause = node.namedChildren.find((c) => c.type === 'import_clause');
  if (!clause) return;
  for (const c of clause.namedChildren) {
    if (c.type === 'identifier') out.push({ name: from, isStatic: false, onDemand: false, member: 'default', alias: c.text });
    else if (c.type === 'namespace_import') out.push({ name: from, isStatic: false, onDemand: true, alias: c.namedChildren[0]?.text ?? '' });
    else if (c.type === 'named_imports') {
      for (const s of c.namedChildren) {
        if (s.type !== 'import_specifier') continue;
        const member = s.childForFieldName('name')?.text ?? '';
        out.push({ name: from, isStatic: false, onDemand: false, member, alias: s.childForFieldName('alias')?.text ?? member });
      }
    }
  }
}

/** `const m = require('./m')`, `const { a, b: c } = require('./x')`. */
export function scriptRequire(decl: Node, out: ImportSymbol[]): boolean {
  const value = decl.childForFieldName('value');
  const name = decl.childForFieldName('name');
  if (value?.type !== 'call_expression' || value.childForFieldName('function')?.text !== 'require' || !name) return false;
  const from = value.childForFieldName('arguments')?.namedChildren[0]?.namedChildren[0]?.text;
  if (!from) return false;
  if (name.type === 'identifier') out.push({ name: from, isStatic: false, onDemand: true, alias: name.text });
  else if (name.type === 'object_pattern') {
    for (const p of name.namedChildren) {
      if (p.type === 'shorthand_property_identifier_pattern') out.push({ name: from, isStatic: false, onDemand: false, member: p.text, alias: p.text });
      else if (p.type === 'pair_pattern') {
        const member = p.childForFieldName('key')?.text ?? '';
        out.push({ name: from, isStatic: false, onDemand: false, member, alias: p.childForFieldName('value')?.text ?? member });
      }
    }
  }
  return true;
}
