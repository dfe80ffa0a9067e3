import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { languageForPath } from '../../src/core/code/languages/registry';
import type { FileSymbols } from '../../src/core/code/model';
import { withTree } from '../../src/core/code/parse/parser';

/**
 * Ground truth no one wrote by hand: the declarations the TypeScript and Python extractors find
 * in real files, compared with what each language's own compiler front end reports.
 *
 *  - TypeScript: this repository's own src/ and test/ against the TypeScript compiler API
 *    (classes, interfaces, enums, type aliases, namespaces' types; methods, constructors,
 *    accessors, function-valued properties, signatures; fields; enum members; top-level
 *    functions and `const f = () => …`), each with its line.
 *  - Python: the standard library's top-level modules against Python's own `ast` module
 *    (classes, nested classes, methods, module-level functions, also under module-level
 *    `if` / `try`), each with its line (a decorated definition starts at its first decorator).
 */

const repoRoot = path.resolve(__dirname, '..', '..');

function walk(dir: string, ext: RegExp, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules' && e.name !== 'fixtures') walk(abs, ext, out);
    else if (e.isFile() && ext.test(e.name)) out.push(abs);
  }
  return out;
}

async function ours(abs: string, rel: string): Promise<FileSymbols> {
  const lang = languageForPath(abs);
  assert.ok(lang, abs);
  const text = fs.readFileSync(abs, 'utf8');
  return withTree(lang.id, text, (t) => lang.extract(t, text.split('\n').length, rel));
}

/** `Type@line`, `Type.member@line` (constructors by the class name), `Type#field`, `Type::CONSTANT`, `<module>.f@line`. */
function facts(f: FileSymbols, opts: { fields: boolean }): string[] {
  const out: string[] = [];
  for (const t of f.types) {
    const owner = t.kind === 'module' ? '<module>' : t.qname;
    if (t.kind !== 'module') out.push(`${owner}@${t.line}`);
    for (const m of t.methods) if (m.kind !== 'initializer') out.push(`${owner}.${m.name}@${m.line}`);
    if (opts.fields) for (const x of t.fields) out.push(`${owner}#${x.name}`);
    for (const c of t.enumConstants) out.push(`${owner}::${c.name}`);
  }
  return out.sort();
}

function compare(what: string, mine: string[], truth: string[]): { matched: number; diffs: string[] } {
  const a = new Set(mine);
  const b = new Set(truth);
  const diffs = [...[...b].filter((x) => !a.has(x)).map((x) => `missing ${x}`), ...[...a].filter((x) => !b.has(x)).map((x) => `extra ${x}`)];
  return { matched: [...a].filter((x) => b.has(x)).length, diffs: diffs.map((d) => `${what}: ${d}`) };
}

// ---- TypeScript -------------------------------------------------------------------------------

function tsTruth(abs: string): string[] {
  const sf = ts.createSourceFile(abs, fs.readFileSync(abs, 'utf8'), ts.ScriptTarget.Latest, true, abs.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  const lineOf = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const isFn = (e: ts.Node | undefined) => !!e && (ts.isArrowFunction(e) || ts.isFunctionExpression(e));
  const nameOf = (n: ts.Node & { name?: ts.Node }) => (n.name ? n.name.getText(sf) : 'default');
  const members = (owner: string, list: readonly ts.Node[], className: string) => {
    for (const m of list) {
      if (ts.isConstructorDeclaration(m)) {
        out.push(`${owner}.${className}@${lineOf(m)}`);
        for (const p of m.parameters) if (ts.getModifiers(p)?.length) out.push(`${owner}#${p.name.getText(sf)}`);
      } else if (ts.isMethodDeclaration(m) || ts.isMethodSignature(m) || ts.isGetAccessorDeclaration(m) || ts.isSetAccessorDeclaration(m)) {
        out.push(`${owner}.${nameOf(m)}@${lineOf(m)}`);
      } else if (ts.isPropertyDeclaration(m) && isFn(m.initializer)) {
        out.push(`${owner}.${nameOf(m)}@${lineOf(m)}`);
      } else if (ts.isPropertyDeclaration(m) || ts.isPropertySignature(m)) out.push(`${owner}#${nameOf(m)}`);
    }
  };
  const statements = (list: readonly ts.Statement[], prefix: string) => {
    for (const s of list) {
      const q = (n: string) => (prefix ? `${prefix}.${n}` : n);
      if (ts.isClassDeclaration(s) || ts.isInterfaceDeclaration(s)) {
        const name = q(nameOf(s));
        out.push(`${name}@${lineOf(s)}`);
        members(name, s.members, nameOf(s));
      } else if (ts.isEnumDeclaration(s)) {
        out.push(`${q(nameOf(s))}@${lineOf(s)}`);
        for (const m of s.members) out.push(`${q(nameOf(s))}::${m.name.getText(sf)}`);
      } else if (ts.isTypeAliasDeclaration(s)) {
        out.push(`${q(nameOf(s))}@${lineOf(s)}`);
        if (ts.isTypeLiteralNode(s.type)) members(q(nameOf(s)), s.type.members, nameOf(s));
      } else if (ts.isFunctionDeclaration(s)) {
        out.push(`<module>.${nameOf(s)}@${lineOf(s)}`);
      } else if (ts.isVariableStatement(s)) {
        for (const d of s.declarationList.declarations) {
          if (!ts.isIdentifier(d.name)) continue;
          if (isFn(d.initializer)) out.push(`<module>.${d.name.text}@${lineOf(s)}`);
          // A variable at file level whose type is written (or made by `new`) is the module's field.
          else if (d.type || (d.initializer && ts.isNewExpression(d.initializer))) out.push(`${prefix || '<module>'}#${d.name.text}`);
        }
      } else if (ts.isModuleDeclaration(s) && s.body && ts.isModuleBlock(s.body)) {
        statements(s.body.statements, q(s.name.getText(sf)));
      }
    }
  };
  statements(sf.statements, '');
  // A function declared inside a function, a method or a callback is a function of the file's own.
  const nested = (n: ts.Node, inBody: boolean): void => {
    if (inBody && ts.isFunctionDeclaration(n) && n.name) out.push(`<module>.${n.name.text}@${lineOf(n)}`);
    const body = ts.isFunctionLike(n) || ts.isClassStaticBlockDeclaration(n);
    ts.forEachChild(n, (c) => nested(c, inBody || body));
  };
  nested(sf, false);
  return out.sort();
}

test('TypeScript: the declarations found in this repository\'s own sources are the ones the TypeScript compiler reports', async (t) => {
  const files = [...walk(path.join(repoRoot, 'src'), /\.tsx?$/), ...walk(path.join(repoRoot, 'test'), /\.tsx?$/)].filter((f) => !f.endsWith('.d.ts'));
  assert.ok(files.length > 100, `only ${files.length} files`);
  let matched = 0;
  const diffs: string[] = [];
  for (const abs of files) {
    const rel = path.relative(repoRoot, abs).split(path.sep).join('/');
    const r = compare(rel, facts(await ours(abs, rel), { fields: true }), tsTruth(abs));
    matched += r.matched;
    diffs.push(...r.diffs);
  }
  t.diagnostic(`${matched} declarations in ${files.length} files`);
  assert.ok(matched > 1000, `only ${matched} declarations compared`);
  assert.deepEqual(diffs, []);
});

// ---- Python -----------------------------------------------------------------------------------

const PY_TRUTH = `
import ast, json, sys
def line(n):
    return n.decorator_list[0].lineno if getattr(n, 'decorator_list', None) else n.lineno
def klass(c, prefix, out):
    q = prefix + c.name
    out.append('%s@%d' % (q, line(c)))
    for m in c.body:
        if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append('%s.%s@%d' % (q, c.name if m.name == '__init__' else m.name, line(m)))
        elif isinstance(m, ast.ClassDef):
            klass(m, q + '.', out)
def top(body, out):
    for s in body:
        if isinstance(s, ast.ClassDef):
            klass(s, '', out)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append('<module>.%s@%d' % (s.name, line(s)))
        elif isinstance(s, ast.If):
            top(s.body, out); top(s.orelse, out)
        elif isinstance(s, ast.Try) or type(s).__name__ == 'TryStar':
            top(s.body, out)
            for h in s.handlers: top(h.body, out)
            top(s.orelse, out); top(s.finalbody, out)
result = {}
for f in sys.argv[1:]:
    try:
        tree = ast.parse(open(f, encoding='utf-8').read())
    except (SyntaxError, UnicodeDecodeError, ValueError):
        continue
    out = []
    top(tree.body, out)
    result[f] = sorted(out)
print(json.dumps(result))
`;

function python(): string | undefined {
  for (const p of ['python3', 'python']) {
    try {
      execFileSync(p, ['-c', 'import ast'], { stdio: 'ignore' });
      return p;
    } catch {
      // not there
    }
  }
  return undefined;
}

const py = python();
const pyMissing = py ? undefined : 'python3 is not installed (scripts/setup-test-host.sh installs it)';

test('Python: the declarations found in the standard library are the ones Python\'s own ast module reports', { skip: !process.env.CI && pyMissing }, async (t) => {
  assert.ok(py, pyMissing);
  const stdlib = execFileSync(py, ['-c', "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8' }).trim();
  const files = fs.readdirSync(stdlib).filter((f) => f.endsWith('.py')).sort().map((f) => path.join(stdlib, f));
  assert.ok(files.length > 100, `only ${files.length} modules in ${stdlib}`);
  const truth = JSON.parse(execFileSync(py, ['-c', PY_TRUTH, ...files], { encoding: 'utf8', maxBuffer: 64 << 20 })) as Record<string, string[]>;
  let matched = 0;
  const diffs: string[] = [];
  for (const [abs, expected] of Object.entries(truth)) {
    const r = compare(path.basename(abs), facts(await ours(abs, path.basename(abs)), { fields: false }), expected);
    matched += r.matched;
    diffs.push(...r.diffs);
  }
  t.diagnostic(`${matched} declarations in ${Object.keys(truth).length} modules`);
  assert.ok(matched > 3000, `only ${matched} declarations compared`);
  assert.deepEqual(diffs, []);
});
