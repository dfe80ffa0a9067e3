/**
 * The hostile-agent suite: `agentBridge.protectedGlobs` (the headless host's --protected-glob).
 * The user can add files that run code to the protected ones; nothing can take the built-in ones
 * away, and only the user (never a workspace) can set it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { hostileLink } from '../support/hostile';

describe('agentBridge.protectedGlobs: the user may add protection, never remove it', () => {
  test('the manifest lets only the user (or the remote machine) set it, and untrusted workspaces may not', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
    const setting = manifest.contributes.configuration.properties['agentBridge.protectedGlobs'];
    assert.ok(setting, 'agentBridge.protectedGlobs is declared');
    assert.ok(['application', 'machine'].includes(setting.scope), `scope ${setting.scope}`);
    assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes('agentBridge.protectedGlobs'));
  });

  test('a glob the user adds is protected; a negation or an empty list leaves the defaults protected', async () => {
    for (const protectedGlobs of [['**/deploy/**'], ['!**/.vscode/**', '**/deploy/**']]) {
      const link = await hostileLink({ protectedGlobs });
      try {
        for (const rel of ['deploy/run.sh', 'services/deploy/run.sh', '.vscode/tasks.json', '.circleci/config.yml']) {
          const r = await link.call('Replace', { file_path: rel, content: 'echo pwned\n' });
          assert.equal(r.code, 'PERMISSION_DENIED', `${JSON.stringify(protectedGlobs)} ${rel}: ${String(r.error)}`);
        }
        const ok = await link.call('Replace', { file_path: 'src/Ok.java', content: 'class Ok {}\n' });
        assert.equal(ok.success, true, String(ok.error));
      } finally {
        await link.close();
      }
    }
  });
});
