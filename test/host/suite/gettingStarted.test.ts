/**
 * The first ten minutes in the real extension host: the Get Started walkthrough is contributed,
 * every command its steps and their Markdown name exists (English and Simplified Chinese), each
 * step's media has its zh-cn variant, and Test Connection says in words what it found against a
 * real dev backend, a wrong token, a wrong path and a closed port.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startDevBackend, V2_PATH, type DevBackend } from '../../../src/devBackend/server';
import type { TestConnectionResult } from '../../../src/extension/connection/testConnection';
import { waitUntil } from '../../support/waitUntil';

const EXTENSION_ID = 'agent-bridge.agent-bridge';

interface Step {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly media: { readonly markdown?: string };
  readonly completionEvents?: readonly string[];
}

interface Walkthrough {
  readonly id: string;
  readonly steps: readonly Step[];
}

function extension(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not installed`);
  return ext;
}

/** The command ids of `command:` links in Markdown (with or without arguments after `?`). */
function commandLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\(command:([\w.-]+)/g)].map((m) => m[1]);
}

const readNls = (root: string, file: string): Record<string, string> => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8')) as Record<string, string>;

describe('getting started', () => {
  let walkthrough: Walkthrough;
  let root: string;
  let registered: Set<string>;

  before(async () => {
    const ext = extension();
    await ext.activate();
    root = ext.extensionPath;
    const contributed = (ext.packageJSON as { contributes: { walkthroughs?: Walkthrough[] } }).contributes.walkthroughs ?? [];
    const found = contributed.find((w) => w.id === 'getStarted');
    assert.ok(found, 'no getStarted walkthrough is contributed');
    walkthrough = found;
    registered = new Set(await vscode.commands.getCommands(true));
  });

  it('contributes the Get Started walkthrough: connect, token, dev backend, chat, approve', () => {
    assert.deepEqual(walkthrough.steps.map((s) => s.id), ['connect', 'token', 'devBackend', 'openChat', 'approve']);
  });

  it('every step has Markdown media, in English and in Simplified Chinese (step.nls.zh-cn.md)', () => {
    for (const step of walkthrough.steps) {
      const md = step.media.markdown;
      assert.ok(md, `${step.id} has no markdown media`);
      const zh = md.replace(/\.md$/, '.nls.zh-cn.md');
      for (const file of [md, zh]) assert.ok(fs.statSync(path.join(root, file)).size > 100, `${file} is missing or empty`);
      // Same commands in both languages: a translation must not lose a button.
      assert.deepEqual(commandLinks(fs.readFileSync(path.join(root, zh), 'utf8')), commandLinks(fs.readFileSync(path.join(root, md), 'utf8')), `${step.id}: links differ between en and zh-cn`);
    }
  });

  it('every command: link in the steps and their Markdown names a registered command', () => {
    const texts: string[] = [];
    for (const nls of ['package.nls.json', 'package.nls.zh-cn.json']) {
      const strings = readNls(root, nls);
      for (const step of walkthrough.steps) texts.push(strings[step.description.replace(/^%|%$/g, '')] ?? '');
    }
    for (const step of walkthrough.steps) {
      const md = step.media.markdown ?? '';
      texts.push(fs.readFileSync(path.join(root, md), 'utf8'), fs.readFileSync(path.join(root, md.replace(/\.md$/, '.nls.zh-cn.md')), 'utf8'));
    }
    const linked = new Set(texts.flatMap(commandLinks));
    assert.ok(linked.has('agentBridge.testConnection') && linked.has('agentBridge.setToken') && linked.has('agentBridge.openChat'), [...linked].join(', '));
    for (const id of linked) assert.ok(registered.has(id), `command:${id} is linked from the walkthrough but not registered`);
  });

  it('every completion event names a registered command, a contributed view or an agentBridge setting', () => {
    const ext = extension();
    const contributes = (ext.packageJSON as { contributes: { views: Record<string, { id: string }[]>; configuration: { properties: Record<string, unknown> } } }).contributes;
    const views = new Set(Object.values(contributes.views).flat().map((v) => v.id));
    for (const step of walkthrough.steps) {
      assert.ok(step.completionEvents?.length, `${step.id} has no completion event`);
      for (const event of step.completionEvents ?? []) {
        const [kind, arg] = [event.slice(0, event.indexOf(':')), event.slice(event.indexOf(':') + 1)];
        if (kind === 'onCommand') assert.ok(registered.has(arg), `${event}: no such command`);
        else if (kind === 'onView') assert.ok(views.has(arg), `${event}: no such view`);
        else if (kind === 'onSettingChanged') assert.ok(arg in contributes.configuration.properties, `${event}: no such setting`);
        else assert.equal(kind, 'onContext', `${step.id}: unexpected completion event ${event}`);
      }
    }
  });

  it('opens in the workbench', async () => {
    // closed first: code-server opens a walkthrough of its own at start
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#getStarted`, false);
    // the workbench's walkthrough editor, whose tab reads `Walkthrough: <page title>`
    const label = () => vscode.window.tabGroups.activeTabGroup.activeTab?.label ?? '(no tab)';
    await waitUntil(() => label().startsWith('Walkthrough: '), () => `a walkthrough tab to open (the active tab is "${label()}")`, 5000);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  describe('Test Connection', () => {
    const TOKEN = 'walkthrough-token-5521';
    let backend: DevBackend;
    let tokenBackend: DevBackend;
    const config = () => vscode.workspace.getConfiguration('agentBridge');
    const test = () => vscode.commands.executeCommand<TestConnectionResult>('agentBridge.testConnection');

    before(async () => {
      backend = await startDevBackend({ port: 0 });
      tokenBackend = await startDevBackend({ port: 0, token: TOKEN });
    });
    after(async () => {
      await vscode.commands.executeCommand('agentBridge.setToken', '');
      await config().update('serverUrl', undefined, vscode.ConfigurationTarget.Global);
      await backend.close();
      await tokenBackend.close();
    });

    it('a running backend: OK, with the protocol version, and the live link is left alone', async () => {
      await config().update('serverUrl', backend.wsUrl(V2_PATH), vscode.ConfigurationTarget.Global);
      const r = await test();
      assert.equal(r.ok, true, r.message);
      assert.match(r.message, /accepted the connection \(protocol v2, no token sent\)/);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(backend.sessions(), [], 'the probe closed its connection');
    });

    it('a backend that wants a token: a wrong one refused, the one in secret storage accepted', async () => {
      await config().update('serverUrl', tokenBackend.wsUrl(V2_PATH), vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('agentBridge.setToken', 'not-the-token');
      const wrong = await test();
      assert.equal(wrong.kind, 'unauthorized', wrong.message);
      assert.match(wrong.message, /refused your token/);
      assert.ok(!wrong.message.includes('not-the-token'), 'the token is never shown');
      await vscode.commands.executeCommand('agentBridge.setToken', TOKEN);
      const right = await test();
      assert.equal(right.ok, true, right.message);
      assert.match(right.message, /accepted the connection and your token/);
    });

    it('a wrong path says so (HTTP 404), and names the paths that exist', async () => {
      await config().update('serverUrl', backend.wsUrl('/ws/agents'), vscode.ConfigurationTarget.Global);
      const r = await test();
      assert.equal(r.kind, 'notFound', r.message);
      assert.match(r.message, /no WebSocket endpoint at that path \(HTTP 404\).*\/ws\/agent\/chat/);
    });

    it('a closed port: nothing is listening, start the backend', async () => {
      const server = net.createServer();
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const port = (server.address() as net.AddressInfo).port;
      await new Promise<void>((r) => server.close(() => r()));
      await config().update('serverUrl', `ws://127.0.0.1:${port}/ws/agent/chat`, vscode.ConfigurationTarget.Global);
      const r = await test();
      assert.equal(r.kind, 'refused', r.message);
      assert.match(r.message, new RegExp(`Nothing is listening at ws://127\\.0\\.0\\.1:${port}/ws/agent/chat \\(connection refused\\)`));
    });
  });
});
