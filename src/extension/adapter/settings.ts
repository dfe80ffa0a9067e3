import * as vscode from 'vscode';
import type { ProtocolSetting } from '../../core/link/connection';
import type { ToolLimits } from '../../core/policy/limiter';
import { extraProtectedGlobs } from '../../core/policy/protectedFiles';
import { DEFAULT_EXCLUDE_GLOBS } from '../../core/policy/secrets';
import { SecretGuard, type GlobSet } from '../../core/workspace/globSet';
import { inert } from './inert';

/** Every setting key in one place; all live under the `agentBridge` section. */
const SECTION = 'agentBridge';
const Setting = {
  serverUrl: 'serverUrl',
  projectKey: 'projectKey',
  protocol: 'protocol',
  autoConnect: 'autoConnect',
  approvalMode: 'approvalMode',
  format: 'format',
  excludeGlobs: 'excludeGlobs',
  protectedGlobs: 'protectedGlobs',
  maxConcurrentTools: 'maxConcurrentTools',
  toolTimeoutSeconds: 'toolTimeoutSeconds',
  resultRetentionSeconds: 'resultRetentionSeconds',
  systemCertificates: 'systemCertificates',
} as const;

/** Settings that change where or how we connect: a change to one of them reconnects. */
const CONNECTION_SETTINGS = [Setting.serverUrl, Setting.projectKey, Setting.protocol, Setting.systemCertificates] as const;

export interface BridgeSettings {
  readonly serverUrl: string;
  readonly projectKey: string;
  readonly protocol: ProtocolSetting;
  readonly autoConnect: boolean;
  /** For wss:// URLs, also trust the operating system's certificate authorities. */
  readonly systemCertificates: boolean;
}

/**
 * A setting no workspace may set: where the link goes, what it trusts, approval, secrets and the
 * host's limits. The user's value (user settings, or the remote machine's), else the default;
 * a value in the workspace's or a folder's `.vscode/settings.json` is ignored, whatever VS Code's
 * scope rules let through (the manifest declares these `machine`/`application` scoped and
 * restricted in untrusted workspaces as well). A value of the wrong type is the default too.
 */
function userSetting<T extends string | number | boolean | readonly unknown[]>(key: string, fallback: T): T {
  const seen = vscode.workspace.getConfiguration(SECTION).inspect<unknown>(key);
  const value = seen?.globalValue ?? seen?.defaultValue;
  const sameType = Array.isArray(fallback) ? Array.isArray(value) : typeof value === typeof fallback;
  return sameType ? (value as T) : fallback;
}

const DEFAULT_SERVER_URL = 'ws://localhost:8080/ws/agent/chat';

export function readSettings(folder: vscode.WorkspaceFolder | undefined): BridgeSettings {
  // The link is one per window; only the project key may differ per folder.
  const perFolder = vscode.workspace.getConfiguration(SECTION, folder?.uri);
  const protocol = userSetting<string>(Setting.protocol, 'auto');
  return {
    serverUrl: userSetting(Setting.serverUrl, DEFAULT_SERVER_URL).trim(),
    projectKey: perFolder.get<string>(Setting.projectKey, '').trim() || (folder?.name ?? ''),
    protocol: protocol === 'v1' || protocol === 'v2' ? protocol : 'auto',
    autoConnect: userSetting(Setting.autoConnect, true),
    systemCertificates: userSetting(Setting.systemCertificates, true),
  };
}

/**
 * `agentBridge.format` for a file: the user's choice, which a repository's settings may narrow
 * (`off`, or `changedRange` where the user chose `document`) but never widen: a whole-document
 * reformat would land unseen beside an edit written unasked.
 */
export function readFormatMode(uri: vscode.Uri): 'changedRange' | 'document' | 'off' {
  const modes = ['changedRange', 'document', 'off'] as const;
  const valid = (v: unknown) => modes.find((m) => m === v);
  const seen = vscode.workspace.getConfiguration(SECTION, uri).inspect<unknown>(Setting.format);
  const user = valid(seen?.globalValue) ?? 'changedRange';
  const repo = valid(seen?.workspaceFolderValue) ?? valid(seen?.workspaceValue);
  if (repo === 'off' || (repo === 'changedRange' && user === 'document')) return repo;
  return user;
}

/** `agentBridge.approvalMode` from the user's settings only: a repository cannot switch approval off. */
export function readApprovalMode(): 'ask' | 'autoApprove' {
  return userSetting<string>(Setting.approvalMode, 'ask') === 'autoApprove' ? 'autoApprove' : 'ask';
}

/**
 * Opens the settings at `agentBridge.serverUrl`. It is machine-scoped: in a remote window (SSH, WSL,
 * code-server) it is set in the Remote tab; the User tab would say "No Settings Found".
 */
export function openServerUrlSetting(): Thenable<unknown> {
  return vscode.commands.executeCommand(vscode.env.remoteName ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings', { query: `${SECTION}.${Setting.serverUrl}` });
}

export function affectsConnection(e: vscode.ConfigurationChangeEvent): boolean {
  return CONNECTION_SETTINGS.some((key) => e.affectsConfiguration(`${SECTION}.${key}`));
}

let cachedGuard: { key: string; guard: SecretGuard } | undefined;
let cachedProtected: { key: string; guard: GlobSet } | undefined;
/** True while `watchSecretSettings` listens: only then may the guard be handed out without rereading. */
let watched = false;

/**
 * The secrets guard from `agentBridge.excludeGlobs`, from the user's settings only, so a
 * workspace's own settings file cannot relax it. The access policy asks for it on every path it
 * judges (each file of a search answer): reading the setting each time cost more than ripgrep's
 * whole search in the extension host, so while `watchSecretSettings` listens the guard is kept
 * until the setting changes.
 */
export function readSecretGuard(): SecretGuard {
  if (watched && cachedGuard) return cachedGuard.guard;
  const raw: readonly unknown[] = userSetting<readonly unknown[]>(Setting.excludeGlobs, DEFAULT_EXCLUDE_GLOBS);
  const globs = raw.filter((g): g is string => typeof g === 'string');
  const key = JSON.stringify(globs);
  if (cachedGuard?.key !== key) {
    cachedGuard = { key, guard: new SecretGuard(globs) };
    for (const r of cachedGuard.guard.refused) {
      void vscode.window.showWarningMessage(vscode.l10n.t("Agent Bridge: the secret glob '{0}' in agentBridge.excludeGlobs cannot be read ({1}). Every file counts as secret until it is fixed.", inert(r.glob), inert(r.reason)));
    }
  }
  return cachedGuard.guard;
}

/**
 * The globs the user added to the protected files (`agentBridge.protectedGlobs`), from the user's
 * settings only, as the secret globs are: a workspace can neither add nor (more to the point) see
 * its additions honoured in place of the user's. The built-in list applies besides, always.
 */
export function readProtectedGuard(): GlobSet {
  if (watched && cachedProtected) return cachedProtected.guard;
  const raw: readonly unknown[] = userSetting<readonly unknown[]>(Setting.protectedGlobs, []);
  const key = JSON.stringify(raw);
  if (cachedProtected?.key !== key) {
    cachedProtected = { key, guard: extraProtectedGlobs(raw) };
    for (const r of cachedProtected.guard.refused) {
      void vscode.window.showWarningMessage(vscode.l10n.t("Agent Bridge: the protected glob '{0}' in agentBridge.protectedGlobs cannot be read ({1}). Every file counts as protected until it is fixed.", inert(r.glob), inert(r.reason)));
    }
  }
  return cachedProtected.guard;
}

/** Drops the kept guards whenever `agentBridge.excludeGlobs` or `agentBridge.protectedGlobs` changes (VS Code tells before any later read). */
export function watchSecretSettings(): vscode.Disposable {
  const listener = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(`${SECTION}.${Setting.excludeGlobs}`)) cachedGuard = undefined;
    if (e.affectsConfiguration(`${SECTION}.${Setting.protectedGlobs}`)) cachedProtected = undefined;
  });
  cachedGuard = undefined;
  cachedProtected = undefined;
  watched = true;
  return {
    dispose: () => {
      watched = false;
      cachedGuard = undefined;
      cachedProtected = undefined;
      listener.dispose();
    },
  };
}

/** `agentBridge.maxConcurrentTools` and `agentBridge.toolTimeoutSeconds` (read per call). */
export function readToolLimits(): Partial<ToolLimits> {
  return {
    maxConcurrent: userSetting(Setting.maxConcurrentTools, 8),
    timeoutMs: userSetting(Setting.toolTimeoutSeconds, 25) * 1000,
  };
}

/** `agentBridge.resultRetentionSeconds` in ms (read each time an answer is kept; 0 keeps none). */
export function readResultRetentionMs(): number {
  const seconds = userSetting(Setting.resultRetentionSeconds, 60);
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 60_000;
}
