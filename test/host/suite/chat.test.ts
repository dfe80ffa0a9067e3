import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startDevBackend, type DevBackend } from '../../../src/devBackend/server';
import { createScriptedAgent, SCRIPTED_COMMANDS } from '../../../src/devBackend/scriptedAgent';
import { ToWebviewSchema, type Entry, type ToWebview } from '../../../src/extension/chat/contract';
import type { AgentBridgeApi } from '../../../src/extension/extension';

import { waitUntil } from '../../support/waitUntil';
/**
 * The chat panel in the real workbench: the webview really loads and says `ready`, the dev
 * backend's scripted agent answers, and everything the extension posts is checked against the
 * contract the webview parses with.
 */
/** These suites wait on a webview and a token round trip: a longer budget than backend.ts's default. */
const until = <T>(probe: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> => waitUntil(probe, what, timeoutMs);

const chatTabs = (): vscode.Tab[] =>
  vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.includes('agentBridge.chat'));

describe('chat panel', () => {
  let backend: DevBackend;
  let api: AgentBridgeApi;
  const posted: ToWebview[] = [];
  let subscription: vscode.Disposable;
  const lastInit = () => [...posted].reverse().find((m): m is Extract<ToWebview, { type: 'init' }> => m.type === 'init');

  before(async () => {
    backend = await startDevBackend({ port: 0, chat: createScriptedAgent({ stepDelayMs: 0 }), commands: SCRIPTED_COMMANDS });
    const ext = vscode.extensions.getExtension<AgentBridgeApi>('agent-bridge.agent-bridge');
    assert.ok(ext);
    api = await ext.activate();
    subscription = api.chat.onDidPostMessage((m) => posted.push(m));
    await vscode.workspace.getConfiguration('agentBridge').update('serverUrl', backend.wsUrl('/ws/agent/chat'), vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('agentBridge.connect');
    await until(() => api.state() === 'connected', 'the extension to connect');
  });

  after(async () => {
    subscription.dispose();
    for (const tab of chatTabs()) await vscode.window.tabGroups.close(tab);
    await vscode.commands.executeCommand('agentBridge.disconnect');
    await backend.close();
  });

  it('opens docked in the Agent Bridge side bar from agentBridge.openChat, and its webview asks for its state', async () => {
    const from = posted.length;
    await vscode.commands.executeCommand('agentBridge.openChat');
    await until(() => api.chat.isDocked(), 'the docked chat');
    const init = await until(() => posted.slice(from).find((m): m is Extract<ToWebview, { type: 'init' }> => m.type === 'init'), 'init of the docked chat');
    assert.equal(init.connection.state, 'connected');
    assert.equal(chatTabs().length, 0, 'no editor tab');
    // Asked again once it is up: the cursor goes to its message box.
    const again = posted.length;
    await vscode.commands.executeCommand('agentBridge.openChat');
    await until(() => posted.slice(again).some((m) => m.type === 'focus'), 'focus for the message box');
  });

  it('opens as an editor tab from agentBridge.openChatInEditor, and the webview asks for its state', async () => {
    await vscode.commands.executeCommand('agentBridge.openChatInEditor');
    assert.equal(api.chat.isOpen(), true);
    await until(() => chatTabs().length === 1, 'the chat tab');
    const init = await until(lastInit, 'init after the webview said ready');
    assert.equal(init.connection.state, 'connected');
    assert.ok(init.strings.send.length > 0);
    assert.equal(init.readOnly, false, 'a trusted workspace: no read-only notice');
    await vscode.commands.executeCommand('agentBridge.openChatInEditor');
    assert.equal(chatTabs().length, 1, 'a second open reveals the same tab');
  });

  it('a sent message streams thinking, a tool row and the answer, all within the contract', async () => {
    const from = posted.length;
    api.chat.receive({ type: 'send', text: '/read notes.txt' });
    await until(() => posted.slice(from).some((m) => m.type === 'busy' && !m.busy), 'the end of the turn');
    const mine = posted.slice(from);
    for (const m of mine) assert.ok(ToWebviewSchema.safeParse(m).success, `outside the contract: ${JSON.stringify(m)}`);
    const entries = mine.flatMap((m) => (m.type === 'entry' ? [m.entry] : []));
    const kinds = new Set(entries.map((e) => e.kind));
    for (const k of ['user', 'thinking', 'tool', 'answer'] as const) assert.ok(kinds.has(k), `no ${k} entry in ${[...kinds].join(', ')}`);
    const tool = api.chat.entries().find((e): e is Extract<Entry, { kind: 'tool' }> => e.kind === 'tool');
    assert.equal(tool?.name, 'read_file');
    assert.equal(tool?.status, 'succeeded');
    assert.equal(typeof tool?.ms, 'number');
    const answer = api.chat.entries().find((e): e is Extract<Entry, { kind: 'answer' }> => e.kind === 'answer');
    assert.equal(answer?.done, true);
    assert.match(answer?.markdown ?? '', /needle appears here once/);
  });

  it('an ERROR is shown with its explanation', async () => {
    api.chat.receive({ type: 'send', text: '/error PROJECT_NOT_FOUND' });
    const error = await until(() => api.chat.entries().find((e): e is Extract<Entry, { kind: 'error' }> => e.kind === 'error'), 'the error entry');
    assert.equal(error.code, 'PROJECT_NOT_FOUND');
    assert.match(error.explanation, /project key/i);
  });

  it('keeps the conversation across closing and reopening the tab', async () => {
    for (const tab of chatTabs()) await vscode.window.tabGroups.close(tab);
    await until(() => !api.chat.isOpen(), 'the panel to close');
    const from = posted.length;
    await vscode.commands.executeCommand('agentBridge.openChatInEditor');
    const init = await until(() => posted.slice(from).find((m): m is Extract<ToWebview, { type: 'init' }> => m.type === 'init'), 'init of the reopened panel');
    const users = init.entries.flatMap((e) => (e.kind === 'user' ? [e.text] : []));
    assert.deepEqual(users, ['/read notes.txt', '/error PROJECT_NOT_FOUND']);
  });

  it('refuses a webview message outside the contract without acting on it', () => {
    const before = api.chat.entries().length;
    api.chat.receive({ type: 'send' });
    api.chat.receive({ type: 'runScript', code: 'x' });
    assert.equal(api.chat.entries().length, before);
  });

  it('shows the link going offline and back, with the state the header renders', async () => {
    const from = posted.length;
    await vscode.commands.executeCommand('agentBridge.disconnect');
    await until(() => posted.slice(from).some((m) => m.type === 'connection' && m.connection.state === 'disconnected'), 'offline state');
    api.chat.receive({ type: 'retry' });
    await until(() => posted.slice(from).some((m) => m.type === 'connection' && m.connection.state === 'connected'), 'connected again after Retry');
  });

  it('offline, the header says in words what is wrong and what to do, and when it retries', async () => {
    const from = posted.length;
    const config = vscode.workspace.getConfiguration('agentBridge');
    // A port where nothing listens (the discard port): the link keeps retrying with backoff.
    await config.update('serverUrl', 'ws://127.0.0.1:9/ws/agent/chat', vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand('agentBridge.connect');
      const view = await until(
        () => posted.slice(from).flatMap((m) => (m.type === 'connection' && m.connection.state === 'reconnecting' && m.connection.retryAt ? [m.connection] : []))[0],
        'a reconnecting state with its next attempt',
      );
      assert.match(view.hint ?? '', /Nothing answers at ws:\/\/127\.0\.0\.1:9\/ws\/agent\/chat\. Start the agent backend/);
      assert.match(view.detail ?? '', /ECONNREFUSED/);
      assert.ok(view.retryAt! > Date.now() - 1000 && view.retryAt! < Date.now() + 31_000, String(view.retryAt));
      // The same view the webview renders: within the contract.
      assert.ok(ToWebviewSchema.safeParse({ type: 'connection', connection: view }).success);
    } finally {
      await config.update('serverUrl', backend.wsUrl('/ws/agent/chat'), vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('agentBridge.connect');
      await until(() => api.state() === 'connected', 'connected again');
    }
  });

  it('a clicked path:line opens that file of the workspace at the line; paths leaving the workspace open nothing', async () => {
    const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const activePath = () => vscode.window.activeTextEditor?.document.uri.fsPath;
    api.chat.receive({ type: 'openFile', path: 'src/app/Main.java', line: 12 });
    await until(() => activePath()?.endsWith(`src${path.sep}app${path.sep}Main.java`), 'Main.java in front');
    assert.equal(vscode.window.activeTextEditor!.selection.active.line, 11);
    // A bare name the agent used: the one file with that name.
    api.chat.receive({ type: 'openFile', path: 'Greeter.java', line: 5 });
    await until(() => activePath()?.endsWith('Greeter.java'), 'Greeter.java in front');
    assert.equal(vscode.window.activeTextEditor!.selection.active.line, 4);
    // Out of the workspace, by "..", by an absolute path, or through a link inside it.
    fs.symlinkSync('/etc/hostname', path.join(root, 'hostname-link.txt'));
    try {
      for (const bad of ['../outside.txt', '/etc/hostname', 'hostname-link.txt', 'src/*/Main.java']) {
        api.chat.receive({ type: 'openFile', path: bad, line: 1 });
      }
      await new Promise((r) => setTimeout(r, 800));
      assert.ok(activePath()?.endsWith('Greeter.java'), `still Greeter.java, not ${activePath()}`);
      assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.fsPath === '/etc/hostname'));
    } finally {
      fs.rmSync(path.join(root, 'hostname-link.txt'), { force: true });
    }
  });

  it('agentBridge.newSession renews the session id, clears the transcript and reconnects with the new id', async () => {
    const old = api.sessionId();
    await vscode.commands.executeCommand('agentBridge.newSession', { confirmed: true });
    const id = api.sessionId();
    assert.notEqual(id, old);
    assert.equal(api.chat.entries().length, 0);
    await backend.waitForSession((s) => s.sessionId === id, 15_000);
    await until(() => api.state() === 'connected', 'the reconnect');
  });

  it('Conversation History reopens the conversation a New Session left, under its own session id, and keeps the one left', async () => {
    // The conversation before the last New Session asked '/read notes.txt'.
    const current = api.sessionId();
    api.chat.receive({ type: 'send', text: '/help' });
    await until(() => api.chat.entries().some((e) => e.kind === 'answer' && e.done), 'an answer in the new conversation');
    const picking = vscode.commands.executeCommand('agentBridge.showHistory');
    await new Promise((r) => setTimeout(r, 800));
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await picking;
    const reopened = api.sessionId();
    assert.notEqual(reopened, current);
    assert.ok(api.chat.entries().some((e) => e.kind === 'user' && e.text === '/read notes.txt'), 'the earlier transcript is back');
    await backend.waitForSession((s) => s.sessionId === reopened, 15_000);
    await until(() => api.state() === 'connected', 'the reconnect');
    // And the one just left is in History now: reopening it brings '/help' back.
    const again = vscode.commands.executeCommand('agentBridge.showHistory');
    await new Promise((r) => setTimeout(r, 800));
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await again;
    assert.equal(api.sessionId(), current);
    assert.ok(api.chat.entries().some((e) => e.kind === 'user' && e.text === '/help'));
  });
});
