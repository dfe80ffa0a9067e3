/**
 * The hostile-agent suite: files that run code. Each attack goes through a real dev backend and
 * the headless host with --auto-approve: a change to a protected file must still be refused, as
 * nobody there can approve it, and a git directory must not be completable under any name.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { after, before, describe, test } from 'node:test';
import { accessPolicy } from '../../src/core/policy/accessPolicy';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { hostileLink, type HostileLink } from '../support/hostile';

const plant = (root: string, rel: string, text: string): void => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
};

/** Runs `git status` in `dir` with discovery stopped above the project; true when git found a repository there. */
function gitFindsRepository(dir: string, ceiling: string): boolean {
  const env = { ...process.env, GIT_CEILING_DIRECTORIES: ceiling, GIT_CONFIG_NOSYSTEM: '1', HOME: ceiling };
  for (const key of Object.keys(env)) if (key.startsWith('GIT_') && key !== 'GIT_CEILING_DIRECTORIES' && key !== 'GIT_CONFIG_NOSYSTEM') delete (env as NodeJS.ProcessEnv)[key];
  return spawnSync('git', ['status', '--porcelain'], { cwd: dir, env, timeout: 10_000 }).status === 0;
}

describe('a hostile agent building a git directory one write at a time (headless host, --auto-approve)', () => {
  let link: HostileLink;
  before(async () => {
    link = await hostileLink();
  });
  after(() => link.close());

  // The pieces git needs to accept a folder as a repository, whatever its name, plus a config whose
  // core.fsmonitor runs a command on every `git status` there (VS Code's git extension runs one).
  const pieces = (folder: string, marker: string): [string, string][] => [
    [`${folder}/HEAD`, 'ref: refs/heads/main\n'],
    [`${folder}/config`, `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch '${marker}'; false"\n`],
    [`${folder}/objects/info/packs`, '\n'],
    [`${folder}/refs/heads/.keep`, '\n'],
  ];

  for (const [name, order] of [
    ['HEAD first', [0, 1, 2, 3]],
    ['HEAD last', [1, 2, 3, 0]],
    ['HEAD between', [2, 0, 3, 1]],
  ] as const) {
    test(`in any order (${name}) the piece that would complete the repository is refused, and git runs nothing`, async () => {
      const folder = `docs-${name.replace(/ /g, '-')}`;
      const marker = path.join(link.tree.root, `${folder}-PWNED`);
      const all = pieces(folder, marker);
      const refused = new Map<string, string>();
      for (const i of order) {
        const [rel, content] = all[i];
        const r = await link.call('Replace', { file_path: rel, content });
        if (r.success !== true) {
          assert.equal(r.code, 'PERMISSION_DENIED', `${rel}: ${String(r.error)}`);
          refused.set(rel, String(r.error));
        }
      }
      const dir = path.join(link.tree.root, folder);
      fs.mkdirSync(dir, { recursive: true });
      const found = gitFindsRepository(dir, path.dirname(link.tree.root));
      assert.ok(!fs.existsSync(marker), 'core.fsmonitor ran');
      assert.equal(found, false, `git found a repository in ${folder}/ (refused: ${[...refused.keys()].join(', ') || 'none'})`);
      // None of the pieces is source code, so none is written unasked; HEAD is refused as protected
      // (the policy's own judgement of each order is the property test below).
      assert.deepEqual([...refused.keys()].sort(), all.map(([rel]) => rel).sort(), 'every piece is refused');
      assert.match(refused.get(`${folder}/HEAD`) ?? '', /protected file/);
    });
  }

  test('a folder the repository already holds a HEAD in: objects/, refs/, config and hooks beside it are refused', async () => {
    const root = link.tree.root;
    plant(root, 'vendor/lib.git/HEAD', 'ref: refs/heads/main\n');
    for (const rel of ['vendor/lib.git/objects/info/packs', 'vendor/lib.git/refs/heads/main', 'vendor/lib.git/commondir']) {
      const r = await link.call('Replace', { file_path: rel, content: '../../.git\n' });
      assert.equal(r.code, 'PERMISSION_DENIED', `${rel}: ${String(r.error)}`);
      assert.ok(!fs.existsSync(path.join(root, rel)), `${rel} was created`);
    }
    // Two pieces sent at once: each is judged as if the other were there.
    const both = await Promise.all(['vendor/lib.git/objects/ab/cdef', 'vendor/lib.git/refs/tags/v1'].map((rel) => link.call('Replace', { file_path: rel, content: 'x\n' })));
    assert.deepEqual(both.map((r) => r.code), ['PERMISSION_DENIED', 'PERMISSION_DENIED']);
    // A bare repository the project ships (a test fixture, say) under any name: nothing in it changes unasked.
    plant(root, 'fixtures/sample-repo/HEAD', 'ref: refs/heads/main\n');
    plant(root, 'fixtures/sample-repo/config', '[core]\n\tbare = true\n');
    fs.mkdirSync(path.join(root, 'fixtures/sample-repo/objects'), { recursive: true });
    fs.mkdirSync(path.join(root, 'fixtures/sample-repo/refs'), { recursive: true });
    for (const [tool, params] of [
      ['apply_change', { relativePath: 'fixtures/sample-repo/config', searchContent: 'bare = true', replaceContent: 'bare = true\n\tfsmonitor = "touch PWNED; false"' }],
      ['Replace', { file_path: 'fixtures/sample-repo/hooks/post-checkout', content: '#!/bin/sh\ntouch PWNED\n' }],
      ['Replace', { file_path: 'fixtures/sample-repo/info/attributes', content: '* filter=pwn\n' }],
      ['Replace', { file_path: 'fixtures/sample-repo/packed-refs', content: '\n' }],
    ] as const) {
      const r = await link.call(tool, params as Record<string, unknown>);
      assert.equal(r.code, 'PERMISSION_DENIED', `${tool} ${JSON.stringify(params)}: ${String(r.error)}`);
    }
    assert.equal(fs.readFileSync(path.join(root, 'fixtures/sample-repo/config'), 'utf8'), '[core]\n\tbare = true\n');
    assert.ok(!fs.existsSync(path.join(root, 'fixtures/sample-repo/hooks')));
  });

  test('a .git pointer, a submodule list and another VCS\'s metadata, at any depth, are refused', async () => {
    for (const rel of ['sub/.git', 'a/b/.gitmodules', 'lib/.hg/hgrc', 'lib/.svn/entries', 'old/.bzr/branch/branch.conf', 'x/.fslckout', 'x/_FOSSIL_', 'x/.fossil-settings/ignore-glob']) {
      const r = await link.call('Replace', { file_path: rel, content: 'gitdir: ../../elsewhere\n' });
      assert.equal(r.code, 'PERMISSION_DENIED', `${rel}: ${String(r.error)}`);
      assert.ok(!fs.existsSync(path.join(link.tree.root, rel)), `${rel} was created`);
    }
  });
});

describe('no order of unasked writes completes a git directory (the access policy, every order)', () => {
  const PIECES = ['HEAD', 'objects/info/packs', 'refs/heads/main', 'commondir', 'config'];
  const orders = (items: readonly string[]): string[][] => (items.length <= 1 ? [[...items]] : items.flatMap((x, i) => orders([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest])));

  test('each of the 120 orders of five pieces, and all pieces sent at once, leave no HEAD beside objects/ or refs/ unasked', async () => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-gitdir-')));
    try {
      const policy = accessPolicy(new NodeWorkspace(base, { ripgrep: false }));
      /** Writes the pieces the policy lets through unasked, each batch judged before any of it lands. */
      const run = async (folder: string, batches: readonly (readonly string[])[]) => {
        for (const batch of batches) {
          const judged = await Promise.all(batch.map(async (piece) => [piece, (await policy.forWrite(await policy.resolve(`${folder}/${piece}`))).kind] as const));
          for (const [piece, kind] of judged) if (kind === 'normal') plant(base, `${folder}/${piece}`, 'x\n');
        }
        const has = (name: string) => fs.existsSync(path.join(base, folder, name));
        return has('HEAD') && (has('objects') || has('refs') || has('commondir'));
      };
      let n = 0;
      for (const order of orders(PIECES)) {
        assert.equal(await run(`seq${n++}`, order.map((piece) => [piece])), false, `completed unasked in the order ${order.join(', ')}`);
      }
      assert.equal(await run('together', [PIECES]), false, 'completed unasked with every piece at once');
      // The repository already holds a HEAD: whatever comes next beside it asks, alone or together.
      plant(base, 'shipped/HEAD', 'ref: refs/heads/main\n');
      assert.equal(await run('shipped', [PIECES.slice(1)]), false, 'completed unasked beside a HEAD that was there');
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

/** CI pipelines, hooks, package-manager and editor files that run code: each must be refused at the root and deep down. */
const RUNS_CODE: readonly string[] = [
  '.circleci/config.yml',
  'Jenkinsfile',
  'ci/release.jenkinsfile',
  '.travis.yml',
  'azure-pipelines.yml',
  '.azure-pipelines/build.yml',
  'bitbucket-pipelines.yml',
  '.buildkite/pipeline.yml',
  '.gitlab-ci.yml',
  '.gitlab-ci-deploy.yml',
  '.gitlab/ci/deploy.yml',
  '.drone.yml',
  '.woodpecker.yml',
  '.woodpecker/build.yaml',
  '.github/workflows/pwn.yml',
  'appveyor.yml',
  '.cirrus.yml',
  '.gitpod.yml',
  '.husky/pre-commit',
  '.githooks/pre-push',
  'lefthook.yml',
  '.pre-commit-config.yaml',
  '.yarnrc.yml',
  '.yarnrc',
  '.npmrc',
  '.pnpmfile.cjs',
  '.yarn/releases/yarn-4.0.0.cjs',
  '.cargo/config.toml',
  '.mvn/extensions.xml',
  'gradle/wrapper/gradle-wrapper.properties',
  '.vscode/tasks.json',
  '.vscode/launch.json',
  '.idea/workspace.xml',
  'app.code-workspace',
  '.devcontainer/devcontainer.json',
  '.devcontainer.json',
  '.envrc',
  '.autoenv.zsh',
  '.rvmrc',
  '.pylintrc',
  'eslint.config.js',
  '.eslintrc.json',
  '.prettierrc',
  'node_modules/prettier/index.cjs',
  '.venv/lib/python3.12/site-packages/evil.pth',
  'gradlew',
  '.eslintrc.cjs',
  'prettier.config.mjs',
  'conftest.py',
  '.config/mise/config.toml',
  'mise.toml',
  '.nvim.lua',
  '.gitattributes',
  '.gitconfig',
  '.lfsconfig',
];

describe('files that run code, at any depth (headless host, --auto-approve)', () => {
  let link: HostileLink;
  before(async () => {
    link = await hostileLink();
  });
  after(() => link.close());

  test('creating or changing a CI pipeline, a hook, a package manager\'s or an editor\'s task file is refused', async () => {
    const written: string[] = [];
    const read = (rel: string) => (fs.existsSync(path.join(link.tree.root, rel)) ? fs.readFileSync(path.join(link.tree.root, rel), 'utf8') : undefined);
    for (const rel of RUNS_CODE.flatMap((f) => [f, `services/api/${f}`])) {
      const before = read(rel);
      const r = await link.call('Replace', { file_path: rel, content: 'echo pwned\n' });
      if (r.success === true || read(rel) !== before) written.push(rel);
      else assert.equal(r.code, 'PERMISSION_DENIED', `${rel}: ${String(r.error)}`);
    }
    assert.deepEqual(written, [], 'written without a question');
    // Refused as protected, not only as configuration: in VS Code they ask in every mode, with the warning.
    const policy = accessPolicy(new NodeWorkspace(link.tree.root, { ripgrep: false }));
    for (const rel of RUNS_CODE.flatMap((f) => [f, `services/api/${f}`])) {
      assert.notEqual((await policy.forWrite(await policy.resolve(rel))).kind, 'normal', rel); // .yarnrc.yml is secret too
    }
  });

  test('package.json and a Makefile are not protected, but not source either: this host refuses them', async () => {
    const policy = accessPolicy(new NodeWorkspace(link.tree.root, { ripgrep: false }));
    for (const rel of ['package.json', 'Makefile', 'services/api/package.json']) {
      // Not protected: in VS Code they ask without the warning (and join Approve All).
      assert.equal((await policy.resolve(rel)).kind, 'normal', rel);
      const r = await link.call('Replace', { file_path: rel, content: '{}\n' });
      assert.equal(r.code, 'PERMISSION_DENIED', `${rel}: ${String(r.error)}`);
      assert.match(String(r.error), /not a source file/);
    }
  });
});
