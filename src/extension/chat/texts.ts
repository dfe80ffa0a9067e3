/**
 * The sentences the extension side of the chat writes (errors, connection hints, notices), through
 * vscode.l10n so they follow VS Code's display language (l10n/bundle.l10n.*.json).
 */
import * as vscode from 'vscode';
import type { BackendErrorCode } from '../../core/protocol/errors';
import type { ChatTexts } from './conversation';

/** A sentence per chat error code (docs/protocol.md §8.4), saying what happened and what to do. */
function explainError(code: string): string {
  const t = vscode.l10n.t;
  const known: Record<BackendErrorCode, string> = {
    PROJECT_NOT_FOUND: t('The backend does not know this project. Check the project key (setting agentBridge.projectKey; empty means the folder name) and that the project is registered on the backend.'),
    INVALID_REQUEST: t('The backend could not accept the request. This usually means the protocol versions differ: check that agentBridge.protocol (v1 or v2) matches the server URL.'),
    ANALYSIS_FAILED: t('The agent failed while working on this request. Try again or rephrase it; the backend log has the cause.'),
    TOOL_EXECUTION_FAILED: t('A tool the agent ran in this editor failed. The tool rows above show which one and why.'),
    MESSAGE_TOO_LARGE: t('A message went over the 10 MB limit. Ask about a smaller part of the code or narrow the search.'),
    REQUEST_OVERRIDDEN: t('A newer request replaced this one: the backend works on one request at a time per connection.'),
    ANALYSIS_TIMEOUT: t('The analysis took longer than the backend allows (5 minutes). Ask a narrower question or split it into steps.'),
  };
  return (known as Record<string, string | undefined>)[code] ?? t('The backend reported an error ({0}) that Agent Bridge does not know. Its message is below; the backend log may say more.', code);
}

/**
 * What a failed connection means and what to do about it, from the link's last error (a raw
 * `connect ECONNREFUSED 127.0.0.1:8080` tells a newcomer little). Undefined before any error.
 */
export function connectionHint(error: string | undefined, serverUrl: string): string | undefined {
  const t = vscode.l10n.t;
  if (!error) return undefined;
  if (/ECONNREFUSED|ECONNRESET|socket hang up/i.test(error)) return t('Nothing answers at {0}. Start the agent backend, or point agentBridge.serverUrl at the one you use.', serverUrl);
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/i.test(error)) return t('The host in {0} cannot be found. Check agentBridge.serverUrl.', serverUrl);
  if (/ETIMEDOUT|timed? ?out/i.test(error)) return t('The backend at {0} did not answer in time. Check that it is running and reachable from here.', serverUrl);
  if (/certificate|self[- ]signed|TLS|SSL/i.test(error)) return t('The backend\'s certificate is not trusted. See agentBridge.systemCertificates, or ask for a certificate your system trusts.');
  if (/token|401|403|unauthori[sz]ed|forbidden/i.test(error)) return t('The backend refused the connection. Set a token with Agent Bridge: Set Backend Token…, then Retry.');
  return t('Check that the agent backend is running and that agentBridge.serverUrl ({0}) points to it.', serverUrl);
}

export function chatTexts(): ChatTexts {
  const t = vscode.l10n.t;
  return {
    notConnected: t('Not connected to the agent backend: your message waits here and is sent as soon as the link is back. Stop cancels it.'),
    notSentQueued: t('Not sent: you stopped it before the link was back.'),
    stopped: t('Stopped waiting for the answer. The backend may still be working on it; late replies are not shown.'),
    timedOut: t('No answer within 5 minutes, so the chat stopped waiting. The backend may still be working on it.'),
    connectionLost: t('The connection to the backend dropped while it was answering, so this answer is incomplete.'),
    busy: t('The agent is still answering the previous message. Wait for it, or press Stop.'),
    overriddenStale: t('The backend dropped the request you stopped earlier and is working on the new one.'),
    explain: explainError,
  };
}
