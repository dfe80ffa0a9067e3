/**
 * The accuracy check of call_chain on TypeScript: a project with each kind of call the parser
 * used to miss (calls through namespaces, a namespace merged with an interface, file-level typed
 * variables, `T | undefined` receivers, `Map` and array element receivers, a function declared
 * inside a callback, a default-imported namespace, a `$` folder), the names a user writes for its
 * functions, and recall and precision of the answers' edges against the language service's own
 * call hierarchy. Shared by the headless unit test and the VS Code host test.
 */
import { SHAPES_TS } from './tsNamesProject';

/** Files under `tsacc/` (its own tsconfig, so the server loads it as one project). */
export const ACCURACY_PROJECT: Readonly<Record<string, string>> = {
  'tsacc/tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'commonjs', esModuleInterop: true }, include: ['**/*.ts'] }),
  'tsacc/provider.ts': [
    'export class TaskProvider {',
    '  dispose(): void {',
    '    this.clear();',
    '  }',
    '  clear(): void {}',
    '  run(name: string): number {',
    '    return name.length;',
    '  }',
    '}',
    'export interface Migration {',
    '  apply(): void;',
    '}',
    'export class Step implements Migration {',
    '  apply(): void {',
    "    log('apply');",
    '  }',
    '}',
    'export function log(msg: string): void {',
    '  console.log(msg);',
    '}',
    '',
  ].join('\n'),
  'tsacc/shapes.ts': SHAPES_TS,
  'tsacc/cfg.ts': [
    'type Cfg = { a: number };',
    'namespace Cfg {',
    '  export function load(): Cfg {',
    '    return { a: read() };',
    '  }',
    '  function read(): number {',
    '    return 1;',
    '  }',
    '}',
    'export default Cfg;',
    '',
  ].join('\n'),
  'tsacc/$lib/util.ts': [
    'export function pad(s: string): string {',
    '  return trimAll(s);',
    '}',
    'export function trimAll(s: string): string {',
    '  return s.trim();',
    '}',
    '',
  ].join('\n'),
  'tsacc/app.ts': [
    "import { TaskProvider, Migration, Step, log } from './provider';",
    "import { Shape, Geo } from './shapes';",
    "import Cfg from './cfg';",
    "import { pad } from './$lib/util';",
    '',
    'const provider: TaskProvider = new TaskProvider();',
    'let current: Migration | undefined = new Step();',
    '',
    'export class App {',
    '  private readonly providers = new Map<string, TaskProvider>();',
    '  private steps: Step[] = [];',
    '  start(key: string): number {',
    '    this.providers.set(key, new TaskProvider());',
    '    this.providers.get(key)!.dispose();',
    '    this.steps[0].apply();',
    '    return this.providers.get(key)?.run(key) ?? 0;',
    '  }',
    '  stop(next: Migration | undefined): void {',
    '    provider.dispose();',
    '    current?.apply();',
    '    if (next) next.apply();',
    '    current = next;',
    '  }',
    '}',
    'export function register(on: (cb: () => void) => void): void {',
    '  on(() => {',
    '    function helper(): number {',
    '      return Geo.Util.norm();',
    '    }',
    '    helper();',
    "    log(pad('x'));",
    '  });',
    '}',
    'export function main(): number {',
    '  const app = new App();',
    "  app.start('k');",
    '  app.stop(undefined);',
    '  Cfg.load();',
    '  return Shape.twice(Shape.unit());',
    '}',
    '',
  ].join('\n'),
};

/** A document symbol, whichever API it came from: `kind` by LSP name. */
export interface SymbolLike {
  readonly name: string;
  readonly kind: string;
  readonly range: { readonly start: { readonly line: number } };
  readonly selectionRange: { readonly start: { readonly line: number; readonly character: number } };
  readonly children: readonly SymbolLike[];
}

/** A function or method of the project: the name a user writes for it, and where it is. */
export interface FunctionAt {
  readonly name: string;
  readonly symbol: SymbolLike;
}

const FUNCTION_KINDS = new Set(['Function', 'Method', 'Constructor']);
const CONTAINER_KINDS = new Set(['Class', 'Interface', 'Module', 'Namespace']);

/**
 * Every named function and method of a file, with the name a user writes: `Class.method`,
 * `Namespace.fn`, `A.B.fn`, and `file.fn` for a module's functions, those declared inside a
 * function or a callback included. Interface members are left out (they are not called code).
 */
export function functionsOf(file: string, symbols: readonly SymbolLike[]): FunctionAt[] {
  const module = (file.split('/').pop() ?? file).replace(/\.[^.]*$/, '');
  const out: FunctionAt[] = [];
  // Inside a function only function declarations count (not an object literal's arrow members).
  const walk = (list: readonly SymbolLike[], container: string | undefined, where: 'top' | 'interface' | 'function'): void => {
    for (const s of list) {
      const counted = where === 'function' ? s.kind === 'Function' : where === 'top' && FUNCTION_KINDS.has(s.kind);
      if (counted && /^[\w$]+$/.test(s.name)) out.push({ name: `${container ?? module}.${s.name}`, symbol: s });
      if (CONTAINER_KINDS.has(s.kind)) walk(s.children, container ? `${container}.${s.name}` : s.name, s.kind === 'Interface' ? 'interface' : 'top');
      else walk(s.children, container, FUNCTION_KINDS.has(s.kind) ? 'function' : where);
    }
  };
  walk(symbols, undefined, 'top');
  return out;
}

/** `file@line` of a function: the declaration's first line (1-based), as call_chain reports it. */
export const functionKey = (relPath: string, line: number): string => `${relPath}@${line}`;

export interface Score {
  readonly recall: number;
  readonly precision: number;
  readonly missed: readonly string[];
  readonly wrong: readonly string[];
}

/** Edges (`caller -> callee`) found against the oracle's. */
export function score(oracle: ReadonlySet<string>, found: ReadonlySet<string>): Score {
  const missed = [...oracle].filter((e) => !found.has(e));
  const wrong = [...found].filter((e) => !oracle.has(e));
  const hit = oracle.size - missed.length;
  return { recall: oracle.size ? hit / oracle.size : 1, precision: found.size ? (found.size - wrong.length) / found.size : 1, missed, wrong };
}

interface AnswerNode {
  readonly path?: string;
  readonly line?: number;
  readonly children: readonly AnswerNode[];
}

/** A call_chain answer's depth-1 edges, as `caller -> callee` keys. */
export function answerEdges(structured: { callers?: readonly AnswerNode[]; callees?: readonly AnswerNode[] }): { callers: string[]; callees: string[] } {
  const key = (n: AnswerNode): string | undefined => (n.path && n.line ? functionKey(n.path, n.line) : undefined);
  const edges = (roots: readonly AnswerNode[] | undefined, callers: boolean): string[] =>
    (roots ?? []).flatMap((root) => {
      const r = key(root);
      return r ? root.children.flatMap((c) => (key(c) ? [callers ? `${key(c)} -> ${r}` : `${r} -> ${key(c)}`] : [])) : [];
    });
  return { callers: edges(structured.callers, true), callees: edges(structured.callees, false) };
}
