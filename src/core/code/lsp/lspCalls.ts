import * as path from 'node:path';
import { readProjectText } from '../../policy/projectText';
import { splitLines } from '../../workspace/text';
import type { IntelCall, IntelCallItem, IntelRange } from '../../workspace/languageIntel';
import { MAX_TREE_NODES, type CallTreeNode } from '../index/callGraph';
import type { MethodEntry, TypeEntry } from '../index/codeIndex';
import type { LspSession } from './lspLookup';
import { moduleName } from '../model';
import { isNamespaceKind, isTypeKind, namePositions } from './lspModel';
import type { MethodSymbol } from '../model';

/**
 * call_chain through the editor's call hierarchy provider: the roots' items are prepared at each
 * method's name, then incoming or outgoing calls are asked for level by level to `depth`, one node
 * per call site, cycles cut and marked, a method already expanded elsewhere marked `repeated`, as
 * the parser's call graph does. Calls leaving the project (libraries, node_modules) are leaves.
 */

const keyOf = (item: IntelCallItem): string => `${item.path}:${item.selectionRange.start.line}:${item.selectionRange.start.character}`;

/** The call as written at `range` (the callee's name): receiver chain, name, `(…)` / `()`; cut to 80 characters. */
export function callTextAt(lines: readonly string[], range: IntelRange): string {
  const line = lines[range.start.line] ?? '';
  const end = range.end.line === range.start.line ? range.end.character : line.length;
  const name = line.slice(range.start.character, end);
  const before = line.slice(0, range.start.character);
  const recv = /(?:(?:[\w$]+(?:\(\))?|\))\s*(?:\?\.|\.|->|::)\s*)*$/.exec(before)?.[0].replace(/\s+/g, '') ?? '';
  const isNew = /\bnew\s+$/.test(before.slice(0, before.length - recv.length));
  const rest = line.slice(end);
  const args = /^\s*(<[^()]*>)?\s*\(\s*\)/.test(rest) ? '()' : /^\s*(<[^()]*>)?\s*\(/.test(rest) ? '(…)' : '';
  const text = `${isNew ? 'new ' : ''}${recv}${name}${args}`;
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** TypeScript's server lists a call through a namespace merged with another declaration once per declaration. */
function distinct(ranges: readonly IntelRange[]): IntelRange[] {
  const seen = new Set<string>();
  return ranges.filter((r) => {
    const key = `${r.start.line}:${r.start.character}:${r.end.line}:${r.end.character}`;
    return !seen.has(key) && !!seen.add(key);
  });
}

export class LspCallTree {
  private readonly lines = new Map<string, Promise<string[]>>();
  private readonly synthetic = new Map<string, MethodEntry>();
  private count = 0;
  truncated = false;

  constructor(private readonly s: LspSession) {}

  private textOf(abs: string): Promise<string[]> {
    let p = this.lines.get(abs);
    if (!p) this.lines.set(abs, (p = readProjectText(this.s.ws, path.relative(this.s.ws.root, abs)).then((t) => splitLines(t.text))));
    return p;
  }

  /** The method an item is, from its file's document symbols; a stand-in when the symbols do not have it. */
  private async entryFor(item: IntelCallItem): Promise<MethodEntry | { implicit: string }> {
    const types: TypeEntry[] = await this.s.typesIn(item.path).catch(() => []);
    const at = item.selectionRange.start;
    if (isTypeKind(item.kind)) {
      const owner = types.find((t) => t.type.line === item.range.start.line + 1 && t.type.name === item.name);
      const ctor = owner?.type.methods.find((m) => m.kind === 'constructor');
      if (owner && ctor) return { owner, method: ctor };
      return { implicit: `${item.name}.<init>` };
    }
    let best: MethodEntry | undefined;
    for (const owner of types) {
      for (const method of owner.type.methods) {
        const pos = namePositions.get(method);
        if (pos && pos.line === at.line && pos.character === at.character) return { owner, method };
        if (method.line - 1 <= at.line && at.line <= method.endLine - 1 && (!best || method.line >= best.method.line)) best = { owner, method };
      }
    }
    if (best && best.method.name === item.name) return best;
    const key = keyOf(item);
    let made = this.synthetic.get(key);
    if (!made) {
      const rel = path.relative(this.s.ws.root, item.path).split(path.sep).join('/');
      const name = item.detail && !item.detail.includes('/') ? item.detail : moduleName(rel);
      const method: MethodSymbol = {
        kind: 'method', name: item.name, params: [], modifiers: [], annotations: [], line: item.range.start.line + 1, endLine: item.range.end.line + 1, hasBody: true, calls: [],
      };
      const file = { language: 'lsp' as const, package: '', imports: [], types: [], lineCount: 0 };
      const type = { kind: 'module' as const, name, qname: name, fqn: name, modifiers: [], annotations: [], typeParams: [], extends: [], implements: [], line: 1, endLine: 1, signature: '', fields: [], methods: [method], enumConstants: [], components: [] };
      made = { owner: { path: rel, file, type }, method };
      this.synthetic.set(key, made);
    }
    return made;
  }

  private calls(item: IntelCallItem, direction: 'callers' | 'callees'): Promise<readonly IntelCall[]> {
    return direction === 'callers' ? this.s.intel.incomingCalls(item) : this.s.intel.outgoingCalls(item);
  }

  private async expand(item: IntelCallItem, direction: 'callers' | 'callees', level: number, depth: number, onPath: ReadonlySet<string>, expanded: Set<string>): Promise<CallTreeNode[]> {
    if (level >= depth) return [];
    const out: CallTreeNode[] = [];
    const nextPath = new Set(onPath).add(keyOf(item));
    // Naming a namespace on the way to a call (`A.B.f()`) is not a call of it.
    const calls = [...(await this.calls(item, direction))].filter((c) => !isNamespaceKind(c.item.kind)).sort((a, b) => a.item.path.localeCompare(b.item.path) || (a.fromRanges[0]?.start.line ?? 0) - (b.fromRanges[0]?.start.line ?? 0));
    for (const call of calls) {
      const siteFile = direction === 'callers' ? call.item.path : item.path;
      const lines = this.s.inProject(siteFile) ? await this.textOf(siteFile) : [];
      for (const range of distinct(call.fromRanges.length ? call.fromRanges : [call.item.selectionRange])) {
        if (this.count >= MAX_TREE_NODES) {
          this.truncated = true;
          return out;
        }
        this.count++;
        const site = { line: range.start.line + 1, call: callTextAt(lines, range) };
        if (!this.s.inProject(call.item.path)) {
          out.push({ external: `${call.item.detail ? `${call.item.detail}.` : ''}${call.item.name}`, ...site, children: [] });
          continue;
        }
        const target = await this.entryFor(call.item);
        if ('implicit' in target) {
          out.push({ external: target.implicit, implicit: true, ...site, children: [] });
          continue;
        }
        const key = keyOf(call.item);
        if (nextPath.has(key)) out.push({ method: target, ...site, cycle: true, children: [] });
        else if (expanded.has(key) && level + 1 < depth) out.push({ method: target, ...site, repeated: true, children: [] });
        else {
          if (level + 1 < depth) expanded.add(key);
          out.push({ method: target, ...site, children: await this.expand(call.item, direction, level + 1, depth, nextPath, expanded) });
        }
      }
    }
    return out;
  }

  /** The tree of `roots`; undefined when the server has no call hierarchy for any of them. */
  async tree(roots: readonly MethodEntry[], direction: 'callers' | 'callees', depth: number): Promise<{ nodes: CallTreeNode[]; truncated: boolean } | undefined> {
    const nodes: CallTreeNode[] = [];
    const expanded = new Set<string>();
    let any = false;
    for (const root of roots) {
      const pos = namePositions.get(root.method);
      const items = pos ? await this.s.intel.prepareCallHierarchy(path.join(this.s.ws.root, root.owner.path), pos) : [];
      const item = items[0];
      if (!item) {
        nodes.push({ method: root, children: [] });
        continue;
      }
      any = true;
      expanded.add(keyOf(item));
      nodes.push({ method: root, children: await this.expand(item, direction, 0, depth, new Set(), expanded) });
    }
    return any ? { nodes, truncated: this.truncated } : undefined;
  }
}
