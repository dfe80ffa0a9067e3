import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WebSocket } from 'ws';
import { connectedBackend, proposalTabs, rootCall } from './backend';
import { waitUntil } from '../../support/waitUntil';

/**
 * Disconnect while a change awaits approval: the proposal is withdrawn (its diff closes, nothing
 * is written), the call answers CANCELLED, and since the link is down that answer waits in the
 * session's outbox (agentBridge.resultRetentionSeconds) and reaches the backend, once, after the
 * user connects again.
 */
describe('Cancel on disconnect', () => {
  const live = connectedBackend();
  const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const file = (rel: string) => path.join(root(), rel);

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
    watch(live.backend.socket());
    const answer = live.backend.call(msg);
    await waitUntil(() => live.api.pendingChanges.list().some((c) => c.id === msg.toolCallId) && proposalTabs().length > 0, 'the proposal diff');

    await vscode.commands.executeCommand('agentBridge.disconnect');
    await waitUntil(() => live.api.pendingChanges.list().length === 0, 'the proposal to be withdrawn');
    await waitUntil(() => proposalTabs().length === 0, 'the diff tab to close');
    assert.equal(live.api.state(), 'disconnected');
    assert.deepEqual(fs.readFileSync(file('cancel/k.txt')), bytes, 'the file is byte-identical');
    assert.deepEqual(fs.readdirSync(file('cancel')), ['k.txt'], 'no temp or backup file left behind');
    assert.equal(results.length, 0, 'nothing reaches a backend while disconnected');

    const sockets = live.backend.urls.length;
    await vscode.commands.executeCommand('agentBridge.connect');
    await waitUntil(() => live.api.state() === 'connected' && live.backend.urls.length > sockets, 'the reconnect');
    // The outbox is flushed as the link comes up: `answer` resolves on that first frame.
    const res = await answer;
    watch(live.backend.socket());
    const data = res.data as Record<string, unknown>;
    assert.equal(data.success, false);
    assert.equal(data.code, 'CANCELLED');
    assert.match(String(data.error), /withdrawn|nothing was written/i);
    // Same session as before, and exactly one answer.
    assert.equal(live.backend.urls.at(-1)?.searchParams.get('sessionId'), live.backend.urls.at(-2)?.searchParams.get('sessionId'));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(results.length, 0, 'exactly one TOOL_RESULT for the call: no second one follows');
    assert.deepEqual(fs.readFileSync(file('cancel/k.txt')), bytes);
  });
});
