import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import type { IntelCall, IntelCallItem, IntelPosition, IntelRange, IntelSymbol, IntelSymbolKind, IntelSymbolLocation, LanguageIntel } from '../../src/core/workspace/languageIntel';

/**
 * A LanguageIntel over the real `typescript` language service, for tests: every .ts file of a
 * small folder, the service's navigation tree, navigate-to items and call hierarchy mapped the way
 * VS Code's TypeScript extension maps them (a namespace is a Module, `detail` is the container).
 * Also the oracle of the accuracy tests: `callHierarchy` gives every call the service knows.
 */

const KINDS = new Map<string, IntelSymbolKind>([
  ['module', 'Module'], ['class', 'Class'], ['local class', 'Class'], ['enum', 'Enum'], ['interface', 'Interface'], ['method', 'Method'],
  ['property', 'Property'], ['getter', 'Property'], ['setter', 'Property'], ['var', 'Variable'], ['let', 'Variable'], ['const', 'Variable'],
  ['local var', 'Variable'], ['function', 'Function'], ['local function', 'Function'], ['constructor', 'Constructor'], ['enum member', 'EnumMember'],
]);
const kindOf = (k: string): IntelSymbolKind => KINDS.get(k) ?? 'Variable';

function listTs(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && e.name !== 'node_modules') listTs(p, out);
    else if (e.isFile() && /\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

export class TsLanguageIntel implements LanguageIntel {
  readonly service: ts.LanguageService;
  readonly files: readonly string[];

  constructor(readonly root: string) {
    this.files = listTs(root);
    const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, strict: true, noEmit: true };
    this.service = ts.createLanguageService({
      getScriptFileNames: () => [...this.files],
      getScriptVersion: () => '1',
      getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined),
      getCurrentDirectory: () => root,
      getCompilationSettings: () => options,
      getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
      fileExists: ts.sys.fileExists,
      readFile: ts.sys.readFile,
      readDirectory: ts.sys.readDirectory,
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
    });
  }

  private source(file: string): ts.SourceFile {
    const sf = this.service.getProgram()?.getSourceFile(file);
    if (!sf) throw new Error(`not in the program: ${file}`);
    return sf;
  }

  private range(file: string, span: ts.TextSpan): IntelRange {
    const sf = this.source(file);
    const at = (o: number): IntelPosition => {
      const p = sf.getLineAndCharacterOfPosition(o);
      return { line: p.line, character: p.character };
    };
    return { start: at(span.start), end: at(span.start + span.length) };
  }

  private offset(file: string, p: IntelPosition): number {
    return this.source(file).getPositionOfLineAndCharacter(p.line, p.character);
  }

  async workspaceSymbols(query: string): Promise<readonly IntelSymbolLocation[]> {
    // VS Code's TypeScript extension labels functions and methods `name()`.
    return this.service.getNavigateToItems(query, 200).map((i) => ({
      name: i.kind === 'function' || i.kind === 'method' ? `${i.name}()` : i.name, kind: kindOf(i.kind), ...(i.containerName ? { containerName: i.containerName } : {}), path: path.resolve(i.fileName), range: this.range(i.fileName, i.textSpan),
    }));
  }

  async documentSymbols(absPath: string): Promise<readonly IntelSymbol[]> {
    if (!this.files.includes(absPath)) return [];
    const convert = (n: ts.NavigationTree): IntelSymbol[] => {
      const children = (n.childItems ?? []).flatMap(convert);
      if (!n.text || n.kind === 'alias' || !n.spans[0]) return [];
      const range = this.range(absPath, n.spans[0]);
      return [{ name: n.text, kind: kindOf(n.kind), range, selectionRange: n.nameSpan ? this.range(absPath, n.nameSpan) : range, children }];
    };
    return (this.service.getNavigationTree(absPath).childItems ?? []).flatMap(convert);
  }

  private item(i: ts.CallHierarchyItem): IntelCallItem {
    const file = path.resolve(i.file);
    return { name: i.name, kind: kindOf(i.kind), ...(i.containerName ? { detail: i.containerName } : {}), path: file, range: this.range(file, i.span), selectionRange: this.range(file, i.selectionSpan) };
  }

  async prepareCallHierarchy(absPath: string, position: IntelPosition): Promise<readonly IntelCallItem[]> {
    const r = this.service.prepareCallHierarchy(absPath, this.offset(absPath, position));
    return (r === undefined ? [] : Array.isArray(r) ? r : [r]).map((i) => this.item(i));
  }

  async incomingCalls(item: IntelCallItem): Promise<readonly IntelCall[]> {
    return this.service.provideCallHierarchyIncomingCalls(item.path, this.offset(item.path, item.selectionRange.start)).map((c) => ({
      item: this.item(c.from), fromRanges: c.fromSpans.map((s) => this.range(path.resolve(c.from.file), s)),
    }));
  }

  async outgoingCalls(item: IntelCallItem): Promise<readonly IntelCall[]> {
    return this.service.provideCallHierarchyOutgoingCalls(item.path, this.offset(item.path, item.selectionRange.start)).map((c) => ({
      item: this.item(c.to), fromRanges: c.fromSpans.map((s) => this.range(item.path, s)),
    }));
  }
}
