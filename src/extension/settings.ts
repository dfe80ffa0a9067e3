import * as vscode from 'vscode';
import type { ProtocolSetting } from '../core/connection';
import type { ToolLimits } from '../core/security/limiter';
import { DEFAULT_EXCLUDE_GLOBS, SecretGuard } from '../core/security/secrets';

/** Every setting key in one place; all live under the `agentBridge` section. */
export const SECTION = 'agentBridge';
export const Setting = {
  serverUrl: 'serverUrl',
  projectKey: 'projectKey',
  protocol: 'protocol',
  autoConnect: 'autoConnect',
  approvalMode: 'approvalMode',
  format: 'format',
  excludeGlobs: 'excludeGlobs',
  maxConcurrentTools: 'maxConcurrentTools',
  toolTimeoutSeconds: 'toolTimeoutSeconds',
  resultRetentionSeconds: 'resultRetentionSeconds',
  systemCertificates: 'systemCertificates',
} as const;

/** Settings that change where or how we connect: a change to one of them reconnects. */
export const CONNECTION_SETTINGS = [Setting.serverUrl, Setting.projectKey, Setting.protocol, Setting.systemCertificates] as const;

export interface BridgeSettings {
  readonly serverUrl: string;
  readonly projectKey: string;
  readonly protocol: ProtocolSetting;
  readonly autoConnect: boolean;
  /** For wss:// URLs, also trust the operating system's certificate authorities. */
  readonly systemCertificates: boolean;
}

export function readSettings(folder: vscode.WorkspaceFolder | undefined): BridgeSettings {
  // The link is one per window; only the project key may differ per folder.
  const c = vscode.workspace.getConfiguration(SECTION);
  const perFolder = vscode.workspace.getConfiguration(SECTION, folder?.uri);
  const protocol = c.get<string>(Setting.protocol, 'auto');
  return {
    serverUrl: c.get<string>(Setting.serverUrl, 'ws://localhost:8080/ws/agent/chat').trim(),
    projectKey: perFolder.get<string>(Setting.projectKey, '').trim() || (folder?.name ?? ''),
    protocol: protocol === 'v1' || protocol === 'v2' ? protocol : 'auto',
    autoConnect: c.get<boolean>(Setting.autoConnect, true),
    systemCertificates: c.get<boolean>(Setting.systemCertificates, true) !== false,
  };
}

export function affectsConnection(e: vscode.ConfigurationChangeEvent): boolean {
  return CONNECTION_SETTINGS.some((key) => e.affectsConfiguration(`${SECTION}.${key}`));
}

let cachedGuard: { key: string; guard: SecretGuard } | undefined;

/**
 * The secrets guard from `agentBridge.excludeGlobs`. The setting is application-scoped, so a
 * workspace's own settings file cannot relax it.
 */
export function readSecretGuard(): SecretGuard {
  const raw = vscode.workspace.getConfiguration(SECTION).get<unknown>(Setting.excludeGlobs, DEFAULT_EXCLUDE_GLOBS);
  const globs = Array.isArray(raw) ? raw.filter((g): g is string => typeof g === 'string') : DEFAULT_EXCLUDE_GLOBS;
  const key = JSON.stringify(globs);
  if (cachedGuard?.key !== key) cachedGuard = { key, guard: new SecretGuard(globs) };
  return cachedGuard.guard;
}

/** `agentBridge.maxConcurrentTools` and `agentBridge.toolTimeoutSeconds` (read per call). */
export function readToolLimits(): Partial<ToolLimits> {
  const c = vscode.workspace.getConfiguration(SECTION);
  return {
    maxConcurrent: c.get<number>(Setting.maxConcurrentTools, 8),
    timeoutMs: c.get<number>(Setting.toolTimeoutSeconds, 25) * 1000,
  };
}

/** `agentBridge.resultRetentionSeconds` in ms (read each time an answer is kept; 0 keeps none). */
export function readResultRetentionMs(): number {
  const seconds = vscode.workspace.getConfiguration(SECTION).get<number>(Setting.resultRetentionSeconds, 60);
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 60_000;
}
