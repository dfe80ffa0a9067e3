import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startDevBackend, type DevBackend } from '../../../src/devBackend/server';
import type { AgentBridgeApi } from '../../../src/extension/extension';
import { connectExtension } from './backend';
import { waitUntil } from '../../support/waitUntil';

/**
 * wss:// in the real extension host: the backend's certificate is signed by a throwaway CA that
 * only the "system store" knows (runHostTests.ts gives code-server SSL_CERT_FILE = the machine's
 * bundle plus that CA). The extension connects and answers through it; with
 * agentBridge.systemCertificates off, the same backend is refused and the reason says why.
 */
describe('wss:// with a CA from the system store', () => {
  const tlsDir = process.env.AGENT_BRIDGE_TEST_TLS;
  let backend: DevBackend;
  let api: AgentBridgeApi;
  const config = () => vscode.workspace.getConfiguration('agentBridge');

  before(async function () {
    // Only runHostTests.ts makes the CA and the store; another runner has neither.
    if (!tlsDir) return this.skip();
    const read = (name: string) => fs.readFileSync(path.join(tlsDir, name), 'utf8');
    backend = await startDevBackend({ port: 0, tls: { cert: read('server.pem'), key: read('server.key') } });
  });

  after(async () => {
    if (!backend) return;
    await config().update('systemCertificates', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('agentBridge.disconnect');
    await backend.close();
  });

  it('connects over wss:// and answers a TOOL_CALL', async () => {
    assert.match(backend.wsUrl(), /^wss:/);
    api = await connectExtension(backend.wsUrl('/ws/agent/chat'));
    const session = await backend.waitForSession(() => true, 20_000);
    const r = (await backend.callTool('read_file', { relativePath: 'notes.txt' }, { session })).data as { success: boolean; error?: string };
    assert.equal(r.success, true, r.error);
  });

  it('with agentBridge.systemCertificates off, the backend is refused and the error says why', async () => {
    await config().update('systemCertificates', false, vscode.ConfigurationTarget.Global);
    const error = await waitUntil(() => api.state() !== 'connected' && /not trusted/.test(api.lastError() ?? '') && api.lastError(), 'the TLS error', 20_000);
    assert.match(error, /UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    assert.match(error, /Add the authority that signed it to the system's certificate store/);
    await config().update('systemCertificates', undefined, vscode.ConfigurationTarget.Global);
    await waitUntil(() => api.state() === 'connected', 'connected again with the system store', 20_000);
  });
});
