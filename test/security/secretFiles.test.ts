/**
 * The secrets guard over a real folder: secret files are refused to read tools, skipped by both
 * search engines, and never written without a person (the headless host refuses).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import type { ToolCall } from '../../src/core/protocol/messages';
import { DEFAULT_EXCLUDE_GLOBS, EXCLUDE_GLOBS_SETTING, withSecretExcludes } from '../../src/core/policy/secrets';
import { GlobSet, needleOf, SecretGuard } from '../../src/core/workspace/globSet';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { startDevBackend } from '../../src/devBackend/server';
import { startHeadlessHost } from '../../src/node/headless';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

const SECRET = 'PASSWORD=hunter2-SECRET';
const tree = makeTree(
  {
    '.env': `${SECRET}\n`,
    'config/.env.local': `${SECRET}\n`,
    'keys/server.PEM': `${SECRET}\n`,
    'home/.ssh/id_rsa': `${SECRET}\n`,
    '.git/config': `${SECRET}\n`,
    'src/app.ts': `// reads PASSWORD from the env\nexport const x = 1;\n`,
    '.env.example.md': 'docs\n',
  },
  'ab-secrets-',
);
fs.symlinkSync(path.join(tree, '.env'), path.join(tree, 'src', 'innocent.txt'));

const guard = new SecretGuard(DEFAULT_EXCLUDE_GLOBS);
let n = 0;
const call = (toolName: string, params: Record<string, unknown>): ToolCall => ({ id: `c${++n}`, idKey: 'toolCallId', toolName, params });

function dispatcherOver(ripgrep: string | false | undefined): Dispatcher {
  const workspace = new NodeWorkspace(tree, { secrets: guard, ripgrep });
  return new Dispatcher({ workspace, tools: ALL_TOOLS, log: silentLogger });
}

test('the default globs match secret paths and not ordinary ones', () => {
  for (const p of ['.env', 'a/b/.env.production', 'x/KEY.pem', 'server.key', 'home/.ssh/config', '.ssh', 'id_ed25519.pub', '.git/HEAD', '.git', 'sub/.git/objects/ab', '.npmrc']) {
    assert.ok(guard.isSecret(p), `${p} should be secret`);
  }
  for (const p of ['src/app.ts', 'environment.ts', 'docs/keys.md', 'src/.gitignore', 'README.md', '.', '']) {
    assert.ok(!guard.isSecret(p), `${p} should not be secret`);
  }
  assert.ok(DEFAULT_EXCLUDE_GLOBS.includes('**/.git/**'));
  assert.deepEqual(withSecretExcludes(['**/dist'], new SecretGuard(['**/*.key', 'a{b,c}'])), ['**/dist', '**/*.[kK][eE][yY]', '[aA][bB]', '[aA][cC]']);
});

test('a secret glob with nested braces leaves the ripgrep search working and the file hidden', async () => {
  const root = makeTree({ 'vault.cfg': 'needle-in-secret\n', 'open.txt': 'needle-in-open\n' });
  const nested = new SecretGuard(['**/{vault,{keys,certs}}.cfg']);
  const caseless = (g: string) => g.replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
  assert.deepEqual(withSecretExcludes([], nested), ['**/vault.cfg', '**/keys.cfg', '**/certs.cfg'].map(caseless));
  const d = new Dispatcher({ workspace: new NodeWorkspace(root, { secrets: nested }), tools: ALL_TOOLS, log: silentLogger });
  const r = await d.dispatch(call('text_search', { pattern: 'needle-in' }));
  const text = JSON.stringify(r.data);
  assert.equal(r.data.success, true, text.slice(0, 400));
  assert.match(text, /needle-in-open/);
  assert.doesNotMatch(text, /needle-in-secret/);
  fs.rmSync(root, { recursive: true, force: true });
});

test('a secret glob matches a name in either Unicode form, and a backslash in a name as written and as a folder', () => {
  const nfc = new SecretGuard(['**/geheim-\u00e4.txt', 'top-*.pem']);
  for (const p of ['geheim-\u00e4.txt', 'docs/geheim-a\u0308.txt', 'top-x.pem', 'top-a\\x.pem']) assert.ok(nfc.isSecret(p), `${p} should be secret`);
  assert.ok(!nfc.isSecret('geheim-a.txt'));
  assert.ok(new SecretGuard(['**/geheim-a\u0308.txt']).isSecret('geheim-\u00e4.txt'));
  assert.ok(new SecretGuard(['**/.env*']).isSecret('docs\\.env'), 'a backslash read as a folder separator');
  assert.deepEqual(withSecretExcludes([], new SecretGuard(['**/\u00e4'])), ['**/\u00e4', '**/a\u0308']);
});

test('a glob naming a folder covers what it holds, anchored as the search engines anchor it', () => {
  const g = new GlobSet(['vault', '/keys/', './certs/*', '**/build']);
  const covered = { 'vault/a.txt': 'vault', 'vault/b/c.txt': 'vault', keys: '/keys/', 'keys/k.txt': '/keys/', 'certs/site/x.pem': './certs/*', 'q/build/out/x': '**/build' };
  for (const [rel, glob] of Object.entries(covered)) assert.equal(g.match(rel), glob, rel);
  for (const rel of ['x/vault/a.txt', 'a/keys/k.txt', 'docs/vault.md', 'certsx/a']) assert.equal(g.match(rel), undefined, rel);
});

test('read_file of a secret file is PERMISSION_DENIED, naming the setting; through a symlink too', async () => {
  const d = dispatcherOver(false);
  for (const rel of ['.env', 'config/.env.local', 'keys/server.PEM', 'home/.ssh/id_rsa', '.git/config', './.env', 'src/../.env', 'src/innocent.txt']) {
    const r = await d.dispatch(call('read_file', { relativePath: rel }));
    assert.equal(r.data.success, false, rel);
    assert.equal(r.data.code, 'PERMISSION_DENIED', rel);
    assert.ok(r.data.error?.includes(EXCLUDE_GLOBS_SETTING), r.data.error);
    assert.ok(!JSON.stringify(r).includes('hunter2'));
  }
  const ok = await d.dispatch(call('read_file', { relativePath: 'src/app.ts' }));
  assert.equal(ok.data.success, true);
});

for (const engine of ['ripgrep', 'in-process'] as const) {
  test(`grep_file and text_search never show secret contents (${engine})`, async (t) => {
    const ws = new NodeWorkspace(tree, { secrets: guard, ripgrep: engine === 'ripgrep' ? undefined : false });
    if (engine === 'ripgrep' && !ws.ripgrepPath()) return t.skip('no rg on PATH');
    const d = dispatcherOver(engine === 'ripgrep' ? undefined : false);
    for (const tool of ['grep_file', 'text_search']) {
      const r = await d.dispatch(call(tool, { pattern: 'PASSWORD', limit: 100 }));
      assert.equal(r.data.success, true, r.data.error);
      assert.ok(!r.data.result?.includes('hunter2'), r.data.result);
      assert.match(r.data.result ?? '', /src\/app\.ts/);
      for (const rel of ['.env', '.git', 'home/.ssh', 'src/innocent.txt']) {
        const direct = await d.dispatch(call(tool, { pattern: 'PASSWORD', relativePath: rel }));
        assert.equal(direct.data.code, 'PERMISSION_DENIED', `${tool} ${rel}`);
      }
    }
  });
}

test('the headless host with --auto-approve refuses to write a secret file, and writes others', async () => {
  const folder = makeTree({ '.env': 'A=1\n', 'a.txt': 'one\n' }, 'ab-secrets-write-');
  const backend = await startDevBackend({ port: 0 });
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: folder, log: silentLogger, autoApprove: true });
  try {
    await backend.waitForSession(undefined, 5000);
    const refused = (await backend.callTool('apply_change', { relativePath: '.env', searchContent: 'A=1', replaceContent: 'A=2' })).data as Record<string, unknown>;
    assert.equal(refused.code, 'PERMISSION_DENIED');
    assert.match(String(refused.error), /secret file .*agentBridge\.excludeGlobs/);
    assert.equal(fs.readFileSync(path.join(folder, '.env'), 'utf8'), 'A=1\n');
    const created = (await backend.callTool('apply_change', { relativePath: 'sub/server.key', replaceContent: 'k' })).data as Record<string, unknown>;
    assert.equal(created.code, 'PERMISSION_DENIED');
    assert.ok(!fs.existsSync(path.join(folder, 'sub/server.key')));
    const ok = (await backend.callTool('apply_change', { relativePath: 'a.txt', searchContent: 'one', replaceContent: 'two' })).data as Record<string, unknown>;
    assert.equal(ok.success, true, String(ok.error));
    assert.equal(fs.readFileSync(path.join(folder, 'a.txt'), 'utf8'), 'two\n');
  } finally {
    host.stop();
    await backend.close();
  }
});

test('--exclude-glob style extra globs add to the defaults', async () => {
  const folder = makeTree({ 'private/notes.txt': 'x\n', '.env': 'A=1\n' }, 'ab-secrets-extra-');
  const backend = await startDevBackend({ port: 0 });
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: folder, log: silentLogger, excludeGlobs: ['private/**'] });
  try {
    await backend.waitForSession(undefined, 5000);
    for (const rel of ['private/notes.txt', '.env']) {
      const r = (await backend.callTool('read_file', { relativePath: rel })).data as Record<string, unknown>;
      assert.equal(r.code, 'PERMISSION_DENIED', rel);
    }
  } finally {
    host.stop();
    await backend.close();
  }
});

test('read_file resolves its path once: the file the secrets check passed is the file read', async () => {
  const seen: string[] = [];
  class CountingWorkspace extends NodeWorkspace {
    override realpath(absPath: string): Promise<string> {
      seen.push(absPath);
      return super.realpath(absPath);
    }
  }
  const workspace = new CountingWorkspace(tree, { secrets: guard, ripgrep: false });
  const d = new Dispatcher({ workspace, tools: ALL_TOOLS, log: silentLogger });
  const ok = await d.dispatch(call('read_file', { relativePath: 'src/app.ts' }));
  assert.equal(ok.data.success, true);
  assert.deepEqual(seen, [path.join(workspace.root, 'src', 'app.ts')]);
  // the symlink to .env is still refused, and a later call resolves afresh (nothing kept between calls)
  const denied = await d.dispatch(call('read_file', { relativePath: 'src/innocent.txt' }));
  assert.equal(denied.data.success, false);
  assert.equal(seen.length, 2);
});

test('the guard remembers its answers per path, and stays right past its memo size', () => {
  const g = new SecretGuard(DEFAULT_EXCLUDE_GLOBS);
  for (let i = 0; i < 25_000; i++) assert.equal(g.isSecret(`src/f${i}.ts`), false);
  for (const p of ['.env', 'a/.env', 'src/f1.ts', '.env']) assert.equal(g.isSecret(p), p.endsWith('.env'), p);
});

test('a glob is tried only on paths with its literal part: the same answers as without that shortcut', () => {
  assert.equal(needleOf('**/.aws/credentials'), 'credentials');
  assert.equal(needleOf('**/*.[pP][eE][mM]'), '.');
  assert.equal(needleOf('a/**/b/*.{js,ts}'), 'a', 'text inside braces is not required');
  assert.equal(needleOf('@(foo|bar)/z'), 'z', 'nor inside an extglob group');
  assert.equal(needleOf('!keep'), undefined, 'a negation matches paths without its text');
  assert.equal(needleOf('**'), undefined);
  const globs = [...DEFAULT_EXCLUDE_GLOBS, '**/secret/**', 'config/*.yml', '*.log', '**/build', 'a/**/b/*.{js,ts}', '[abc]*.txt', '!neg', 'q{,x}w/k', 'Sub/Dir/**'];
  const guard = new GlobSet(globs);
  // What minimatch answered, each glob tried on every path (a path not listed here matched the negation `!neg`).
  const expected: Record<string, string> = {
    '.git/config': '**/.git/**', '.GIT/CONFIG': '**/.git/**', 'a/.env.local': '**/.env*', '.env': '**/.env*', 'x/.ssh/id': '**/.ssh/**',
    'id_rsa.pub': '**/id_rsa*', 'deep/id_ED25519': '**/id_ed25519*', '.aws/credentials': '**/.aws/credentials', 'sub/.AWS/Credentials': '**/.aws/credentials',
    'k.PEM': '**/*.pem', 'dir/.npmrc': '**/.npmrc', '.docker/config.json': '**/.docker/config.json', 'a/x/y/b/c.ts': 'a/**/b/*.{js,ts}',
    'a/b/c.js': 'a/**/b/*.{js,ts}', 'b.txt': '[abc]*.txt', 'config/x.yml': 'config/*.yml', 'q/build': '**/build', 'secret': '**/secret/**',
    'z/secret/k': '**/secret/**', '.netrc': '**/.netrc', '.kube/config': '**/.kube/config', 'x.keystore': '**/*.keystore', 'foo/.git': '**/.git/**',
    '.envrc': '**/.env*', 'LOG.LOG': '*.log', 'ID_RSA': '**/id_rsa*',
  };
  const paths = [
    ...Object.keys(expected), 'config/sub/x.yml', 'q/build/x', 'foo/.gitignore', 'neg', 'foo/z', 'bar/z', 'baz/z', 'qw/k', 'qxw/k', 'qyw/k',
    'sub/dir/file', 'src/Main.java', 'README.md', 'a', 'a/b',
  ];
  for (const p of paths) assert.equal(guard.match(p), expected[p] ?? '!neg', p);
});
