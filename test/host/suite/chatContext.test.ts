import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startDevBackend, type DevBackend } from '../../../src/devBackend/server';
import { createScriptedAgent, SCRIPTED_COMMANDS } from '../../../src/devBackend/scriptedAgent';
import { ToWebviewSchema, type ContextChip, type ToWebview } from '../../../src/extension/chat/contract';
import type { AgentBridgeApi } from '../../../src/extension/extension';
import { waitUntil } from '../../support/waitUntil';

/**
 * Giving the agent context from the real workbench: Add Selection / Add File to Chat, `@`
 * completion, the active file offered, the backend's `/` commands, and what reaches the backend.
 * Attacks: a secret file and a link to one never become an attachment, nor reach the wire.
 */
const until = <T>(probe: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> => waitUntil(probe, what, timeoutMs);

describe('chat context', () => {
  let backend: DevBackend;
  let api: AgentBridgeApi;
  const posted: ToWebview[] = [];
  const frames: string[] = [];
  let subscription: vscode.Disposable;
  let stopFrames: () => void;
  const root = () => (vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '');
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root(), rel)), { recursive: true });
    fs.writeFileSync(path.join(root(), rel), text);
  };
  const chips = (): ContextChip[] => [...posted].reverse().find((m): m is Extract<ToWebview, { type: 'context' }> => m.type === 'context')?.context ?? [];
  const SECRET = 'CANARY-CHAT-CTX-51e2';

  before(async () => {
    backend = await startDevBackend({ port: 0, chat: createScriptedAgent({ stepDelayMs: 0 }), commands: SCRIPTED_COMMANDS });
    stopFrames = backend.onMessage((e) => frames.push(e.text));
    const ext = vscode.extensions.getExtension<AgentBridgeApi>('agent-bridge.agent-bridge');
    assert.ok(ext);
    api = await ext.activate();
    subscription = api.chat.onDidPostMessage((m) => posted.push(m));
    write('ctx/.env', `TOKEN=${SECRET}\n`);
    write('ctx/Shop.java', 'package ctx;\n\npublic class Shop {\n  int total;\n  void pay() {}\n}\n');
    fs.rmSync(path.join(root(), 'ctx/link.txt'), { force: true });
    fs.symlinkSync(path.join(root(), 'ctx/.env'), path.join(root(), 'ctx/link.txt'));
    await vscode.workspace.getConfiguration('agentBridge').update('serverUrl', backend.wsUrl('/ws/agent/chat'), vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('agentBridge.connect');
    await until(() => api.state() === 'connected', 'the extension to connect');
  });

  after(async () => {
    subscription.dispose();
    stopFrames();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('agentBridge.disconnect');
    await backend.close();
    fs.rmSync(path.join(root(), 'ctx'), { recursive: true, force: true });
  });

  it("the backend's COMMANDS reach the chat for its / menu", async () => {
    const m = await until(() => [...posted].reverse().find((x): x is Extract<ToWebview, { type: 'commands' }> => x.type === 'commands'), 'commands');
    assert.deepEqual(m.commands.map((c) => c.name), SCRIPTED_COMMANDS.map((c) => c.name));
  });

  it('Add Selection to Chat attaches the selected lines; the active file is offered; the message carries both forms to the backend', async () => {
    const doc = await vscode.workspace.openTextDocument(path.join(root(), 'ctx/Shop.java'));
    const editor = await vscode.window.showTextDocument(doc);
    await until(() => posted.some((m) => m.type === 'activeFile' && m.path === 'ctx/Shop.java'), 'the active file offered');
    editor.selection = new vscode.Selection(2, 0, 4, 3);
    await vscode.commands.executeCommand('agentBridge.addSelectionToChat');
    const [chip] = await until(() => (chips().length === 1 ? chips() : undefined), 'a chip');
    assert.deepEqual([chip.kind, chip.path, chip.label, chip.startLine, chip.endLine], ['selection', 'ctx/Shop.java', 'Shop.java:3-5', 3, 5]);
    const from = frames.length;
    api.chat.receive({ type: 'send', text: 'what does this do?' });
    const sent = await until(() => frames.slice(from).map((f) => JSON.parse(f) as { type: string; data: { message: string; context?: unknown } }).find((f) => f.type === 'AGENT_CHAT'), 'AGENT_CHAT');
    assert.deepEqual(sent.data.context, [{ path: 'ctx/Shop.java', startLine: 3, endLine: 5, text: 'public class Shop {\n  int total;\n  void pay() {}' }]);
    assert.match(sent.data.message, /^what does this do\?\n\nAttached by the developer:\n\nctx\/Shop\.java:3-5\n```java\npublic class Shop \{/);
    await until(() => chips().length === 0 && posted.some((m) => m.type === 'busy' && !m.busy), 'chips cleared and the turn over');
    const user = api.chat.entries().filter((e) => e.kind === 'user').at(-1);
    assert.deepEqual(user?.kind === 'user' ? user.context : undefined, [{ path: 'ctx/Shop.java', label: 'Shop.java:3-5', startLine: 3, endLine: 5 }]);
  });

  it('@ completion finds the file by a fuzzy query; picking it attaches the whole file; Remove takes it off', async () => {
    const from = posted.length;
    api.chat.receive({ type: 'suggest', requestId: 41, query: 'shopjav' });
    const s = await until(() => posted.slice(from).find((m): m is Extract<ToWebview, { type: 'suggestions' }> => m.type === 'suggestions' && m.requestId === 41), 'suggestions');
    assert.ok(ToWebviewSchema.safeParse(s).success);
    assert.deepEqual(s.items[0], { kind: 'file', label: 'Shop.java', detail: 'ctx', path: 'ctx/Shop.java' });
    api.chat.receive({ type: 'attach', kind: 'file', path: s.items[0].path });
    const [chip] = await until(() => (chips().length === 1 ? chips() : undefined), 'a file chip');
    assert.deepEqual([chip.kind, chip.label, chip.startLine], ['file', 'Shop.java', undefined]);
    api.chat.receive({ type: 'detach', id: chip.id });
    await until(() => chips().length === 0, 'the chip removed');
  });

  it('a secret file, a link to one, and a path outside never become attachments; @ never lists them; nothing of them reaches the backend', async () => {
    const before = posted.length;
    for (const p of ['ctx/.env', 'ctx/link.txt', '../outside.txt', '/etc/passwd']) api.chat.receive({ type: 'attach', kind: 'file', path: p });
    await vscode.commands.executeCommand('agentBridge.addFileToChat', vscode.Uri.file(path.join(root(), 'ctx/.env')));
    const doc = await vscode.workspace.openTextDocument(path.join(root(), 'ctx/.env'));
    await vscode.window.showTextDocument(doc);
    await until(() => posted.slice(before).some((m) => m.type === 'activeFile' && m.path === undefined), 'the secret file not offered');
    await vscode.commands.executeCommand('agentBridge.addSelectionToChat');
    api.chat.receive({ type: 'suggest', requestId: 42, query: 'env' });
    const s = await until(() => posted.find((m): m is Extract<ToWebview, { type: 'suggestions' }> => m.type === 'suggestions' && m.requestId === 42), 'suggestions');
    assert.ok(!s.items.some((i) => i.path.endsWith('.env')), JSON.stringify(s.items));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(chips().length, 0, JSON.stringify(chips()));
    assert.ok(!posted.slice(before).some((m) => m.type === 'context' && m.context.length > 0), 'a chip appeared');
    const from = frames.length;
    api.chat.receive({ type: 'send', text: 'anything attached?' });
    await until(() => posted.some((m, i) => i > before && m.type === 'busy' && !m.busy), 'the turn over');
    assert.ok(!frames.slice(from).some((f) => f.includes(SECRET)), 'the secret left');
    assert.ok(!JSON.stringify(posted).includes(SECRET), 'the secret reached the webview');
  });

  const pending = () => api.pendingChanges.list();
  const text = (rel: string) => fs.readFileSync(path.join(root(), rel), 'utf8');

  it("Insert at Cursor types a code block into the developer's editor at the cursor: undoable, not saved", async () => {
    write('ctx/Ins.java', 'class Ins {\n}\n');
    const doc = await vscode.workspace.openTextDocument(path.join(root(), 'ctx/Ins.java'));
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(1, 0, 1, 0);
    api.chat.receive({ type: 'insertCode', text: '  int inserted;\n' });
    await until(() => doc.getText() === 'class Ins {\n  int inserted;\n}\n', 'the code in the buffer');
    assert.equal(doc.isDirty, true);
    assert.equal(text('ctx/Ins.java'), 'class Ins {\n}\n', 'nothing saved behind the developer');
    await vscode.commands.executeCommand('undo');
    await until(() => doc.getText() === 'class Ins {\n}\n', 'undone');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  it('Apply proposes the code block over the selection as a diff: nothing lands until approved; Reject leaves the file as it was', async () => {
    write('ctx/App.java', 'class App {\n  int a = 1;\n  int b = 2;\n}\n');
    const doc = await vscode.workspace.openTextDocument(path.join(root(), 'ctx/App.java'));
    let editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(1, 0, 3, 0);
    api.chat.receive({ type: 'applyCode', text: '  int sum = 3;\n' });
    const change = await until(() => pending().find((c) => c.relativePath === 'ctx/App.java'), 'a pending change');
    assert.deepEqual([change.added, change.removed], [1, 2]);
    assert.equal(text('ctx/App.java'), 'class App {\n  int a = 1;\n  int b = 2;\n}\n', 'written before approval');
    // Approve acts on the diff in front of the developer (approval.test.ts): bring it forward first.
    await api.pendingChanges.showDiff(change.id);
    await vscode.commands.executeCommand('agentBridge.approveChange', change.id);
    await until(() => text('ctx/App.java') === 'class App {\n  int sum = 3;\n}\n', 'the approved change on disk');
    // No selection: the whole file; rejected, nothing changes.
    editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    api.chat.receive({ type: 'applyCode', text: 'class Other {}' });
    const whole = await until(() => pending().find((c) => c.relativePath === 'ctx/App.java'), 'the whole-file change');
    await vscode.commands.executeCommand('agentBridge.rejectChange', whole.id, 'no');
    await until(() => !pending().some((c) => c.id === whole.id), 'the change rejected');
    assert.equal(text('ctx/App.java'), 'class App {\n  int sum = 3;\n}\n');
  });

  it('Apply never reads or writes a secret file; a protected file (or a hard link to one) is shown for approval even with approval off; Insert refuses both', async () => {
    const envDoc = await vscode.workspace.openTextDocument(path.join(root(), 'ctx/.env'));
    await vscode.window.showTextDocument(envDoc);
    api.chat.receive({ type: 'applyCode', text: 'TOKEN=stolen' });
    await new Promise((r) => setTimeout(r, 800));
    assert.ok(!pending().some((c) => c.relativePath === 'ctx/.env'));
    assert.equal(text('ctx/.env'), `TOKEN=${SECRET}\n`);
    const config = vscode.workspace.getConfiguration('agentBridge');
    await config.update('approvalMode', 'autoApprove', vscode.ConfigurationTarget.Global);
    try {
      write('.vscode/tasks.json', '{}\n');
      const doc = await vscode.workspace.openTextDocument(path.join(root(), '.vscode/tasks.json'));
      await vscode.window.showTextDocument(doc);
      api.chat.receive({ type: 'applyCode', text: '{ "version": "2.0.0" }' });
      const change = await until(() => pending().find((c) => c.relativePath === '.vscode/tasks.json'), 'the protected change asked about');
      assert.equal(text('.vscode/tasks.json'), '{}\n');
      await vscode.commands.executeCommand('agentBridge.rejectChange', change.id, 'no');
      await until(() => !pending().some((c) => c.id === change.id), 'rejected');
      assert.equal(text('.vscode/tasks.json'), '{}\n');
      // The same file under another name (a hard link a hostile repository can ship) is protected too.
      fs.linkSync(path.join(root(), '.vscode/tasks.json'), path.join(root(), 'ctx/config.json'));
      const linked = await vscode.workspace.openTextDocument(path.join(root(), 'ctx/config.json'));
      await vscode.window.showTextDocument(linked);
      api.chat.receive({ type: 'applyCode', text: '{ "tasks": [] }' });
      const viaLink = await until(() => pending().find((c) => c.relativePath === 'ctx/config.json'), 'the hard-linked change asked about');
      assert.equal(viaLink.guarded?.kind, 'protected');
      await vscode.commands.executeCommand('agentBridge.rejectChange', viaLink.id, 'no');
      await until(() => !pending().some((c) => c.id === viaLink.id), 'rejected');
      assert.equal(text('.vscode/tasks.json'), '{}\n');
      // Insert at Cursor (no approval step: the developer's own edit) is refused in protected and secret files.
      const before = linked.getText();
      api.chat.receive({ type: 'insertCode', text: 'INSERTED' });
      await new Promise((r) => setTimeout(r, 800));
      assert.equal(linked.getText(), before);
      await vscode.window.showTextDocument(envDoc);
      api.chat.receive({ type: 'insertCode', text: 'INSERTED' });
      await new Promise((r) => setTimeout(r, 800));
      assert.equal(envDoc.getText(), `TOKEN=${SECRET}\n`);
    } finally {
      await config.update('approvalMode', undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(path.join(root(), '.vscode/tasks.json'), { force: true });
      fs.rmSync(path.join(root(), 'ctx/config.json'), { force: true });
    }
  });

  it('Edit and Retry use the full text of a long message, though the stored transcript keeps it cut', async () => {
    const long = `/echo ${'word '.repeat(6000)}end`;
    const from = posted.length;
    api.chat.receive({ type: 'send', text: long });
    await until(() => posted.slice(from).some((m) => m.type === 'busy' && !m.busy), 'the turn over');
    const entry = api.chat.entries().filter((e) => e.kind === 'user').at(-1);
    assert.ok(entry?.kind === 'user' && entry.text.length < long.length, 'the transcript keeps long messages cut');
    const at = posted.length;
    api.chat.receive({ type: 'edit', entryId: entry.id });
    const draft = await until(() => posted.slice(at).find((m): m is Extract<ToWebview, { type: 'draft' }> => m.type === 'draft'), 'the draft');
    assert.deepEqual([draft.text, draft.replace], [long, true]);
    const frames0 = frames.length;
    api.chat.receive({ type: 'resend', entryId: entry.id });
    const again = await until(() => frames.slice(frames0).map((f) => JSON.parse(f) as { type: string; data: { message: string } }).find((f) => f.type === 'AGENT_CHAT'), 'the resent message');
    assert.equal(again.data.message, long);
    await until(() => posted.slice(at).some((m) => m.type === 'busy' && !m.busy), 'the turn over');
  });
});
