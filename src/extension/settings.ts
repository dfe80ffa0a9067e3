import * as vscode from 'vscode';
import type { ProtocolSetting } from '../core/connection';

/** Every setting key in one place; all live under the `agentBridge` section. */
export const SECTION = 'agentBridge';
export const Setting = {
  serverUrl: 'serverUrl',
  projectKey: 'projectKey',
  protocol: 'protocol',
  autoConnect: 'autoConnect',
  approvalMode: 'approvalMode',
  format: 'format',
} as const;

/** Settings that change where or how we connect: a change to one of them reconnects. */
export const CONNECTION_SETTINGS = [Setting.serverUrl, Setting.projectKey, Setting.protocol] as const;

export interface BridgeSettings {
  readonly serverUrl: string;
  readonly projectKey: string;
  readonly protocol: ProtocolSetting;
  readonly autoConnect: boolean;
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
  };
}

export function affectsConnection(e: vscode.ConfigurationChangeEvent): boolean {
  return CONNECTION_SETTINGS.some((key) => e.affectsConfiguration(`${SECTION}.${key}`));
}
