/**
 * The hostile-agent suite: the default list of credential files. Each is planted with a canary,
 * at the root and deep down, and read, searched and edited through a real dev backend and the
 * headless host: no frame may hold a canary, no file may change.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { DEFAULT_EXCLUDE_GLOBS } from '../../src/core/policy/secrets';
import { hostileLink } from '../support/hostile';

const plant = (root: string, rel: string, text: string): void => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
};

/** Credential files (the names secret scanners such as gitleaks, trufflehog and gitrob look for). */
const CREDENTIAL_FILES: readonly string[] = [
  'credentials.json',
  '.pgpass',
  'terraform.tfstate',
  'terraform.tfstate.backup',
  'prod.tfvars',
  'infra/prod.auto.tfvars',
  'deploy.ppk',
  '.vault-token',
  '.config/gh/hosts.yml',
  '.yarnrc.yml',
  '.hg/hgrc',
  '.htpasswd',
  'signing-key.asc',
  'backup.gpg',
  '.dockercfg',
  '.docker/config.json',
  'auth.json',
  '.s3cfg',
  '.boto',
  '.m2/settings.xml',
  '.netrc',
  '_netrc',
  '.git-credentials',
  '.kube/config',
  'kubeconfig',
  '.gem/credentials',
  '.cargo/credentials.toml',
  '.terraformrc',
  '.pypirc',
  'application_default_credentials.json',
  'client.ovpn',
  'vault.kdbx',
  'service.keytab',
  '.bash_history',
  '.psql_history',
  'AuthKey_ABC123.p8',
  'sftp-config.json',
  'rclone.conf',
  'keys/deploy_rsa',
  'ssh_host_ed25519_key',
  'github_deploy_key',
  'infra/terraform.tfstate.1700000000.backup',
  '.config/git/credentials',
  '.vscode/sftp.json',
  '#.env#',
  '.mylogin.cnf',
  'NuGet.Config',
  '.bundle/config',
  '.databrickscfg',
  '.chef/knife.rb',
  '.zhistory',
  'signing.jwk',
];

describe('the default list of credential files (headless host)', () => {
  test('each is refused to read_file, left out of both searches, and quoted in no frame', async () => {
    const link = await hostileLink({ excludeGlobs: [] });
    try {
      const root = link.tree.root;
      const canary = (i: number) => `CRED-CANARY-${i}-9e1d`;
      const files = CREDENTIAL_FILES.flatMap((f) => [f, `deploy/env/${f}`]);
      files.forEach((rel, i) => plant(root, rel, `token = ${canary(i)}\n`));
      const readable: string[] = [];
      for (const rel of files) {
        const r = await link.call('read_file', { relativePath: rel });
        if (r.code !== 'PERMISSION_DENIED') readable.push(rel);
      }
      assert.deepEqual(readable, [], 'credential files the agent could read');
      for (const tool of ['grep_file', 'text_search']) {
        const r = await link.call(tool, { pattern: 'CRED-CANARY', limit: 1000 });
        assert.equal(r.success, true, String(r.error));
      }
      const leaked = link.frames.filter((f) => /CRED-CANARY-\d+-9e1d/.test(f));
      assert.deepEqual(leaked.map((f) => f.slice(0, 300)), [], 'a frame quoted a credential file');
    } finally {
      await link.close();
    }
  });

  test('a file both secret and protected (.yarnrc.yml, .hg/hgrc): unreadable, and a change is refused unread', async () => {
    const link = await hostileLink();
    try {
      const root = link.tree.root;
      plant(root, '.yarnrc.yml', 'npmAuthToken: CANARY-YARN-31f0\n');
      plant(root, '.hg/hgrc', '[auth]\nx.password = CANARY-HG-77a2\n');
      for (const [rel, search] of [['.yarnrc.yml', 'npmAuthToken'], ['.hg/hgrc', '[auth]']]) {
        const read = await link.call('read_file', { relativePath: rel });
        assert.equal(read.code, 'PERMISSION_DENIED', String(read.error));
        const edit = await link.call('apply_change', { relativePath: rel, searchContent: search, replaceContent: 'yarnPath: ./pwn.cjs' });
        assert.equal(edit.code, 'PERMISSION_DENIED', String(edit.error));
      }
      assert.equal(fs.readFileSync(path.join(root, '.yarnrc.yml'), 'utf8'), 'npmAuthToken: CANARY-YARN-31f0\n');
      assert.ok(!link.frames.some((f) => f.includes('CANARY-YARN') || f.includes('CANARY-HG')));
    } finally {
      await link.close();
    }
  });

  test('the manifest\'s default for agentBridge.excludeGlobs is the same list (VS Code reads the manifest\'s)', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
    assert.deepEqual(manifest.contributes.configuration.properties['agentBridge.excludeGlobs'].default, [...DEFAULT_EXCLUDE_GLOBS]);
  });
});
