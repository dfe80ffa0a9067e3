/**
 * Protected files: editor, VCS and CI configuration that runs code or changes how the tools
 * behave (`.git/config`'s `core.fsmonitor`, a git hook, `.vscode/settings.json` switching approval
 * off, a CI workflow). The agent may read them unless they are also secret, but a change to one
 * always needs a person's explicit decision, whatever `agentBridge.approvalMode` says. Not a
 * setting: nothing a workspace or a user writes can shrink this list.
 */
export const PROTECTED_GLOBS: readonly string[] = [
  '**/.git',
  '**/.git/**',
  '**/.gitmodules',
  '**/.gitattributes',
  '**/.githooks/**',
  '**/.husky/**',
  '**/.pre-commit-config.yaml',
  '**/.vscode/**',
  '**/*.code-workspace',
  '**/.idea/**',
  '**/.github/workflows/**',
  '**/.github/actions/**',
  '**/.gitlab-ci.yml',
  '**/.devcontainer/**',
  '**/.devcontainer.json',
  '**/.envrc',
];
