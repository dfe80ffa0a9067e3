import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WebSocket } from 'ws';
import type { AgentBridgeApi } from '../../../src/extension/extension';
import { type Backend, connectExtension, rootCall, startBackend, until } from './backend';

/**
 * Disconnect while a change awaits approval: the proposal is withdrawn (its diff closes, nothing
 * is written), the call answers CANCELLED, and since the link is down that answer waits in the
 * session's outbox (agentBridge.resultRetentionSeconds) and reaches the backend, once, after the
 * user connects again.
 */
describe('Cancel on disconnect', () => {
  let backend: Backend;
  let api: AgentBridgeApi;
  const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const file = (rel: string) => path.join(root(), rel);
  const proposalTabs = () =>
    vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'agent-bridge-proposal');

  before(async () => {
    backend = await startBackend();
    api = await connectExtension(`ws://127.0.0.1:${backend.port}/ws/agent/chat`, () => backend.urls.length > 0);
  });

  after(async () => {
    await vscode.commands.executeCommand('agentBridge.disconnect');
    await backend.close();
  });

  it('withdraws a pending apply_change on agentBridge.disconnect and delivers CANCELLED after the reconnect', async () => {
    const bytes = Buffer.from('keep me\nas I am\n', 'utf8');
    fs.mkdirSync(path.dirname(file('cancel/k.txt')), { recursive: true });
    fs.writeFileSync(file('cancel/k.txt'), bytes);
    const msg = rootCall('apply_change', { relativePath: 'cancel/k.txt', searchContent: 'as I am', replaceContent: 'changed' });
    // TOOL_RESULTs for this id other than the one `answer` resolves with.
    const results: Record<string, unknown>[] = [];
    const watch = (ws: WebSocket) =>
      ws.on('message', (raw: Buffer) => {
        const m = JSON.parse(raw.toString()) as Record<string, unknown>;
        if (m.type === 'TOOL_RESULT' && (m.data as { toolCallId?: string }).toolCallId === msg.toolCallId) results.push(m);
      });
    watch(backend.socket());
    const answer = backend.call(msg);
    await until(() => api.pendingChanges.list().some((c) => c.id === msg.toolCallId) && proposalTabs().length > 0, 'the proposal diff');

    await vscode.commands.executeCommand('agentBridge.disconnect');
    await until(() => api.pendingChanges.list().length === 0, 'the proposal to be withdrawn');
    await until(() => proposalTabs().length === 0, 'the diff tab to close');
    assert.equal(api.state(), 'disconnected');
    assert.deepEqual(fs.readFileSync(file('cancel/k.txt')), bytes, 'the file is byte-identical');
    assert.deepEqual(fs.readdirSync(file('cancel')), ['k.txt'], 'no temp or backup file left behind');
    assert.equal(results.length, 0, 'nothing reaches a backend while disconnected');

    const sockets = backend.urls.length;
    await vscode.commands.executeCommand('agentBridge.connect');
    await until(() => api.state() === 'connected' && backend.urls.length > sockets, 'the reconnect');
    // The outbox is flushed as the link comes up: `answer` resolves on that first frame.
    const res = await answer;
    watch(backend.socket());
    const data = res.data as Record<string, unknown>;
    assert.equal(data.success, false);
    assert.equal(data.code, 'CANCELLED');
    assert.match(String(data.error), /withdrawn|nothing was written/i);
    // Same session as before, and exactly one answer.
    assert.equal(backend.urls.at(-1)?.searchParams.get('sessionId'), backend.urls.at(-2)?.searchParams.get('sessionId'));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(results.length, 0, 'exactly one TOOL_RESULT for the call: no second one follows');
    assert.deepEqual(fs.readFileSync(file('cancel/k.txt')), bytes);
  });
});
