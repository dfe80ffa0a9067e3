import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ACCURACY_PROJECT, answerEdges, functionKey, functionsOf, score, type FunctionAt, type SymbolLike } from '../../support/callAccuracy';
import { connectedBackend, rootCall } from './backend';

/**
 * call_chain against VS Code's own call hierarchy, on a TypeScript project of the calls the parser
 * used to miss (test/support/callAccuracy.ts): the oracle is computed here with
 * vscode.prepareCallHierarchy / provideIncomingCalls / provideOutgoingCalls on every function and
 * method; call_chain is asked through the connected backend, by the name a user writes, for the
 * callers and callees of each, and must answer from the language server.
 */

type Data = { success: boolean; error?: string; result: string; structured: Record<string, unknown> };
const FUNCTION_KINDS = new Set([vscode.SymbolKind.Function, vscode.SymbolKind.Method, vscode.SymbolKind.Constructor]);

const toLike = (s: vscode.DocumentSymbol): SymbolLike => ({
  name: s.name, kind: vscode.SymbolKind[s.kind], range: s.range, selectionRange: s.selectionRange, children: s.children.map(toLike),
});

describe('call_chain matches VS Code\'s call hierarchy on TypeScript (accuracy)', () => {
  let root = '';
  const files: string[] = [];
  before(() => {
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    for (const [rel, text] of Object.entries(ACCURACY_PROJECT)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
      if (rel.endsWith('.ts')) files.push(rel);
    }
  });
  const live = connectedBackend();

  const call = async (tool: string, params: Record<string, unknown>): Promise<Data> => (await live.backend.call(rootCall(tool, params))).data as Data;

  /** The server is warm once it has every file's symbols and a call hierarchy for the first function. */
  async function warmSymbols(): Promise<Map<string, vscode.DocumentSymbol[]>> {
    const out = new Map<string, vscode.DocumentSymbol[]>();
    const deadline = Date.now() + 100_000;
    for (const rel of files) {
      const uri = vscode.Uri.file(path.join(root, rel));
      await vscode.workspace.openTextDocument(uri);
      for (;;) {
        const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>('vscode.executeDocumentSymbolProvider', uri);
        if (symbols?.length) {
          out.set(rel, symbols);
          break;
        }
        if (Date.now() > deadline) throw new Error(`no document symbols for ${rel}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    return out;
  }

  it('callers and callees of every function: recall ≥ 0.95, precision ≥ 0.98, from the language server', async function () {
    this.timeout(180_000);
    const symbols = await warmSymbols();
    const rel = (uri: vscode.Uri): string => path.relative(root, uri.fsPath).split(path.sep).join('/');
    const keyOf = (i: vscode.CallHierarchyItem): string | undefined =>
      FUNCTION_KINDS.has(i.kind) && i.uri.fsPath.startsWith(root) && !rel(i.uri).startsWith('..') ? functionKey(rel(i.uri), i.range.start.line + 1) : undefined;

    // The oracle: VS Code's call hierarchy for every function and method.
    const functions: FunctionAt[] = [];
    const truth = { callers: new Set<string>(), callees: new Set<string>() };
    for (const [file, list] of symbols) {
      const uri = vscode.Uri.file(path.join(root, file));
      for (const f of functionsOf(file, list.map(toLike))) {
        functions.push(f);
        const [item] = (await vscode.commands.executeCommand<vscode.CallHierarchyItem[]>('vscode.prepareCallHierarchy', uri, f.symbol.selectionRange.start)) ?? [];
        const me = item && keyOf(item);
        assert.ok(item && me, `no call hierarchy item for ${f.name}`);
        for (const c of (await vscode.commands.executeCommand<vscode.CallHierarchyIncomingCall[]>('vscode.provideIncomingCalls', item)) ?? []) {
          const k = keyOf(c.from);
          if (k) truth.callers.add(`${k} -> ${me}`);
        }
        for (const c of (await vscode.commands.executeCommand<vscode.CallHierarchyOutgoingCall[]>('vscode.provideOutgoingCalls', item)) ?? []) {
          const k = keyOf(c.to);
          if (k) truth.callees.add(`${me} -> ${k}`);
        }
      }
    }
    assert.ok(functions.length >= 18 && truth.callees.size >= 20, `${functions.length} functions, ${truth.callees.size} calls`);

    // call_chain by the name a user writes, for each.
    const found = { callers: new Set<string>(), callees: new Set<string>() };
    for (const f of functions) {
      const res = await call('call_chain', { method: f.name, direction: 'both', depth: 1 });
      assert.equal(res.success, true, `${f.name}: ${res.error}`);
      assert.equal(res.structured.source, 'language-server', `${f.name}: ${res.result.slice(0, 600)}`);
      const e = answerEdges(res.structured as Parameters<typeof answerEdges>[0]);
      for (const x of e.callers) found.callers.add(x);
      for (const x of e.callees) found.callees.add(x);
    }
    for (const dir of ['callers', 'callees'] as const) {
      const s = score(truth[dir], found[dir]);
      assert.ok(s.recall >= 0.95 && s.precision >= 0.98, `${dir}: recall ${s.recall.toFixed(2)}, precision ${s.precision.toFixed(2)}; missed ${s.missed.join('; ')}; wrong ${s.wrong.join('; ')}`);
    }
  });
});
