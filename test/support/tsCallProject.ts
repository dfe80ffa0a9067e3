import * as path from 'node:path';
import ts from 'typescript';

/**
 * A TypeScript project with the calls a parser misses (namespaces and `Foo.bar()` calls, a
 * namespace sharing its name with an interface, a typed variable at file level used in functions,
 * `T | undefined` receivers, `Map<string, P>.get(k).m()` and array-element receivers, a function
 * declared inside a callback, a default-imported namespace, a module in a folder named `$lib`),
 * and the oracle: every call between its functions and methods as the `typescript` package's own
 * language service's call hierarchy reports it.
 */

export const TS_CALL_PROJECT: Record<string, string> = {
  'tsconfig.json': '{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "commonjs", "esModuleInterop": true }, "include": ["src"] }\n',
  'src/shapes.ts': `export interface Shapes {
  readonly name: string;
}
export namespace Shapes {
  export function area(w: number, h: number): number {
    return scale(w) * h;
  }
  export function perimeter(w: number, h: number): number {
    return 2 * (scale(w) + h);
  }
  function scale(x: number): number {
    return x;
  }
}
export namespace Geometry {
  export function describe(w: number): string {
    return \`\${Shapes.area(w, w)}:\${Shapes.perimeter(w, w)}\`;
  }
}
`,
  'src/provider.ts': `export class TaskProvider {
  private tasks: string[] = [];
  dispose(): void {
    this.tasks = [];
    this.note('disposed');
  }
  refresh(): number {
    this.note('refresh');
    return this.tasks.length;
  }
  private note(s: string): void {
    void s;
  }
}
const provider: TaskProvider = new TaskProvider();
export function shutdown(): void {
  provider.dispose();
}
export function reload(): number {
  return provider.refresh();
}
`,
  'src/migrations.ts': `export class Migration {
  constructor(readonly id: string) {}
  run(): boolean {
    return this.check();
  }
  check(): boolean {
    return this.id.length > 0;
  }
}
const known: Migration[] = [new Migration('a')];
function findMigration(id: string): Migration | undefined {
  return known.find((m) => m.id === id);
}
export function migrate(id: string): boolean {
  const m: Migration | undefined = findMigration(id);
  if (m === undefined) return false;
  return m.run();
}
export function migrateFirst(): boolean | undefined {
  return known[0]?.check();
}
`,
  'src/plugins.ts': `export class Plugin {
  start(): void {
    this.ready();
  }
  stop(): void {}
  ready(): void {}
}
export class PluginHost {
  private readonly providers = new Map<string, Plugin>();
  private readonly list: Plugin[] = [];
  add(key: string, p: Plugin): void {
    this.providers.set(key, p);
    this.list.push(p);
  }
  stopOne(key: string): void {
    this.providers.get(key)?.stop();
  }
  startFirst(): void {
    this.list[0].start();
  }
}
`,
  'src/text.ts': `type Text = string;
namespace Text {
  export function upper(s: Text): Text {
    return trim(s).toUpperCase();
  }
  export function trim(s: Text): Text {
    return s.trim();
  }
}
export default Text;
`,
  'src/$lib/slug.ts': `export function slugify(s: string): string {
  return lower(s).replace(/\\s+/g, '-');
}
function lower(s: string): string {
  return s.toLowerCase();
}
`,
  'src/server.ts': `import { Geometry, Shapes } from './shapes';
import Text from './text';
import { slugify } from './$lib/slug';
import { reload, shutdown } from './provider';
import { migrate, migrateFirst } from './migrations';
import { Plugin, PluginHost } from './plugins';

interface Connection {
  onCodeAction(handler: () => Promise<void>): void;
}
const connection: Connection = { onCodeAction: (h) => void h() };

export function register(): void {
  connection.onCodeAction(async () => {
    function helper(): number {
      return Shapes.area(1, 2) + reload();
    }
    helper();
    shutdown();
  });
}

export function main(): string {
  const host = new PluginHost();
  host.add('a', new Plugin());
  host.stopOne('a');
  host.startFirst();
  migrate('a');
  migrateFirst();
  register();
  return Text.upper(slugify(Geometry.describe(3)));
}
`,
};

/** A function or method of the project: its file (relative, `/`), name and the position of its name. */
export interface Declaration {
  readonly path: string;
  readonly name: string;
  /** The class that declares it, for methods. */
  readonly className?: string;
  readonly pos: number;
}

/** One call: `caller` calls `callee` at `line` (1-based) of the caller's file. Keys are `path#name`. */
export interface CallEdge {
  readonly caller: string;
  readonly callee: string;
  readonly line: number;
}

export const edgeKey = (e: CallEdge): string => `${e.caller} -> ${e.callee} @${e.line}`;

/** The project's language service, its declarations, and the compiler's errors (none expected). */
export function projectService(root: string): { service: ts.LanguageService; declarations: Declaration[]; errors: string[] } {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('no tsconfig');
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => config.options,
    getScriptFileNames: () => config.fileNames,
    getScriptVersion: () => '1',
    getScriptSnapshot: (f) => (ts.sys.fileExists(f) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(f) ?? '') : undefined),
    getCurrentDirectory: () => root,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
  };
  const service = ts.createLanguageService(host);
  const program = service.getProgram();
  if (!program) throw new Error('no program');
  const errors = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  const declarations: Declaration[] = [];
  for (const sf of program.getSourceFiles()) {
    if (!sf.fileName.startsWith(root.split(path.sep).join('/'))) continue;
    const rel = path.relative(root, sf.fileName).split(path.sep).join('/');
    const visit = (node: ts.Node): void => {
      if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name && ts.isIdentifier(node.name) && node.body) {
        const owner = ts.isClassDeclaration(node.parent) ? node.parent.name?.text : undefined;
        declarations.push({ path: rel, name: node.name.text, ...(owner ? { className: owner } : {}), pos: node.name.getStart(sf) });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { service, declarations, errors };
}

/** Every call between the declarations, from the language service's call hierarchy: callers of each, and callees of each. */
export function oracleEdges(root: string, service: ts.LanguageService, declarations: readonly Declaration[]): { callers: Set<string>; callees: Set<string> } {
  const program = service.getProgram() as ts.Program;
  const keyOf = (file: string, name: string): string => `${path.relative(root, file).split(path.sep).join('/')}#${name}`;
  const known = new Set(declarations.map((d) => `${d.path}#${d.name}`));
  const lineOf = (file: string, pos: number): number => (program.getSourceFile(file) as ts.SourceFile).getLineAndCharacterOfPosition(pos).line + 1;
  const callers = new Set<string>();
  const callees = new Set<string>();
  for (const d of declarations) {
    const file = path.join(root, d.path);
    const self = `${d.path}#${d.name}`;
    for (const c of service.provideCallHierarchyIncomingCalls(file, d.pos)) {
      const caller = keyOf(c.from.file, c.from.name);
      if (known.has(caller)) for (const s of c.fromSpans) callers.add(edgeKey({ caller, callee: self, line: lineOf(c.from.file, s.start) }));
    }
    for (const c of service.provideCallHierarchyOutgoingCalls(file, d.pos)) {
      const callee = keyOf(c.to.file, c.to.name);
      if (known.has(callee)) for (const s of c.fromSpans) callees.add(edgeKey({ caller: self, callee, line: lineOf(file, s.start) }));
    }
  }
  return { callers, callees };
}
