import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { connectedBackend, rootCall } from './backend';

/** read_class / read_method / call_chain on the Java fixture, answered by the extension's own parser. */
describe('Code intelligence on a Java workspace', () => {
  const live = connectedBackend();
  const data = (m: Record<string, unknown>) => m.data as Record<string, unknown>;

  it('read_class gives the structure of a class, from the parser', async () => {
    const res = data(await live.backend.call(rootCall('read_class', { className: 'Greeter', mode: 'structure' })));
    assert.equal(res.success, true, String(res.error));
    assert.match(String(res.result), /app\.Greeter/);
    assert.match(String(res.result), /greet\(String name\)/);
    const s = res.structured as { source: string };
    assert.equal(s.source, 'parser');
  });

  it('call_chain finds the callee of Main.run and the caller of Greeter.greet', async () => {
    const callees = data(await live.backend.call(rootCall('call_chain', { method: 'Main.run', direction: 'callees', depth: 1 })));
    assert.equal(callees.success, true, String(callees.error));
    assert.match(String(callees.result), /Greeter\.greet/);
    const callers = data(await live.backend.call(rootCall('call_chain', { method: 'Greeter.greet', direction: 'callers' })));
    assert.match(String(callers.result), /Main\.run/);
  });

  it('a saved change to a Java file is seen by the next read_method', async () => {
    const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const file = path.join(root, 'src', 'app', 'Greeter.java');
    const before = fs.readFileSync(file, 'utf8');
    try {
      fs.writeFileSync(file, before.replace('public String greet(String name) {', 'public String greet(String name) {\n        // freshly-added-line'));
      let text = '';
      const start = Date.now();
      while (!/freshly-added-line/.test(text) && Date.now() - start < 10_000) {
        text = String(data(await live.backend.call(rootCall('read_method', { className: 'Greeter', methodName: 'greet' }))).result);
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.match(text, /freshly-added-line/);
    } finally {
      fs.writeFileSync(file, before);
    }
  });
});
