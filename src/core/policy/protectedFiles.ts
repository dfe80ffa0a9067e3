/**
 * Protected files: files that run code, or change what a tool runs, without the developer choosing
 * to run this project's code: VCS metadata (`.git/config`'s `core.fsmonitor`, a hook), CI
 * pipelines (they run on a push, with the CI's secrets), git-hook managers, package-manager
 * configuration that replaces the tool itself or hooks every install (`.yarnrc.yml`'s `yarnPath`,
 * `.pnpmfile.cjs`), editor task, launch and workspace files, direnv and dev containers. All at any
 * depth: a monorepo's sub-folder is opened on its own, and tools look up configuration from there.
 *
 * The agent may read them unless they are also secret, but a change to one always needs a person's
 * explicit decision, whatever `agentBridge.approvalMode` says. Nothing a workspace writes can
 * shrink this list; the user can only add to it (`agentBridge.protectedGlobs`).
 *
 * Deliberately not protected: `package.json` and build files (`Makefile`, `build.gradle`,
 * `pom.xml`, `build.rs`). Their scripts run when the developer runs the project's build or tests,
 * which run the project's code the agent edits anyway, and agents change them as routine work;
 * asking for every such edit would train people to click through the warning that matters.
 */
import { GlobSet } from '../workspace/globSet';

export const PROTECTED_GLOBS: readonly string[] = [
  // Version control metadata. `HEAD` is what makes any folder a git directory: see gitDirectory.ts.
  '**/.git',
  '**/.git/**',
  '**/HEAD',
  '**/.gitmodules',
  '**/.gitattributes',
  '**/.gitconfig',
  '**/.lfsconfig',
  '**/.hg/**',
  '**/.hgrc',
  '**/.svn/**',
  '**/.bzr/**',
  '**/.fslckout',
  '**/_FOSSIL_',
  '**/.fossil-settings/**',
  '**/_darcs/**',
  '**/.pijul/**',
  '**/.jj/**',
  '**/.sl/**',
  // Git hooks and the tools that install them.
  '**/.githooks/**',
  '**/.husky/**',
  '**/.pre-commit-config.yaml',
  '**/.pre-commit-config.yml',
  '**/{.,}lefthook{,-local}.{yml,yaml,json,toml}',
  '**/.overcommit.yml',
  '**/{.,}simple-git-hooks.{json,js,cjs,mjs}',
  // CI pipelines and the files they include.
  '**/.github/workflows/**',
  '**/.github/actions/**',
  '**/action.{yml,yaml}',
  '**/.gitlab-ci*.{yml,yaml}',
  '**/.gitlab/**',
  '**/.circleci/**',
  '**/Jenkinsfile*',
  '**/*.jenkinsfile',
  '**/.travis.yml',
  '**/azure-pipelines*.{yml,yaml}',
  '**/.azure-pipelines/**',
  '**/.azuredevops/**',
  '**/bitbucket-pipelines.yml',
  '**/.buildkite/**',
  '**/buildkite.{yml,yaml}',
  '**/.drone.{yml,yaml,jsonnet,star}',
  '**/.woodpecker.{yml,yaml}',
  '**/.woodpecker/**',
  '**/{.,}appveyor.yml',
  '**/.cirrus.{yml,star}',
  '**/.semaphore/**',
  '**/.tekton/**',
  '**/cloudbuild.{yml,yaml}',
  '**/buildspec.{yml,yaml}',
  '**/codefresh.yml',
  '**/bamboo-specs/**',
  '**/.teamcity/**',
  '**/.forgejo/**',
  '**/.gitea/**',
  '**/.build.yml',
  '**/.builds/**',
  '**/.gitpod.yml',
  // Package managers and toolchains: a replaced tool, an install hook, a runner or wrapper.
  '**/.npmrc',
  '**/.yarnrc',
  '**/.yarnrc.yml',
  '**/.yarn/plugins/**',
  '**/.yarn/releases/**',
  '**/.pnpmfile.{cjs,mjs,js}',
  '**/.cargo/config',
  '**/.cargo/config.toml',
  '**/rust-toolchain',
  '**/rust-toolchain.toml',
  '**/.mvn/**',
  '**/gradle/wrapper/**',
  '**/{.,}mise{,.*}.toml',
  '**/.mise/**',
  // Editors, shells and containers: tasks, launch configurations, settings, per-folder scripts.
  '**/.vscode/**',
  '**/*.code-workspace',
  '**/.idea/**',
  '**/.zed/**',
  '**/.fleet/**',
  '**/.theia/**',
  '**/*.sublime-project',
  '**/.nvim.lua',
  '**/.nvimrc',
  '**/.exrc',
  '**/.devcontainer/**',
  '**/.devcontainer.json',
  '**/.envrc',
  // shells and linters that run a file's code when the folder is entered or linted
  '**/.autoenv',
  '**/.autoenv.zsh',
  '**/.autoenv_leave.zsh',
  '**/.rvmrc',
  '**/.pylintrc',
  '**/pylintrc',
  // code an editor extension loads by itself when it lints, formats or discovers tests
  '**/eslint.config.*',
  '**/.eslintrc',
  '**/.eslintrc.*',
  '**/prettier.config.*',
  '**/.prettierrc',
  '**/.prettierrc.*',
  '**/stylelint.config.*',
  '**/.stylelintrc',
  '**/.stylelintrc.*',
  // the packages and interpreters those extensions load from the project itself
  '**/node_modules/**',
  '**/{.venv,venv}/**',
  '**/site-packages/**',
  '**/dist-packages/**',
  '**/__pypackages__/**',
  '**/pyvenv.cfg',
  // the build wrappers Java tooling runs (their configuration is protected above)
  '**/{gradlew,gradlew.bat,mvnw,mvnw.cmd}',
  '**/conftest.py',
  '**/.config/mise/**',
  '**/.rtx.toml',
];

/**
 * The globs a user adds (`agentBridge.protectedGlobs`, the headless host's `--protected-glob`).
 * Negations are dropped: the built-in globs are matched first, so one could take nothing away, but
 * `!docs/**` would protect every other file, which is never what was meant.
 */
export function extraProtectedGlobs(globs: readonly unknown[]): GlobSet {
  return new GlobSet(globs.filter((g): g is string => typeof g === 'string' && !g.trim().startsWith('!')));
}
