/** One class block of the JDK signature table (jdk-signatures.txt) decoded into declarations, apart from reading and caching the table (jdkStubs.ts). */
import type { FileSymbols, MethodSymbol, TypeParam, TypeSymbol, VarSymbol } from '../model';
import { splitTopLevel } from './typeRef';

function typeParams(text: string): TypeParam[] {
  return splitTopLevel(text).map((p) => {
    const at = p.indexOf(' extends ');
    if (at < 0) return { name: p.trim() };
    return { name: p.slice(0, at).trim(), bound: splitTopLevel(p.slice(at + 9), '&')[0] ?? '' };
  });
}

/** The declarations of class `fqn` from its block's lines (the `=` line, then one line per field, constructor or method). */
export function decodeStub(fqn: string, lines: readonly string[]): { file: FileSymbols; type: TypeSymbol } {
  const [, kindCode = 'c', mods = '', tps = '', ext = '', impl = ''] = (lines[0] as string).split('|');
  const pkg = packageOf(fqn);
  const qname = pkg ? fqn.slice(pkg.length + 1) : fqn;
  const name = qname.slice(qname.lastIndexOf('.') + 1);
  const fields: VarSymbol[] = [];
  const methods: MethodSymbol[] = [];
  for (const line of lines.slice(1)) {
    const parts = line.split('|');
    const code = parts[0] as string;
    if (code.startsWith('f')) {
      fields.push({ name: parts[1] as string, type: parts[2] as string, line: 0, modifiers: code.includes('s') ? ['public', 'static'] : ['public'] });
      continue;
    }
    const [, mName = '', mTps = '', ret = '', params = ''] = parts;
    const types = params ? params.split(';') : [];
    const varargs = types.length > 0 && (types[types.length - 1] as string).endsWith('...');
    const modifiers = ['public', ...(code.includes('s') ? ['static'] : []), ...(code.includes('a') ? ['abstract'] : [])];
    methods.push({
      kind: code.startsWith('c') ? 'constructor' : 'method',
      name: code.startsWith('c') ? name : mName,
      params: types.map((type, i) => ({ name: `p${i}`, type, line: 0 })),
      ...(varargs ? { varargs } : {}),
      ...(code.startsWith('c') ? {} : { returnType: ret }),
      ...(mTps ? { typeParams: typeParams(mTps) } : {}),
      modifiers,
      annotations: [],
      line: 0,
      endLine: 0,
      hasBody: !code.includes('a'),
      calls: [],
    });
  }
  const kind = kindCode === 'i' ? 'interface' : kindCode === 'e' ? 'enum' : 'class';
  const dot = qname.lastIndexOf('.');
  const type: TypeSymbol = {
    kind,
    name,
    qname,
    fqn,
    ...(dot > 0 ? { outer: qname.slice(0, dot) } : {}),
    modifiers: mods ? mods.split(' ') : [],
    annotations: [],
    typeParams: tps ? typeParams(tps) : [],
    // An enum's `extends java.lang.Enum<E>` is implied by its kind, as in source.
    extends: kind === 'enum' ? [] : ext ? ext.split(';') : [],
    implements: impl ? impl.split(';') : [],
    line: 0,
    endLine: 0,
    signature: '',
    fields,
    methods,
    enumConstants: [],
    components: [],
  };
  const file: FileSymbols = { language: 'java', package: pkg, imports: [], types: [type], lineCount: 0 };
  return { file, type };
}

/** `java.util.Map.Entry` → `java.util` (the segments before the first capitalized one). */
function packageOf(fqn: string): string {
  const segs = fqn.split('.');
  const i = segs.findIndex((s) => /^[A-Z]/.test(s));
  return segs.slice(0, i < 0 ? segs.length - 1 : i).join('.');
}
