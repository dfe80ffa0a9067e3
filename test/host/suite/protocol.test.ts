import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { connectedBackend, rootCall } from './backend';
import { waitUntil } from '../../support/waitUntil';

/**
 * The extension against a real backend on loopback, inside the real extension host: the suite
 * plays the backend, sends TOOL_CALLs, and checks each TOOL_RESULT field by field against the spec.
 */
describe('Agent Bridge against a loopback backend', () => {
  const live = connectedBackend();
  const folder = () => vscode.workspace.workspaceFolders![0];

  it('handshake carries the session id and the folder name as project key', () => {
    const url = live.backend.urls[live.backend.urls.length - 1];
    assert.equal(url.pathname, '/ws/agent/chat');
    assert.equal(url.searchParams.get('sessionId'), live.api.sessionId());
    assert.equal(url.searchParams.get('projectKey'), folder().name);
  });

  it('read_file: TOOL_RESULT has exactly the spec fields inside data', async () => {
    const msg = rootCall('read_file', { relativePath: 'src/app/Greeter.java', start_line: 3, end_line: 6 });
    const res = await live.backend.call(msg);
    assert.deepEqual(Object.keys(res).sort(), ['data', 'type']);
    assert.equal(res.type, 'TOOL_RESULT');
    const data = res.data as Record<string, unknown>;
    assert.equal(data.toolCallId, msg.toolCallId);
    assert.equal(data.success, true);
    assert.equal(typeof data.executionTime, 'number');
    assert.equal(typeof data.result, 'string');
    assert.match(data.result as string, /## File: src\/app\/Greeter\.java/);
    assert.match(data.result as string, /4 \| {5}public String greet\(String name\) \{/);
    assert.doesNotMatch(data.result as string, /1 \| package app;/);
    assert.equal(data.callId, undefined);
    assert.equal(data.error, undefined);
  });

  it('the data-shaped TOOL_CALL is answered with callId echoed', async () => {
    const res = await live.backend.call({ type: 'TOOL_CALL', data: { callId: 'call-v1-1', toolName: 'read_file', params: { relativePath: 'notes.txt' }, projectPath: '/x' } });
    const data = res.data as Record<string, unknown>;
    assert.equal(data.callId, 'call-v1-1');
    assert.equal(data.toolCallId, 'call-v1-1');
    assert.equal(data.success, true);
    assert.match(data.result as string, /needle appears here once/);
  });

  it('read_file sees an unsaved editor buffer, not the disk', async () => {
    const uri = vscode.Uri.file(path.join(folder().uri.fsPath, 'notes.txt'));
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((b) => b.insert(new vscode.Position(0, 0), 'UNSAVED EDIT\n'));
    assert.ok(doc.isDirty);
    try {
      const res = await live.backend.call(rootCall('read_file', { relativePath: 'notes.txt' }));
      const data = res.data as Record<string, unknown>;
      assert.equal(data.success, true);
      assert.match(data.result as string, /1 \| UNSAVED EDIT/);
      assert.match(data.result as string, /unsaved editor buffer/);
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });

  it('a path outside the project is PERMISSION_DENIED and reads nothing', async () => {
    for (const relativePath of ['../../../../etc/passwd', '/etc/passwd']) {
      const res = await live.backend.call(rootCall('read_file', { relativePath }));
      const data = res.data as Record<string, unknown>;
      assert.equal(data.success, false, relativePath);
      assert.equal(data.code, 'PERMISSION_DENIED');
      assert.equal(typeof data.error, 'string');
      assert.equal(data.result, undefined);
      assert.doesNotMatch(JSON.stringify(res), /root:/);
    }
  });

  it('grep_file runs through the ripgrep that ships with VS Code', async () => {
    const res = await live.backend.call(rootCall('grep_file', { pattern: 'todo', context_lines: 1 }));
    const data = res.data as Record<string, unknown>;
    assert.equal(data.success, true, String(data.error));
    const result = data.result as string;
    assert.match(result, /src\/app\/Main\.java/);
    assert.match(result, /src\/app\/Greeter\.java/);
    assert.match(result, /TODO: localize/);
    assert.match(result, /TODO: read the name from args/);
  });

  it('grep_file honours files.exclude and search.exclude', async () => {
    const fs = await import('node:fs');
    const root = folder().uri.fsPath;
    for (const dir of ['generated', 'vendored']) {
      fs.mkdirSync(path.join(root, dir), { recursive: true });
      fs.writeFileSync(path.join(root, dir, 'Out.java'), '// marker-xyzzy\n');
    }
    const files = vscode.workspace.getConfiguration('files');
    const search = vscode.workspace.getConfiguration('search');
    await files.update('exclude', { '**/generated': true }, vscode.ConfigurationTarget.Workspace);
    await search.update('exclude', { '**/vendored': true }, vscode.ConfigurationTarget.Workspace);
    try {
      const hidden = (await live.backend.call(rootCall('grep_file', { pattern: 'marker-xyzzy' }))).data as Record<string, unknown>;
      assert.equal(hidden.success, true);
      assert.doesNotMatch(String(hidden.result), /generated|vendored/);
      await files.update('exclude', undefined, vscode.ConfigurationTarget.Workspace);
      await search.update('exclude', undefined, vscode.ConfigurationTarget.Workspace);
      const shown = (await live.backend.call(rootCall('grep_file', { pattern: 'marker-xyzzy' }))).data as Record<string, unknown>;
      assert.match(String(shown.result), /generated\/Out\.java/);
      assert.match(String(shown.result), /vendored\/Out\.java/);
    } finally {
      await files.update('exclude', undefined, vscode.ConfigurationTarget.Workspace);
      await search.update('exclude', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('unknown tools and missing params get the spec codes', async () => {
    const unknown = (await live.backend.call(rootCall('format_disk', {}))).data as Record<string, unknown>;
    assert.equal(unknown.code, 'TOOL_NOT_FOUND');
    const missing = (await live.backend.call(rootCall('grep_file', {}))).data as Record<string, unknown>;
    assert.equal(missing.code, 'VALIDATION_FAILED');
    assert.match(missing.error as string, /pattern/);
  });

  it('the same toolCallId is answered with the first answer, not run again', async () => {
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, 'replay.txt');
    fs.writeFileSync(file, 'first version\n');
    const msg = rootCall('read_file', { relativePath: 'replay.txt' });
    const first = await live.backend.call(msg);
    assert.match(String((first.data as Record<string, unknown>).result), /first version/);
    // Run again, the call would now read the second version: a replay still says the first.
    fs.writeFileSync(file, 'second version\n');
    const second = await live.backend.call(msg);
    assert.deepEqual(second, first);
  });

  it('disconnect closes the link and does not reconnect', async () => {
    await vscode.commands.executeCommand('agentBridge.disconnect');
    assert.equal(live.api.state(), 'disconnected');
    const count = live.backend.urls.length;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(live.backend.urls.length, count);
    await vscode.commands.executeCommand('agentBridge.connect');
    await waitUntil(() => live.api.state() === 'connected' && live.backend.urls.length === count + 1, 'reconnect on command');
  });
});
