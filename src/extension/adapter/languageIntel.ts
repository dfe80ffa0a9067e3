import * as vscode from 'vscode';
import type { IntelCall, IntelCallItem, IntelPosition, IntelRange, IntelSymbol, IntelSymbolKind, IntelSymbolLocation, LanguageIntel } from '../../core/workspace/languageIntel';

/**
 * The core's LanguageIntel over VS Code's language features: the built-in commands that run every
 * registered document symbol, workspace symbol and call hierarchy provider. Each provider call
 * gives up after `timeoutMs` (a server may hang while starting); the core then answers from its
 * parser and logs why. Call hierarchy items are plain data for the core; the VS Code items behind
 * them are kept here, since VS Code resolves calls only from the items it handed out.
 */

const PROVIDER_TIMEOUT_MS = 8_000;

const KIND_NAMES: readonly IntelSymbolKind[] = [
  'File', 'Module', 'Namespace', 'Package', 'Class', 'Method', 'Property', 'Field', 'Constructor', 'Enum', 'Interface', 'Function', 'Variable',
  'Constant', 'String', 'Number', 'Boolean', 'Array', 'Object', 'Key', 'Null', 'EnumMember', 'Struct', 'Event', 'Operator', 'TypeParameter',
];

/** vscode.SymbolKind is 0-based in LSP order. */
const kindName = (k: vscode.SymbolKind): IntelSymbolKind => KIND_NAMES[k] ?? 'Variable';

const pos = (p: vscode.Position): IntelPosition => ({ line: p.line, character: p.character });
const range = (r: vscode.Range): IntelRange => ({ start: pos(r.start), end: pos(r.end) });

function isDocumentSymbol(s: vscode.DocumentSymbol | vscode.SymbolInformation): s is vscode.DocumentSymbol {
  return 'children' in s && 'selectionRange' in s;
}

function fromDocumentSymbol(s: vscode.DocumentSymbol): IntelSymbol {
  return {
    name: s.name,
    kind: kindName(s.kind),
    ...(s.detail ? { detail: s.detail } : {}),
    range: range(s.range),
    selectionRange: range(s.selectionRange),
    children: s.children.map(fromDocumentSymbol),
  };
}

/** A flat SymbolInformation list (older providers) nested by containment. */
function nestFlat(list: readonly vscode.SymbolInformation[]): IntelSymbol[] {
  const sorted = [...list].sort((a, b) => a.location.range.start.compareTo(b.location.range.start));
  const roots: IntelSymbol[] = [];
  const stack: Array<{ sym: IntelSymbol & { children: IntelSymbol[] }; r: vscode.Range }> = [];
  for (const s of sorted) {
    const sym = { name: s.name, kind: kindName(s.kind), range: range(s.location.range), selectionRange: range(s.location.range), children: [] as IntelSymbol[] };
    while (stack.length && !(stack[stack.length - 1] as { r: vscode.Range }).r.contains(s.location.range)) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) parent.sym.children.push(sym);
    else roots.push(sym);
    stack.push({ sym, r: s.location.range });
  }
  return roots;
}

export class VscodeLanguageIntel implements LanguageIntel {
  private readonly items = new WeakMap<IntelCallItem, vscode.CallHierarchyItem>();

  /** `toProjectPath` maps a path VS Code reports to the project's (symlink-resolved) root. */
  constructor(
    private readonly toProjectPath: (fsPath: string) => string = (p) => p,
    private readonly timeoutMs = PROVIDER_TIMEOUT_MS,
  ) {}

  private run<T>(what: string, command: string, ...args: unknown[]): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
    });
    const call = Promise.resolve(vscode.commands.executeCommand<T | undefined>(command, ...args));
    return Promise.race([call, late]).finally(() => clearTimeout(timer));
  }

  /**
   * Opens the document (without showing it): some providers answer only for open files (the
   * TypeScript server's call hierarchy resolves incoming and outgoing calls only for them).
   */
  private async ensureOpen(uri: vscode.Uri): Promise<void> {
    if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.timeoutMs);
    });
    await Promise.race([Promise.resolve(vscode.workspace.openTextDocument(uri)).then(() => undefined), late]).finally(() => clearTimeout(timer));
  }

  private toItem(i: vscode.CallHierarchyItem): IntelCallItem {
    const item: IntelCallItem = {
      name: i.name,
      kind: kindName(i.kind),
      ...(i.detail ? { detail: i.detail } : {}),
      path: this.toProjectPath(i.uri.fsPath),
      range: range(i.range),
      selectionRange: range(i.selectionRange),
    };
    this.items.set(item, i);
    return item;
  }

  async workspaceSymbols(query: string): Promise<readonly IntelSymbolLocation[]> {
    const found = (await this.run<vscode.SymbolInformation[]>('the workspace symbol provider', 'vscode.executeWorkspaceSymbolProvider', query)) ?? [];
    return found
      .filter((s) => s.location.uri.scheme === 'file')
      .map((s) => ({ name: s.name, kind: kindName(s.kind), ...(s.containerName ? { containerName: s.containerName } : {}), path: this.toProjectPath(s.location.uri.fsPath), range: range(s.location.range) }));
  }

  async documentSymbols(absPath: string): Promise<readonly IntelSymbol[]> {
    const uri = vscode.Uri.file(absPath);
    const found = await this.run<Array<vscode.DocumentSymbol | vscode.SymbolInformation>>('the document symbol provider', 'vscode.executeDocumentSymbolProvider', uri);
    if (!found?.length) return [];
    return found.every(isDocumentSymbol) ? found.map(fromDocumentSymbol) : nestFlat(found.filter((s): s is vscode.SymbolInformation => !isDocumentSymbol(s)));
  }

  async prepareCallHierarchy(absPath: string, position: IntelPosition): Promise<readonly IntelCallItem[]> {
    const at = new vscode.Position(position.line, position.character);
    await this.ensureOpen(vscode.Uri.file(absPath));
    const found = await this.run<vscode.CallHierarchyItem[]>('the call hierarchy provider', 'vscode.prepareCallHierarchy', vscode.Uri.file(absPath), at);
    return (found ?? []).map((i) => this.toItem(i));
  }

  async incomingCalls(item: IntelCallItem): Promise<readonly IntelCall[]> {
    const own = this.items.get(item);
    if (!own) return [];
    await this.ensureOpen(own.uri);
    const found = await this.run<vscode.CallHierarchyIncomingCall[]>('the call hierarchy provider', 'vscode.provideIncomingCalls', own);
    return (found ?? []).map((c) => ({ item: this.toItem(c.from), fromRanges: c.fromRanges.map(range) }));
  }

  async outgoingCalls(item: IntelCallItem): Promise<readonly IntelCall[]> {
    const own = this.items.get(item);
    if (!own) return [];
    await this.ensureOpen(own.uri);
    const found = await this.run<vscode.CallHierarchyOutgoingCall[]>('the call hierarchy provider', 'vscode.provideOutgoingCalls', own);
    return (found ?? []).map((c) => ({ item: this.toItem(c.to), fromRanges: c.fromRanges.map(range) }));
  }
}
