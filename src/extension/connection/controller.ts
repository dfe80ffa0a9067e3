import * as vscode from 'vscode';
import type { Outbox } from '../../core/link/bridge';
import type { ConnectionState } from '../../core/link/connection';
import type { Link } from '../../core/link/startLink';
import type { ChangeGate } from '../../core/write/gate';
import { redactingLogger, type Logger } from '../../core/log';
import type { ClientMessage, ProtocolVersion, ServerMessage, ToolCall, ToolResultMessage } from '../../core/protocol/messages';
import type { TokenStore } from './auth';
import type { ServedFolder } from '../adapter/folders';
import type { SessionStore } from './session';
import { readResultRetentionMs, readSettings, readToolLimits } from '../adapter/settings';
import { VscodeWorkspace } from '../adapter/vscodeWorkspace';

/** The connection, dispatcher and tools, loaded on first use (see link.ts). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const link = (): typeof import('./link') => require('./link') as typeof import('./link');

interface Live {
  readonly link: Link;
  readonly unsubscribe: () => void;
}

/** Owns the link to the backend for this window: builds it from the settings, tears it down, reports its state. */
export class BridgeController implements vscode.Disposable {
  private live: Live | undefined;
  /** The settings the live link was made with, to tell whether a configuration change moves it. */
  private liveSettings: string | undefined;
  /** Kept across reconnects, so caches keyed by the workspace (the code index) survive them. */
  private workspaceValue: VscodeWorkspace | undefined;
  private readonly stateEmitter = new vscode.EventEmitter<ConnectionState>();
  readonly onDidChangeState = this.stateEmitter.event;
  private readonly messageEmitter = new vscode.EventEmitter<ServerMessage>();
  /** Every parsed message from the backend (chat traffic, THINKING, TOOL_CALL, ...), for the chat panel. */
  readonly onDidReceiveMessage = this.messageEmitter.event;
  private readonly toolEmitter = new vscode.EventEmitter<{ call: ToolCall; result: ToolResultMessage }>();
  /** A tool call was answered (TOOL_CALL arrivals come through onDidReceiveMessage). */
  readonly onDidFinishTool = this.toolEmitter.event;

  private readonly log: Logger;
  /**
   * Answers waiting for the link, kept across disconnects and reconnects of one session
   * (agentBridge.resultRetentionSeconds): calls cancelled by a disconnect answer CANCELLED into it,
   * and the backend gets those answers after the next connect with the same sessionId.
   */
  private outbox: { sessionId: string; box: Outbox } | undefined;
  private readonly tokenSubscription: vscode.Disposable | undefined;
  /** The write journal of the served folder and session: kept across reconnects (see writeJournal.ts). */
  private journal: { key: string; journal: import('../../core/link/writeJournal').WriteJournal } | undefined;

  constructor(
    private readonly sessions: SessionStore,
    log: Logger,
    private readonly changes: ChangeGate,
    /** The folder to serve (multi-root workspaces: the one the developer chose). */
    readonly folders: ServedFolder,
    private readonly tokens?: TokenStore,
    /** The extension's own storage folder, where write journals live; none: in memory only. */
    private readonly stateDir?: string,
  ) {
    // The token never reaches the log, whatever line would carry it.
    this.log = redactingLogger(log, () => [tokens?.known()]);
    // A new or removed token applies at once: reconnect if the link is wanted.
    this.tokenSubscription = tokens?.onDidChange(() => {
      if (this.isActive) this.connect();
    });
  }

  get state(): ConnectionState {
    return this.live?.link.connection.state ?? 'disconnected';
  }

  get lastError(): string | undefined {
    return this.live?.link.connection.lastError;
  }

  /** When the next reconnect attempt starts (ms since the epoch), while one is scheduled. */
  get retryAt(): number | undefined {
    return this.live?.link.connection.retryAt;
  }

  get serverUrl(): string | undefined {
    return readSettings(this.folders.current).serverUrl;
  }

  /** The workspace the tools run against (undefined before the first connect). */
  get workspace(): VscodeWorkspace | undefined {
    return this.workspaceValue;
  }

  get isActive(): boolean {
    return this.live !== undefined;
  }

  /** The protocol the live link speaks (from the settings when there is no link). */
  get protocol(): ProtocolVersion {
    if (this.live) return this.live.link.connection.protocol;
    const settings = readSettings(this.folders.current);
    return link().resolveProtocol(settings.serverUrl, settings.protocol);
  }

  /** `requestId` from the backend's CONNECTED (v1 multi-turn). */
  get requestId(): string | undefined {
    return this.live?.link.connection.requestId;
  }

  /** Sends a message to the backend; false when the link is down. */
  send(message: ClientMessage): boolean {
    return this.live?.link.connection.send(message) ?? false;
  }

  /** (Re)connects with the current settings. Returns a reason when it cannot start. */
  connect(): string | undefined {
    this.teardown();
    const folder = this.folders.current;
    if (!folder) return vscode.l10n.t('Open a folder first: Agent Bridge answers tool calls against a workspace folder.');
    if (folder.uri.scheme !== 'file') return vscode.l10n.t('Agent Bridge needs a folder on disk; this one is {0}:.', folder.uri.scheme);
    const settings = readSettings(folder);
    this.liveSettings = JSON.stringify(settings);
    if (this.workspaceValue?.folderUri !== folder.uri.toString()) this.workspaceValue = new VscodeWorkspace(folder);
    const workspace = this.workspaceValue;
    const { ALL_TOOLS, startLink, Outbox, systemTrust, tokenAuth, journalDirFor, WriteJournal } = link();
    const journalKey = `${this.sessions.id}\n${workspace.root}`;
    if (this.journal?.key !== journalKey) {
      const journal = this.stateDir ? WriteJournal.forSession(journalDirFor(this.stateDir, workspace.root), this.sessions.id, this.log) : new WriteJournal(undefined, this.log);
      this.journal = { key: journalKey, journal };
    }
    const tokens = this.tokens;
    const sessionId = this.sessions.id;
    if (this.outbox?.sessionId !== sessionId) {
      this.outbox?.box.clear('the session changed');
      this.outbox = { sessionId, box: new Outbox(this.log, readResultRetentionMs) };
    }
    const live = startLink({
      dispatcher: {
        workspace,
        tools: ALL_TOOLS,
        log: this.log,
        changes: this.changes,
        writeRefusal: () =>
          vscode.workspace.isTrusted ? undefined : 'This workspace is not trusted, so Agent Bridge only answers read-only tools.',
        limits: readToolLimits,
        journal: this.journal.journal,
      },
      connection: {
        serverUrl: settings.serverUrl,
        protocol: settings.protocol,
        sessionId,
        projectKey: settings.projectKey,
        projectPath: workspace.root,
        ...(tokens ? tokenAuth(() => tokens.get()) : {}),
        // Node's roots are not the OS store: a backend signed by a company CA would be refused without this.
        trust: settings.systemCertificates ? () => systemTrust() : undefined,
      },
      outbox: this.outbox.box,
    });
    const offState = live.connection.onState((s) => this.stateEmitter.fire(s));
    const offMessage = live.connection.onMessage((m) => this.messageEmitter.fire(m));
    // Kept after a teardown: calls cancelled by it still answer, and the chat must see them end.
    live.onAnswer((call, result) => this.toolEmitter.fire({ call, result }));
    const unsubscribe = () => {
      offState();
      offMessage();
    };
    this.live = { link: live, unsubscribe };
    try {
      live.connect();
    } catch (e) {
      this.teardown();
      return (e as Error).message;
    }
    return undefined;
  }

  /**
   * Whether the connection settings in force differ from the live link's. A change event alone is
   * no reason: a workspace writing `agentBridge.serverUrl` into its own settings fires one, but
   * that value is ignored (adapter/settings.ts), and reconnecting would withdraw every pending approval.
   */
  settingsMoved(): boolean {
    return JSON.stringify(readSettings(this.folders.current)) !== this.liveSettings;
  }

  disconnect(): void {
    this.teardown();
    this.stateEmitter.fire('disconnected');
  }

  private teardown(): void {
    const live = this.live;
    if (!live) return;
    this.live = undefined;
    live.link.stop('disconnected');
    live.unsubscribe();
  }

  dispose(): void {
    this.tokenSubscription?.dispose();
    this.teardown();
    this.stateEmitter.dispose();
    this.messageEmitter.dispose();
    this.toolEmitter.dispose();
  }
}
