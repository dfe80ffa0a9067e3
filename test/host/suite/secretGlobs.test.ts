import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { connectedBackend, rootCall } from './backend';

/**
 * A secret glob in agentBridge.excludeGlobs that the glob engine cannot read fails closed: every
 * file counts as secret (VS Code shows a warning saying which glob) until the setting is fixed.
 */
describe('A secret glob the engine cannot read', () => {
  const live = connectedBackend();
  const config = () => vscode.workspace.getConfiguration('agentBridge');
  const readNotes = async () => (await live.backend.call(rootCall('read_file', { relativePath: 'notes.txt' }))).data as Record<string, unknown>;

  after(async () => {
    await config().update('excludeGlobs', undefined, vscode.ConfigurationTarget.Global);
  });

  it('makes every file secret until the setting is fixed', async function () {
    this.timeout(60_000);
    assert.equal((await readNotes()).success, true);
    await config().update('excludeGlobs', ['**/*.pem', '**/[abc'], vscode.ConfigurationTarget.Global);
    const refused = await readNotes();
    assert.equal(refused.success, false);
    assert.equal(refused.code, 'PERMISSION_DENIED', String(refused.error));
    await config().update('excludeGlobs', ['**/*.pem', '**/[abc]'], vscode.ConfigurationTarget.Global);
    assert.equal((await readNotes()).success, true);
  });
});
