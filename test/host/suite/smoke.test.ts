// First tests inside the real extension host: the right VS Code, a folder open, and the
// extension present, activating and registering its commands.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'agent-bridge.agent-bridge';

describe('smoke', () => {
  it('runs in VS Code 1.100', () => {
    assert.ok(vscode.version.startsWith('1.100'), `vscode.version is ${vscode.version}`);
  });

  it('has a workspace folder open', () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.ok(folders.length > 0, 'no workspace folder is open');
  });

  it(`finds and activates ${EXTENSION_ID}`, async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  it('registers its commands', async () => {
    const commands = new Set(await vscode.commands.getCommands(true));
    for (const id of ['agentBridge.connect', 'agentBridge.disconnect', 'agentBridge.showLog']) {
      assert.ok(commands.has(id), `command ${id} is not registered`);
    }
  });
});
