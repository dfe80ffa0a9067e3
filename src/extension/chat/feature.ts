/**
 * The chat feature's wiring: the conversation, its stored transcript, the panel, and the backend
 * link's events flowing between them. Commands and the serializer are registered in register.ts.
 */
import * as vscode from 'vscode';
import type { ChangeQueue } from '../approval/changeQueue';
import { inert } from '../approval/inert';
import { askReason } from '../approval/pendingView';
import type { BridgeController } from '../controller';
import type { SessionStore } from '../session';
import { readSettings } from '../settings';
import type { ChangeCard, ConnectionView, Entry, FromWebview, ToWebview } from './contract';
import { Conversation } from './conversation';
import { ChatSurfaces } from './panel';
import { chatTexts, connectionHint, webviewStrings } from './texts';
import { Transcript } from './transcript';
import { openFileRef } from './openFileRef';

/** What the extension exports about the chat, for its integration tests and for automation. */
export interface ChatApi {
  readonly onDidPostMessage: vscode.Event<ToWebview>;
  /** Feeds a message in as if the webview had posted it. */
  receive(message: unknown): void;
  /** The chat is open as an editor tab. */
  isOpen(): boolean;
  /** The docked chat (side bar) has a live webview. */
  isDocked(): boolean;
  entries(): readonly Entry[];
}

export class ChatFeature implements vscode.Disposable {
  readonly panel: ChatSurfaces;
  private readonly transcript: Transcript;
  private readonly conversation: Conversation;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    context: vscode.ExtensionContext,
    private readonly controller: BridgeController,
    private readonly sessions: SessionStore,
    private readonly log: vscode.LogOutputChannel,
    private readonly changes?: ChangeQueue,
  ) {
    this.transcript = new Transcript(context.workspaceState, sessions.id);
    this.panel = new ChatSurfaces(context.extensionUri, {
      snapshot: () => ({
        type: 'init',
        strings: webviewStrings(),
        connection: this.connectionView(),
        entries: [...this.transcript.entries],
        busy: this.conversation.busy,
        changes: this.changeCards(),
        readOnly: !vscode.workspace.isTrusted,
      }),
      handle: (m) => this.handle(m),
      warn: (line) => log.warn(line),
    }, () => vscode.l10n.t('Agent Chat'));
    this.conversation = new Conversation(controller, () => this.target(), this.transcript, chatTexts(), {
      onEntry: (entry) => this.panel.post({ type: 'entry', entry }),
      onBusy: (busy) => this.panel.post({ type: 'busy', busy }),
      onWithdraw: (ids) => {
        for (const id of ids) if (changes?.list().some((c) => c.id === id)) void changes.withdraw(id);
      },
    });
    this.subscriptions.push(
      controller.onDidChangeState((state) => {
        this.conversation.onConnectionState(state);
        this.panel.post({ type: 'connection', connection: this.connectionView() });
      }),
      controller.onDidReceiveMessage((m) => this.conversation.onServerMessage(m)),
      controller.onDidFinishTool(({ call, result }) => this.conversation.onToolFinished(call, result)),
      // Restricted Mode ends without a reload: the read-only notice goes at once.
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.panel.post({ type: 'trust', readOnly: !vscode.workspace.isTrusted })),
    );
    if (changes) this.subscriptions.push(changes.onDidChange(() => this.panel.post({ type: 'changes', changes: this.changeCards() })));
  }

  get api(): ChatApi {
    return {
      onDidPostMessage: this.panel.onDidPost,
      receive: (m) => this.panel.receive(m),
      isOpen: () => this.panel.isOpenInEditor,
      isDocked: () => this.panel.isDocked,
      entries: () => this.transcript.entries,
    };
  }

  /**
   * Starts over: a new session id (so the backend starts a new conversation), an empty transcript,
   * a fresh handshake. Asks first when there is a conversation to lose (`confirmed` skips that,
   * for automation and tests); false when the developer kept the conversation.
   */
  async newSession(confirmed = false): Promise<boolean> {
    if (!confirmed && this.transcript.entries.length > 0) {
      const t = vscode.l10n.t;
      const start = t('Start New Session');
      const picked = await vscode.window.showWarningMessage(t('Start a new session? The agent starts a new conversation and this transcript is cleared.'), { modal: true }, start);
      if (picked !== start) return false;
    }
    this.conversation.reset();
    const id = await this.sessions.renew();
    await this.transcript.reset(id);
    this.panel.post({ type: 'entries', entries: [] });
    this.panel.post({ type: 'busy', busy: false });
    // Reconnect so the new sessionId is in the handshake; a link the developer turned off stays off.
    if (this.controller.isActive) this.controller.connect();
    return true;
  }

  private handle(m: Exclude<FromWebview, { type: 'ready' }>): void {
    switch (m.type) {
      case 'send':
        this.conversation.send(m.text);
        return;
      case 'stop':
        return this.conversation.stop();
      case 'retry':
        void vscode.commands.executeCommand('agentBridge.connect');
        return;
      case 'newSession':
        void this.newSession();
        return;
      case 'copy':
        void vscode.env.clipboard.writeText(m.text);
        return;
      case 'approve':
        return this.onChange(m.id, (q) => q.approve(m.id));
      case 'reject':
        // The card asks for the reason too (optional); Escape keeps the change waiting.
        return this.onChange(m.id, async (q) => {
          const reason = await askReason();
          if (reason !== undefined) await q.reject(m.id, reason);
        });
      case 'openDiff':
        return this.onChange(m.id, (q) => q.showDiff(m.id));
      case 'manageTrust':
        void vscode.commands.executeCommand('workbench.trust.manage');
        return;
      case 'openFile':
        void openFileRef(this.controller.workspace, m.path, m.line).then((why) => {
          if (why) vscode.window.setStatusBarMessage(`$(warning) ${why}`, 5000);
        });
        return;
      case 'openSettings':
        // agentBridge.serverUrl is machine-scoped: in a remote window (SSH, WSL, code-server) it is
        // set in the Remote tab; the User tab would say "No Settings Found".
        void vscode.commands.executeCommand(vscode.env.remoteName ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings', { query: 'agentBridge.serverUrl' });
        return;
      default: {
        const unreachable: never = m;
        return unreachable;
      }
    }
  }

  private onChange(id: string, act: (q: ChangeQueue) => Promise<void>): void {
    if (!this.changes) return;
    act(this.changes).catch((e: unknown) => {
      const reason = e instanceof Error ? e.message : String(e);
      this.log.error(`chat: change ${id}: ${reason}`);
      void vscode.window.showErrorMessage(`Agent Bridge: ${inert(reason)}`);
    });
  }

  private target() {
    const folder = this.controller.folders.current;
    return { sessionId: this.sessions.id, projectKey: readSettings(folder).projectKey, projectPath: folder?.uri.fsPath ?? '' };
  }

  private connectionView(): ConnectionView {
    const state = this.controller.state;
    const detail = state === 'connected' ? this.controller.serverUrl : this.controller.lastError;
    const hint = state === 'connected' ? undefined : connectionHint(this.controller.lastError, this.controller.serverUrl ?? '');
    const retryAt = state === 'reconnecting' ? this.controller.retryAt : undefined;
    return { state, ...(detail ? { detail } : {}), ...(hint ? { hint } : {}), ...(retryAt ? { retryAt } : {}) };
  }

  private changeCards(): ChangeCard[] {
    return (this.changes?.list() ?? []).map((c) => ({
      id: c.id,
      toolName: c.toolName,
      relativePath: c.relativePath,
      description: c.description,
      created: c.created,
      added: c.added,
      removed: c.removed,
    }));
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.conversation.dispose();
    this.transcript.dispose();
    this.panel.dispose();
  }
}
