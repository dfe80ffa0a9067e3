import * as path from 'node:path';
import type * as TS from 'typescript';
import type { IntelCall, IntelCallItem, IntelRange, IntelSymbol, IntelSymbolKind, IntelSymbolLocation } from '../../workspace/languageIntel';
import { ProjectRefused, type Projects } from './tsProjects';

/**
 * The TypeScript language service's answers as LanguageIntel's plain data, shaped as VS Code's
 * TypeScript extension shapes them (document symbols from the navigation tree, workspace symbols
 * from navigate-to, the call hierarchy as is), so lsp/ reads them as it reads VS Code's. Every
 * list is bounded: a pathological file cannot make an answer too large to send.
 */

export type TsRequest =
  | { readonly op: 'documentSymbols'; readonly file: string }
  | { readonly op: 'workspaceSymbols'; readonly query: string }
  | { readonly op: 'prepare' | 'incoming' | 'outgoing'; readonly file: string; readonly line: number; readonly character: number }
  | { readonly op: 'memory' };

const MAX_SYMBOLS = 5_000;
const MAX_ITEMS = 1_000;

const KINDS = new Map<string, IntelSymbolKind>(Object.entries<IntelSymbolKind>({
  module: 'Module', class: 'Class', 'local class': 'Class', enum: 'Enum', interface: 'Interface', method: 'Method', property: 'Property',
  getter: 'Property', setter: 'Property', var: 'Variable', let: 'Variable', const: 'Variable', 'local var': 'Variable', using: 'Variable',
  function: 'Function', 'local function': 'Function', 'enum member': 'EnumMember', type: 'Class',
  'type parameter': 'TypeParameter', script: 'File', alias: 'Variable', parameter: 'Variable',
}));
// Not in the literal: a key `constructor` there would be typed as Object's own.
KINDS.set('constructor', 'Constructor');
const kindOf = (kind: string): IntelSymbolKind => KINDS.get(kind) ?? 'Variable';

export class TsAnswers {
  constructor(
    private readonly ts: typeof TS,
    private readonly projects: Projects,
    private readonly root: string,
  ) {}

  answer(r: TsRequest): unknown {
    switch (r.op) {
      case 'documentSymbols':
        return this.documentSymbols(r.file);
      case 'workspaceSymbols':
        return this.workspaceSymbols(r.query);
      case 'prepare':
      case 'incoming':
      case 'outgoing':
        return this.calls(r.op, r.file, r.line, r.character);
      case 'memory':
        return undefined;
    }
  }

  private rangeOf(program: TS.Program | undefined, file: string, span: TS.TextSpan): IntelRange | undefined {
    const sf = program?.getSourceFile(file);
    if (!sf) return undefined;
    const start = this.ts.getLineAndCharacterOfPosition(sf, span.start);
    const end = this.ts.getLineAndCharacterOfPosition(sf, span.start + span.length);
    return { start, end };
  }

  private documentSymbols(file: string): IntelSymbol[] {
    const service = this.projects.serviceFor(file);
    if (!service) return [];
    const program = service.getProgram();
    const tree = service.getNavigationTree(file);
    const out: IntelSymbol[] = [];
    let count = 0;
    const convert = (item: TS.NavigationTree, into: IntelSymbol[]): boolean => {
      let include = item.kind !== 'alias' && !!item.text && item.text !== '<function>' && item.text !== '<class>';
      if (!include && !item.childItems?.length) return false;
      const children = new Set(item.childItems ?? []);
      for (const span of item.spans) {
        if (++count > MAX_SYMBOLS) return include;
        const range = this.rangeOf(program, file, span);
        if (!range) continue;
        const selection = item.nameSpan ? this.rangeOf(program, file, item.nameSpan) : undefined;
        const label = item.kind === 'getter' ? `(get) ${item.text}` : item.kind === 'setter' ? `(set) ${item.text}` : item.text;
        const mine: IntelSymbol[] = [];
        for (const child of children) {
          if (child.spans.some((s) => s.start < span.start + span.length && span.start < s.start + s.length)) {
            include = convert(child, mine) || include;
            children.delete(child);
          }
        }
        if (include) into.push({ name: label, kind: kindOf(item.kind), range, selectionRange: selection ?? range, children: mine });
      }
      return include;
    };
    for (const item of tree.childItems ?? []) convert(item, out);
    return out;
  }

  private workspaceSymbols(query: string): IntelSymbolLocation[] {
    const out: IntelSymbolLocation[] = [];
    const seen = new Set<string>();
    const { services, refusals } = this.projects.services();
    // Every project refused: an error, so the parser answers and the log says why.
    if (!services.length && refusals[0] !== undefined) throw new ProjectRefused(refusals[0]);
    for (const service of services) {
      const program = service.getProgram();
      for (const item of service.getNavigateToItems(query, MAX_ITEMS, undefined, true)) {
        if (item.kind === 'alias' || out.length >= MAX_ITEMS) continue;
        const key = `${item.fileName}:${item.textSpan.start}`;
        const range = this.rangeOf(program, item.fileName, item.textSpan);
        if (seen.has(key) || !range) continue;
        seen.add(key);
        out.push({ name: item.name, kind: kindOf(item.kind), ...(item.containerName ? { containerName: item.containerName } : {}), path: path.resolve(item.fileName), range });
      }
    }
    return out;
  }

  private item(program: TS.Program | undefined, i: TS.CallHierarchyItem): IntelCallItem | undefined {
    const range = this.rangeOf(program, i.file, i.span);
    const selectionRange = this.rangeOf(program, i.file, i.selectionSpan);
    if (!range || !selectionRange) return undefined;
    const file = path.resolve(i.file);
    // A file's top-level code calls as the file itself: named after it, its folder as the detail.
    const whole = i.kind === 'script' || (i.kind === 'module' && i.selectionSpan.start === 0);
    const name = whole ? path.basename(file) : i.name;
    const detail = whole ? path.relative(this.root, path.dirname(file)).split(path.sep).join('/') : (i.containerName ?? '');
    return { name, kind: kindOf(i.kind), ...(detail ? { detail } : {}), path: file, range, selectionRange };
  }

  private calls(op: 'prepare' | 'incoming' | 'outgoing', file: string, line: number, character: number): IntelCallItem[] | IntelCall[] {
    const service = this.projects.serviceFor(file);
    const program = service?.getProgram();
    const sf = program?.getSourceFile(file);
    if (!service || !sf || line < 0 || line >= sf.getLineStarts().length) return [];
    const pos = this.ts.getPositionOfLineAndCharacter(sf, line, character);
    if (op === 'prepare') {
      const items = service.prepareCallHierarchy(file, pos);
      const list = items === undefined ? [] : Array.isArray(items) ? items : [items];
      return list.flatMap((i) => this.item(program, i) ?? []);
    }
    const calls: ReadonlyArray<TS.CallHierarchyIncomingCall | TS.CallHierarchyOutgoingCall> =
      op === 'incoming' ? service.provideCallHierarchyIncomingCalls(file, pos) : service.provideCallHierarchyOutgoingCalls(file, pos);
    const out: IntelCall[] = [];
    for (const c of calls.slice(0, MAX_ITEMS)) {
      const other = 'from' in c ? c.from : c.to;
      const item = this.item(program, other);
      // The call's ranges are in the caller's file: the other end's for incoming calls, this file's for outgoing ones.
      const siteFile = 'from' in c ? other.file : file;
      // A call through a name that is both a namespace and an interface comes twice.
      const spans = [...new Map(c.fromSpans.slice(0, MAX_ITEMS).map((s) => [`${s.start}:${s.length}`, s])).values()];
      const fromRanges = spans.flatMap((s) => this.rangeOf(program, siteFile, s) ?? []);
      if (item) out.push({ item, fromRanges });
    }
    return out;
  }
}
