import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { readFormatMode } from '../../../src/extension/adapter/settings';

/**
 * agentBridge.format: a repository's settings may narrow formatting but not widen it to the whole
 * document, which would land unseen beside an edit written unasked.
 */
describe('The format setting from a repository', () => {
  const config = () => vscode.workspace.getConfiguration('agentBridge');
  const file = () => vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, 'notes.txt');

  after(async () => {
    await config().update('format', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('format', undefined, vscode.ConfigurationTarget.Global);
  });

  it('cannot turn on whole-document formatting, but can narrow or turn it off', async () => {
    await config().update('format', 'document', vscode.ConfigurationTarget.Workspace);
    assert.equal(readFormatMode(file()), 'changedRange');
    await config().update('format', 'document', vscode.ConfigurationTarget.Global);
    assert.equal(readFormatMode(file()), 'document', "the user's own choice");
    await config().update('format', 'changedRange', vscode.ConfigurationTarget.Workspace);
    assert.equal(readFormatMode(file()), 'changedRange');
    await config().update('format', 'off', vscode.ConfigurationTarget.Workspace);
    assert.equal(readFormatMode(file()), 'off');
  });
});
