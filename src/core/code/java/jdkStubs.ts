import type { TypeEntry } from '../index/codeIndex';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileSymbols, MethodSymbol, TypeParam, TypeSymbol, VarSymbol } from '../model';
import { splitTopLevel } from './typeRef';

/**
 * The JDK's most used classes as declarations without bodies ("stubs"), built from the signature
 * table `jdk-signatures.txt` (generated from javap by scripts/gen-jdk-signatures.mjs; beside this
 * file in the sources, copied beside the bundles into dist/ by esbuild.mjs). The Java
 * resolver falls back to them for a type the project does not declare, so a receiver of a JDK type
 * has its methods' return types and its supertypes even when the JDK's sources are not in the
 * project. A stub is never a call target: calls into it are reported as calls leaving the project.
 */

/** The `path` of every stub's TypeEntry: not a file. */
export const JDK_STUB_PATH = '<jdk>';

export const isJdkStub = (e: TypeEntry): boolean => e.path === JDK_STUB_PATH;

let blocks: Map<string, readonly string[]> | undefined;
const built = new Map<string, TypeEntry | undefined>();

export const JDK_SIGNATURES_FILE = 'jdk-signatures.txt';

/** The table's text, or '' when it cannot be read (then no stubs: JDK calls resolve as before). */
function readTable(): string {
  try {
    return fs.readFileSync(path.join(__dirname, JDK_SIGNATURES_FILE), 'utf8');
  } catch {
    return '';
  }
}

function table(): Map<string, readonly string[]> {
  if (blocks) return blocks;
  const raw = readTable();
  const head = raw.slice(0, raw.indexOf('\n'));
  // First line: `a=java.lang b=java.util …`, the packages `~a.` and so on abbreviate.
  const prefixes = new Map(head.split(' ').map((kv) => kv.split('=') as [string, string]));
  const text = raw.slice(head.length + 1).replace(/~([a-z])\./g, (_, c: string) => `${prefixes.get(c) ?? c}.`);
  blocks = new Map();
  let cur: string[] | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('=')) blocks.set(line.slice(1, line.indexOf('|')), (cur = [line]));
    else if (line && cur) cur.push(line);
  }
  return blocks;
}

function typeParams(text: string): TypeParam[] {
  return splitTopLevel(text).map((p) => {
    const at = p.indexOf(' extends ');
    if (at < 0) return { name: p.trim() };
    return { name: p.slice(0, at).trim(), bound: splitTopLevel(p.slice(at + 9), '&')[0] ?? '' };
  });
}

function build(fqn: string, lines: readonly string[]): TypeEntry {
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
  return { path: JDK_STUB_PATH, file, type };
}

/** `java.util.Map.Entry` → `java.util` (the segments before the first capitalized one). */
function packageOf(fqn: string): string {
  const segs = fqn.split('.');
  const i = segs.findIndex((s) => /^[A-Z]/.test(s));
  return segs.slice(0, i < 0 ? segs.length - 1 : i).join('.');
}

/** The stub of a JDK class in the table (`java.util.Map.Entry`), or undefined. */
export function jdkStub(fqn: string): TypeEntry | undefined {
  if (built.has(fqn)) return built.get(fqn);
  const lines = table().get(fqn);
  const entry = lines ? build(fqn, lines) : undefined;
  built.set(fqn, entry);
  return entry;
}
