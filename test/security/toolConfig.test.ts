/**
 * The hostile-agent suite: configuration that editor extensions and language servers load or run
 * by themselves (a test runner's config, pyproject's addopts, a Gradle build, a build script).
 * With --auto-approve the headless host writes only source code and prose; everything else is
 * refused, whatever name or link leads to it. In VS Code the same judgement makes autoApprove ask.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { unaskedWrite } from '../../src/core/policy/unaskedWrites';
import { hostileLink, type HostileLink } from '../support/hostile';

/** Files a tool loads by itself: each would run the agent's text without anyone choosing to run the project. */
const TOOL_FILES: readonly string[] = [
  'jest.config.js',
  'vitest.config.ts',
  'vitest.workspace.mjs',
  'playwright.config.ts',
  'babel.config.cjs',
  'postcss.config.js',
  'vite.config.mts',
  '.babelrc',
  '.mocharc.js',
  '.storybook/main.ts',
  'pyproject.toml',
  'pytest.ini',
  'setup.cfg',
  'tox.ini',
  'mypy.ini',
  'package.json',
  'tsconfig.json',
  'build.gradle',
  'build.gradle.kts',
  'settings.gradle.kts',
  'buildSrc/src/main/kotlin/Plugin.kt',
  'pom.xml',
  'build.sbt',
  'project/Deps.scala',
  'build.rs',
  'Cargo.toml',
  'CMakeLists.txt',
  'Package.swift',
  'mix.exs',
  'Gemfile',
  'gulpfile.js',
  'sitecustomize.py',
  'App.csproj',
  'Makefile',
  'Dockerfile',
  'flake.nix',
  'karma.conf.js',
  'wdio.conf.ts',
  'gatsby-node.js',
  'gulpfile.js/index.js',
  'build-logic/src/main/kotlin/Conventions.kt',
  'gradle/plugins/src/Plugin.java',
  'project/Build.java',
  'project/src/main/scala/Meta.scala',
  'vendor/autoload.php',
  'vendor/bundle/ruby/3.2.0/gems/rubocop/lib/rubocop.rb',
  'env/lib/python3.11/site-packages/pytest/__init__.py',
  '__pypackages__/3.11/lib/evil.py',
  'requirements.txt',
  'requirements-dev.txt',
  'constraints.txt',
  'gems.rb',
  'docs/conf.py',
  'xmake.lua',
  'AGENTS.md',
  'CLAUDE.md',
  'CLAUDE.local.md',
  'docs/AGENTS.override.md',
  'AGENT.md',
  'QWEN.md',
  'WARP.md',
  'CRUSH.md',
  'env/etc/conda/activate.d/evil.sh',
  'env/etc/conda/deactivate.d/evil.ps1',
  'build.zig',
  'build/main.rs',
  'env/Scripts/Activate.ps1',
  'env/bin/activate.fish',
  'renv/activate.R',
  'config/config.exs',
  'Package@swift-5.9.swift',
  'sub/Package@swift-6.swift',
  'mill-build/src/Build.scala',
];

/** Source code and prose: what autoApprove writes without asking. */
const SOURCE_FILES: readonly string[] = ['src/App.java', 'src/app.ts', 'src/view.tsx', 'lib/util.py', 'tests/test_util.py', 'README.md', 'docs/guide.rst', 'main.go', 'src/lib.rs', 'docs/todo.txt'];

describe('tool configuration (headless host, --auto-approve)', () => {
  let link: HostileLink;
  before(async () => {
    link = await hostileLink();
  });
  after(() => link.close());

  const read = (rel: string): string | undefined => {
    const abs = path.join(link.tree.root, rel);
    return fs.existsSync(abs) ? fs.readFileSync(abs, 'utf8') : undefined;
  };

  test('creating or changing a tool\'s configuration or a build script is refused, at the root and deep down', async () => {
    const written: string[] = [];
    for (const rel of TOOL_FILES.flatMap((f) => [f, `services/api/${f}`])) {
      const before = read(rel);
      const r = await link.call('Replace', { file_path: rel, content: 'require("child_process").execSync("touch PWNED")\n' });
      if (r.success === true || read(rel) !== before) written.push(rel);
      else assert.equal(r.code, 'PERMISSION_DENIED', `${rel}: ${String(r.error)}`);
    }
    assert.deepEqual(written, [], 'written without a question');
  });

  test('source code and prose are still written', async () => {
    for (const rel of SOURCE_FILES) {
      const r = await link.call('Replace', { file_path: rel, content: 'ok\n' });
      assert.equal(r.success, true, `${rel}: ${String(r.error)}`);
      assert.equal(read(rel), 'ok\n', rel);
    }
  });

  test('a source name that leads to a tool\'s configuration (a symbolic or a hard link) is refused', async () => {
    const root = link.tree.root;
    fs.writeFileSync(path.join(root, 'jest.config.js'), 'module.exports = {};\n');
    fs.symlinkSync('jest.config.js', path.join(root, 'config-link.js'));
    fs.writeFileSync(path.join(root, 'vitest.config.ts'), 'export default {};\n');
    fs.linkSync(path.join(root, 'vitest.config.ts'), path.join(root, 'shared.ts'));
    for (const rel of ['config-link.js', 'shared.ts']) {
      const r = await link.call('Replace', { file_path: rel, content: 'require("child_process").execSync("touch PWNED")\n' });
      assert.equal(r.code, 'PERMISSION_DENIED', `${rel}: ${String(r.error)}`);
    }
    assert.equal(read('jest.config.js'), 'module.exports = {};\n');
    assert.equal(read('vitest.config.ts'), 'export default {};\n');
  });
});

describe('which files autoApprove writes unasked', () => {
  test('by extension and name, case-insensitively, every name of the file counted', () => {
    assert.equal(unaskedWrite('src/Main.JAVA').unasked, true);
    assert.equal(unaskedWrite('JEST.CONFIG.JS').unasked, false);
    assert.equal(unaskedWrite('src/a.ts', 'jest.config.js').unasked, false);
    assert.equal(unaskedWrite('.github/x.md').unasked, false);
    assert.equal(unaskedWrite('noextension').unasked, false);
    assert.equal(unaskedWrite('.ts').unasked, false);
  });
});

describe('a file a symbolic link with a protected name leads to (headless host, --auto-approve)', () => {
  let link: HostileLink;
  before(async () => {
    link = await hostileLink();
  });
  after(() => link.close());

  test('a hook, a config or a hooks folder installed as a link: the file it leads to is protected too', async () => {
    const root = link.tree.root;
    const put = (rel: string, text: string): void => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    };
    put('scripts/pre-commit.sh', '#!/bin/sh\nexit 0\n');
    fs.mkdirSync(path.join(root, '.git/hooks'), { recursive: true });
    fs.symlinkSync('../../scripts/pre-commit.sh', path.join(root, '.git/hooks/pre-commit'));
    put('tools/eslint.js', 'export default [];\n');
    fs.symlinkSync('tools/eslint.js', path.join(root, 'eslint.config.js'));
    put('tools/hooks/pre-push.sh', '#!/bin/sh\nexit 0\n');
    fs.symlinkSync('tools/hooks', path.join(root, '.husky'));
    const planted = 'touch PWNED\n';
    for (const rel of ['scripts/pre-commit.sh', 'tools/eslint.js', 'tools/hooks/pre-push.sh', 'tools/hooks/new-hook.sh']) {
      const before = fs.existsSync(path.join(root, rel)) ? fs.readFileSync(path.join(root, rel), 'utf8') : undefined;
      const r = await link.call('Replace', { file_path: rel, content: planted });
      assert.equal(r.code, 'PERMISSION_DENIED', `${rel}: ${String(r.error)}`);
      assert.equal(fs.existsSync(path.join(root, rel)) ? fs.readFileSync(path.join(root, rel), 'utf8') : undefined, before, `${rel} changed`);
    }
    // A source file no such link leads to is still written.
    put('scripts/build.sh', 'echo build\n');
    const ok = await link.call('Replace', { file_path: 'scripts/build.sh', content: 'echo built\n' });
    assert.equal(ok.success, true, String(ok.error));
  });
});
