/**
 * `agentBridge.testConnection`: one handshake with the configured backend (agentBridge.serverUrl,
 * the token from secret storage) through the link's own code, and what came of it in words of
 * the display language, with the one action that helps. The live link is left alone.
 */
import * as vscode from 'vscode';
import type { ProbeOutcome } from '../../core/link/probe';
import type { Logger } from '../../core/log';
import type { TokenStore } from './auth';
import type { ServedFolder } from '../adapter/folders';
import { openServerUrlSetting, readSettings } from '../adapter/settings';
import { inert } from '../adapter/inert';

/** What the command returns (for the walkthrough's tests and other callers): the outcome and the sentence shown. */
export interface TestConnectionResult {
  readonly ok: boolean;
  readonly kind: string;
  readonly message: string;
}

const TIMEOUT_MS = 10_000;

/** The sentence for a probe's outcome: what is wrong and what to do about it. */
function describeProbe(o: ProbeOutcome): string {
  const t = vscode.l10n.t;
  if (o.ok) {
    return o.tokenSent
      ? t('The backend at {0} accepted the connection and your token (protocol {1}).', o.url, o.protocol)
      : t('The backend at {0} accepted the connection (protocol {1}, no token sent).', o.url, o.protocol);
  }
  switch (o.kind) {
    case 'badUrl':
      return t('agentBridge.serverUrl ({0}) is not a WebSocket URL: it must start with ws:// or wss://, for example ws://localhost:8080/ws/agent/chat.', o.url);
    case 'insecureToken':
      return t('Not tried: your token would travel unencrypted to {0} over ws://. Use a wss:// URL for a backend on another machine.', o.url);
    case 'refused':
      return t('Nothing is listening at {0} (connection refused). Start the agent backend (or the dev backend), or correct the host and port in agentBridge.serverUrl.', o.url);
    case 'dns':
      return t('The host name in {0} cannot be found (DNS). Check its spelling in agentBridge.serverUrl, and your network or VPN.', o.url);
    case 'tls':
      return t('The secure connection to {0} failed (TLS): {1}', o.url, inert(o.detail));
    case 'unauthorized':
      return o.tokenSent
        ? t('The backend at {0} refused your token. Set the right one with Agent Bridge: Set Backend Token….', o.url)
        : t('The backend at {0} requires a token. Set it with Agent Bridge: Set Backend Token….', o.url);
    case 'forbidden':
      return t('The backend at {0} refused this client (HTTP 403): the token has no access here, or the backend accepts only certain hosts or origins.', o.url);
    case 'notFound':
      return t('A server answers at {0}, but it has no WebSocket endpoint at that path (HTTP 404). Check the path in agentBridge.serverUrl: /ws/agent/chat (v2) or /ws/analyze (v1).', o.url);
    case 'httpStatus':
      return t('The server at {0} answered HTTP {1} instead of opening a WebSocket. Check that agentBridge.serverUrl points to the agent backend.', o.url, String(o.status ?? '?'));
    case 'timeout':
      return t('No answer from {0} within {1} seconds. The host may be unreachable from here (firewall, VPN, proxy), or the backend is stuck.', o.url, String(TIMEOUT_MS / 1000));
    case 'closed':
      return t('The server at {0} closed the connection during the handshake. Check that it is the agent backend and that it speaks WebSocket on that port.', o.url);
    default:
      return t('Could not connect to {0}: {1}', o.url, inert(o.detail));
  }
}

export interface TestConnectionDeps {
  readonly folders: ServedFolder;
  readonly tokens: TokenStore;
  readonly log: Logger;
  readonly sessionId: () => string;
  /** Whether the live link is wanted: then OK offers nothing (connecting again would withdraw waiting changes). */
  readonly linkActive: () => boolean;
}

export async function testConnection({ folders, tokens, log, sessionId, linkActive }: TestConnectionDeps): Promise<TestConnectionResult> {
  const t = vscode.l10n.t;
  const folder = folders.current;
  const settings = readSettings(folder);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { probeBackend, systemTrust, tokenAuth } = require('./link') as typeof import('./link');
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: t('Agent Bridge: testing the connection to {0}…', settings.serverUrl) },
    () =>
      probeBackend({
        serverUrl: settings.serverUrl,
        protocol: settings.protocol,
        // Its own session id: the backend must not take the probe for the live link's reconnect.
        sessionId: `${sessionId()}-test`,
        projectKey: settings.projectKey,
        projectPath: folder?.uri.fsPath ?? '',
        log,
        ...tokenAuth(() => tokens.get()),
        trust: settings.systemCertificates ? () => systemTrust() : undefined,
        timeoutMs: TIMEOUT_MS,
      }),
  );
  const message = describeProbe(outcome);
  log.info(`Test Connection: ${outcome.ok ? 'ok' : `${outcome.kind} (${outcome.detail})`}`);
  void offerNext(outcome, message, linkActive());
  return { ok: outcome.ok, kind: outcome.ok ? 'ok' : outcome.kind, message };
}

/** Shows the sentence with the action that helps next; not awaited, so the command returns at once. */
async function offerNext(outcome: ProbeOutcome, message: string, linkActive: boolean): Promise<void> {
  const t = vscode.l10n.t;
  const settingsButton = t('Open Settings');
  const tokenButton = t('Set Backend Token…');
  const connectButton = t('Connect');
  const logButton = t('Show Log');
  if (outcome.ok) {
    // The verdict first: a long URL must not push it out of the toast.
    const picked = await vscode.window.showInformationMessage(`Agent Bridge: ${t('Connection works.')} ${message}`, ...(linkActive ? [] : [connectButton]));
    if (picked === connectButton) await vscode.commands.executeCommand('agentBridge.connect');
    return;
  }
  const aboutToken = outcome.kind === 'unauthorized' || outcome.kind === 'forbidden';
  const picked = await vscode.window.showErrorMessage(`Agent Bridge: ${t('Cannot connect.')} ${message}`, aboutToken ? tokenButton : settingsButton, logButton);
  if (picked === settingsButton) await openServerUrlSetting();
  else if (picked === tokenButton) await vscode.commands.executeCommand('agentBridge.setToken');
  else if (picked === logButton) await vscode.commands.executeCommand('agentBridge.showLog');
}
