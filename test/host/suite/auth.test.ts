import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startDevBackend, type DevBackend } from '../../../src/devBackend/server';
import type { AgentBridgeApi } from '../../../src/extension/extension';

import { waitUntil } from '../../support/waitUntil';
/**
 * Token auth and the secrets guard in the real extension host: the token goes into SecretStorage
 * through agentBridge.setToken, the dev backend accepts it (Bearer header + CONNECT), a wrong one
 * is refused without a reconnect loop, and a .env file is never shown to the agent.
 */
/** These suites wait on a webview and a token round trip: a longer budget than backend.ts's default. */
const until = <T>(probe: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> => waitUntil(probe, what, timeoutMs);

describe('token auth and secrets', () => {
  const TOKEN = 'host-test-token-4711';
  let backend: DevBackend;
  let api: AgentBridgeApi;
  let envFile: string;

  before(async () => {
    backend = await startDevBackend({ port: 0, token: TOKEN });
    const ext = vscode.extensions.getExtension<AgentBridgeApi>('agent-bridge.agent-bridge');
    assert.ok(ext);
    api = await ext.activate();
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(root);
    envFile = path.join(root, '.env');
    fs.writeFileSync(envFile, 'API_KEY=do-not-show-4711\n');
    await vscode.workspace.getConfiguration('agentBridge').update('serverUrl', backend.wsUrl('/ws/agent/chat'), vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.commands.executeCommand('agentBridge.setToken', '');
    await vscode.commands.executeCommand('agentBridge.disconnect');
    fs.rmSync(envFile, { force: true });
    await backend.close();
  });

  it('connects with the token set through agentBridge.setToken (SecretStorage)', async () => {
    await vscode.commands.executeCommand('agentBridge.setToken', TOKEN);
    await vscode.commands.executeCommand('agentBridge.connect');
    const session = await backend.waitForSession((s) => s.authenticated, 20_000);
    assert.equal(session.authenticated, true);
    await until(() => api.state() === 'connected', 'connected');
    const r = (await backend.callTool('read_file', { relativePath: 'notes.txt' })).data as { success: boolean; error?: string };
    assert.equal(r.success, true, r.error);
  });

  it('refuses to show a .env file, by read_file or by search', async () => {
    const read = (await backend.callTool('read_file', { relativePath: '.env' })).data as { code?: string; error?: string };
    assert.equal(read.code, 'PERMISSION_DENIED');
    assert.match(read.error ?? '', /agentBridge\.excludeGlobs/);
    const grep = (await backend.callTool('grep_file', { pattern: 'do-not-show-4711' })).data as { success: boolean; result?: string };
    assert.equal(grep.success, true);
    assert.ok(!(grep.result ?? '').includes('API_KEY'), grep.result);
  });

  it('a change of agentBridge.excludeGlobs in user settings holds from the next call; a workspace value is ignored', async () => {
    // The guard is kept between calls (it was reread for every path judged): a change must still
    // take effect at once, tightening or loosening, and only from the user's settings.
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath as string;
    const plain = path.join(root, 'cache-test-plans.txt');
    fs.writeFileSync(plain, 'quarterly plans 4711\n');
    const config = () => vscode.workspace.getConfiguration('agentBridge');
    const read = async () => ((await backend.callTool('read_file', { relativePath: 'cache-test-plans.txt' })).data as { success: boolean; code?: string }).code ?? 'OK';
    const found = async () => ((await backend.callTool('grep_file', { pattern: 'quarterly plans 4711' })).data as { result?: string }).result?.includes('cache-test-plans.txt');
    try {
      assert.equal(await read(), 'OK');
      assert.equal(await found(), true);
      await config().update('excludeGlobs', ['**/.env', '**/*-plans.txt'], vscode.ConfigurationTarget.Global);
      assert.equal(await read(), 'PERMISSION_DENIED', 'a glob added in user settings holds from the next call');
      assert.equal(await found(), false);
      assert.equal(((await backend.callTool('read_file', { relativePath: '.env' })).data as { code?: string }).code, 'PERMISSION_DENIED');
      // A hostile repository's own settings file empties the list (editor.tabSize tells when VS Code has read it).
      fs.mkdirSync(path.join(root, '.vscode'), { recursive: true });
      fs.writeFileSync(path.join(root, '.vscode', 'settings.json'), JSON.stringify({ 'agentBridge.excludeGlobs': [], 'editor.tabSize': 7 }));
      await until(() => vscode.workspace.getConfiguration('editor').inspect('tabSize')?.workspaceValue === 7, 'VS Code to read the workspace settings');
      assert.equal(await read(), 'PERMISSION_DENIED', "the workspace's own value loosens nothing");
      fs.rmSync(path.join(root, '.vscode', 'settings.json'), { force: true });
      await until(() => vscode.workspace.getConfiguration('editor').inspect('tabSize')?.workspaceValue === undefined, 'VS Code to drop the workspace settings');
      await config().update('excludeGlobs', undefined, vscode.ConfigurationTarget.Global);
      assert.equal(await read(), 'OK', 'back to the defaults');
    } finally {
      fs.rmSync(path.join(root, '.vscode', 'settings.json'), { force: true });
      await config().update('excludeGlobs', undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(plain, { force: true });
    }
  });

  it('a changed, wrong token reconnects and is refused: offline, no reconnect loop', async () => {
    await vscode.commands.executeCommand('agentBridge.setToken', 'wrong-token');
    await until(() => api.state() === 'disconnected', 'the refusal');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(api.state(), 'disconnected', 'still offline: no retry with a refused token');
    assert.equal(backend.sessions().length, 0);
  });
});
