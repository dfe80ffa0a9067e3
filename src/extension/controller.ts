import * as vscode from 'vscode';
import { Bridge } from '../core/bridge';
import { BridgeConnection, type ConnectionState } from '../core/connection';
import { Dispatcher } from '../core/dispatcher';
import type { Logger } from '../core/log';
import { ALL_TOOLS } from '../core/tools/registry';
import type { SessionStore } from './session';
import { readSettings } from './settings';
import { VscodeWorkspace } from './vscodeWorkspace';

interface Live {
  readonly connection: BridgeConnection;
  readonly dispatcher: Dispatcher;
  readonly bridge: Bridge;
  readonly unsubscribe: () => void;
}

/** Owns the link to the backend for this window: builds it from the settings, tears it down, reports its state. */
export class BridgeController implements vscode.Disposable {
  private live: Live | undefined;
  private readonly stateEmitter = new vscode.EventEmitter<ConnectionState>();
  readonly onDidChangeState = this.stateEmitter.event;

  constructor(
    private readonly sessions: SessionStore,
    private readonly log: Logger,
  ) {}

  get state(): ConnectionState {
    return this.live?.connection.state ?? 'disconnected';
  }

  get lastError(): string | undefined {
    return this.live?.connection.lastError;
  }

  get serverUrl(): string | undefined {
    return readSettings(vscode.workspace.workspaceFolders?.[0]).serverUrl;
  }

  get isActive(): boolean {
    return this.live !== undefined;
  }

  /** (Re)connects with the current settings. Returns a reason when it cannot start. */
  connect(): string | undefined {
    this.teardown();
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) return 'Open a folder first: Agent Bridge answers tool calls against a workspace folder.';
    if (folder.uri.scheme !== 'file') return `Agent Bridge needs a folder on disk; this one is ${folder.uri.scheme}:.`;
    const settings = readSettings(folder);
    const workspace = new VscodeWorkspace(folder);
    const dispatcher = new Dispatcher({
      workspace,
      tools: ALL_TOOLS,
      log: this.log,
      writeRefusal: () =>
        vscode.workspace.isTrusted ? undefined : 'This workspace is not trusted, so Agent Bridge only answers read-only tools.',
    });
    const connection = new BridgeConnection({
      serverUrl: settings.serverUrl,
      protocol: settings.protocol,
      sessionId: this.sessions.id,
      projectKey: settings.projectKey,
      projectPath: workspace.root,
      log: this.log,
    });
    const bridge = new Bridge(connection, dispatcher, { log: this.log });
    const unsubscribe = connection.onState((s) => this.stateEmitter.fire(s));
    this.live = { connection, dispatcher, bridge, unsubscribe };
    try {
      connection.connect();
    } catch (e) {
      this.teardown();
      return (e as Error).message;
    }
    return undefined;
  }

  disconnect(): void {
    this.teardown();
    this.stateEmitter.fire('disconnected');
  }

  private teardown(): void {
    const live = this.live;
    if (!live) return;
    this.live = undefined;
    live.dispatcher.cancelAll('disconnected');
    live.bridge.dispose();
    live.connection.disconnect();
    live.unsubscribe();
  }

  dispose(): void {
    this.teardown();
    this.stateEmitter.dispose();
  }
}
