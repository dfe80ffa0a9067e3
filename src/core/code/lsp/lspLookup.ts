import * as path from 'node:path';
import { readProjectText } from '../../policy/projectText';
import type { Logger } from '../../log';
import { resolveInProject, toRelative } from '../../workspace/paths';
import { accessPolicy } from '../../policy/accessPolicy';
import { search } from '../../search';
import type { IntelSymbolLocation, LanguageIntel } from '../../workspace/languageIntel';
import type { Workspace } from '../../workspace/workspace';
import type { MethodEntry, TypeEntry } from '../index/codeIndex';
import { parserFirst } from '../languages/registry';
import { isMethodKind, isNamespaceKind, isTypeKind, toFileSymbols } from './lspModel';
import type { FileSymbols } from '../model';

/**
 * Finding classes and methods through the editor's language servers. A class is looked up with
 * the workspace symbol provider; when that knows nothing (servers such as TypeScript's only search
 * projects already open), files that declare the name are found with a text search and their
 * document symbols asked for, which also wakes the server. Java files are left to the parser
 * (measured against javap); for the other languages a server, when there is one, answers first. Each lookup keeps its files' symbols for the rest of the tool call.
 */

/** Languages whose servers are worth waking by a text search (the parser answers for the rest). */
const DISCOVERY_TYPES = 'ts,tsx,js,jsx,mjs,cjs,mts,cts,py,go,cs,kt,kts,rs,swift,scala,dart,php,rb,cpp,cc,cxx,hpp,h,c';
const MAX_DISCOVERED_FILES = 12;

export class LspSession {
  private readonly files = new Map<string, Promise<FileSymbols | undefined>>();

  constructor(
    readonly ws: Workspace,
    readonly intel: LanguageIntel,
    readonly log?: Logger,
  ) {}

  private rel(abs: string): string {
    return toRelative(this.ws.root, abs);
  }

  /** Is the path in the project (and not a dependency), and one the access policy lets the agent see (not secret)? */
  inProject(abs: string): boolean {
    const rel = path.relative(this.ws.root, abs);
    return !!rel && !rel.startsWith('..') && !path.isAbsolute(rel) && !rel.split(path.sep).includes('node_modules') && !accessPolicy(this.ws).hides(rel.split(path.sep).join('/'));
  }

  /** The file's symbols as the index's model; undefined when no server knows the file. */
  fileSymbols(abs: string): Promise<FileSymbols | undefined> {
    let p = this.files.get(abs);
    if (!p) {
      p = (async () => {
        const symbols = await this.intel.documentSymbols(abs);
        if (!symbols.length) return undefined;
        const rel = this.rel(abs);
        const text = (await readProjectText(this.ws, rel)).text;
        return toFileSymbols(rel, text, symbols);
      })();
      this.files.set(abs, p);
    }
    return p;
  }

  async typesIn(abs: string): Promise<TypeEntry[]> {
    const file = await this.fileSymbols(abs);
    return file ? file.types.map((type) => ({ path: this.rel(abs), file, type })) : [];
  }

  /**
   * The types a read_class / read_method / call_chain question names, as the user writes it: a
   * class, interface or namespace with every part merged with it (`Foo` the interface and `Foo`
   * the namespace), or, when `member` is given and none of them declares it, the module or
   * namespace whose function `member` is (`util.pad`, `A.B.f`). Undefined: the server knows none.
   */
  async typesNamed(className: string, relativePath?: string, member?: string): Promise<TypeEntry[] | undefined> {
    const found = await this.findClasses(className, relativePath);
    const parts: TypeEntry[] = [];
    for (const e of found) {
      for (const type of (await this.fileSymbols(path.join(this.ws.root, e.path)))?.types ?? []) {
        if (type.fqn === e.type.fqn && (type === e.type || type.namespace || e.type.namespace) && !parts.some((x) => x.type === type)) parts.push({ ...e, type });
      }
    }
    if (member && !parts.some((e) => e.type.methods.some((m) => m.name === member))) {
      const name = className.trim();
      const under = relativePath ? (await resolveInProject(this.ws, relativePath)).rel : '.';
      const inScope = (o: TypeEntry) => under === '.' || o.path === under || o.path.startsWith(`${under}/`);
      const owners = new Set((await this.findFunctions(member)).map((f) => f.owner).filter((o) => o.type.kind === 'module' && namesModule(o, name) && inScope(o)));
      for (const o of owners) if (!parts.some((x) => x.type === o.type)) parts.push(o);
    }
    return parts.length ? parts : undefined;
  }

  /** Classes named `className` (simple, qualified or fully qualified), within `relativePath` when given. */
  async findClasses(className: string, relativePath?: string): Promise<TypeEntry[]> {
    const name = className.trim().replace(/<.*$/s, '').replace(/[/\\#]|::/g, '.').replace(/(?<=\w)\$/g, '.');
    const simple = name.slice(name.lastIndexOf('.') + 1);
    const dotted = (e: TypeEntry) => `${e.path.replace(/\.[^./]*$/, '').split('/').join('.')}.${e.type.qname}`;
    const matches = (e: TypeEntry) =>
      (e.type.kind !== 'module' || !!e.type.namespace) &&
      e.type.name === simple &&
      (e.type.fqn === name || e.type.fqn.endsWith(`.${name}`) || e.type.qname === name || dotted(e) === name || dotted(e).endsWith(`.${name}`) || !name.includes('.'));
    let scope: { abs: string; rel: string; isFile: boolean } | undefined;
    if (relativePath) {
      const p = await resolveInProject(this.ws, relativePath);
      const info = await this.ws.stat(p.abs);
      scope = { ...p, isFile: info?.kind === 'file' };
      if (scope.isFile) {
        const all = (await this.typesIn(p.abs)).filter((e) => e.type.kind !== 'module' || e.type.namespace);
        const found = all.filter(matches);
        const classes = all.filter((e) => !e.type.namespace);
        return found.length ? found : classes.filter((e) => e.type.name.toLowerCase() === simple.toLowerCase() || (classes.length === 1 && !e.type.outer));
      }
    }
    const within = (abs: string) => !scope || scope.rel === '.' || this.rel(abs).startsWith(`${scope.rel}/`);
    const located = (await this.intel.workspaceSymbols(simple)).filter((s) => (isTypeKind(s.kind) || isNamespaceKind(s.kind)) && s.name === simple && this.inProject(s.path) && within(s.path));
    let files = [...new Set(located.filter((s) => !parserFirst(s.path)).map((s) => s.path))];
    if (!located.length) files = await this.discover(`\\b(class|interface|enum|struct|record|trait|type|namespace)\\s+(?:[\\w$]+\\.)*${escape(simple)}\\b`, scope?.rel);
    const out: TypeEntry[] = [];
    for (const f of files) out.push(...(await this.typesIn(f)).filter(matches));
    return out;
  }

  /** Functions and methods named `name` anywhere in the project (for `call_chain` without a class). */
  async findFunctions(name: string): Promise<MethodEntry[]> {
    // VS Code's TypeScript provider names functions and methods `name()`.
    const located: IntelSymbolLocation[] = (await this.intel.workspaceSymbols(name)).filter((s) => isMethodKind(s.kind) && s.name.replace(/\(\)$/, '') === name && this.inProject(s.path));
    let files = [...new Set(located.filter((s) => !parserFirst(s.path)).map((s) => s.path))];
    if (!located.length) files = await this.discover(`\\b${escape(name)}\\s*[(=:<]`);
    const out: MethodEntry[] = [];
    for (const f of files) for (const owner of await this.typesIn(f)) for (const method of owner.type.methods) if (method.kind === 'method' && method.name === name) out.push({ owner, method });
    return out;
  }

  /** Project files (not Java) whose text matches `regex`. */
  private async discover(regex: string, under?: string): Promise<string[]> {
    const ac = new AbortController();
    const r = await search(
      this.ws,
      { pattern: regex, regex: true, caseSensitive: true, contextLines: 0, limit: 1, fileType: DISCOVERY_TYPES, timeoutMs: 5000, ...(under ? { relativePath: under } : {}) },
      ac.signal,
      this.log,
    ).catch((e: unknown) => {
      this.log?.debug(`language server lookup: text search failed: ${String(e)}`);
      return undefined;
    });
    return (r?.files ?? [])
      .map((f) => f.path)
      .filter((p) => !parserFirst(p) && !p.split('/').includes('node_modules'))
      .slice(0, MAX_DISCOVERED_FILES)
      .map((p) => path.join(this.ws.root, p));
  }
}

/** Is `o` (a file's module or a namespace) what `name` says: `util`, `src.$lib.util`, `src/$lib/util`, `A.B`? */
function namesModule(o: TypeEntry, name: string): boolean {
  if (o.type.namespace) return o.type.qname === name || o.type.fqn === name || o.type.fqn.endsWith(`.${name}`);
  const dotted = o.path.replace(/\.[^./]*$/, '').split('/').join('.');
  const n = name.replace(/[/\\]/g, '.');
  return o.type.name === n || dotted === n || dotted.endsWith(`.${n}`);
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
