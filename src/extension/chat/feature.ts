/**
 * The chat feature's wiring: the conversation, its stored transcript, the panel, and the backend
 * link's events flowing between them; the webview's messages are routed here to the part that
 * handles them (messageSender.ts, changeCards.ts, activeEditor.ts, attachments.ts). Its commands
 * are in commands.ts, the view and the serializer registered in register.ts.
 */
import * as vscode from 'vscode';
import type { ChangeQueue } from '../review/changeQueue';
import type { BridgeController } from '../connection/controller';
import type { SessionStore } from '../connection/session';
import { openServerUrlSetting, readSettings } from '../adapter/settings';
import { Mentions } from '../../core/chat/mentions';
import type { Logger } from '../../core/log';
import type { Workspace } from '../../core/workspace/workspace';
import type { ChangeGate } from '../../core/write/gate';
import { ActiveEditor } from './activeEditor';
import { ChatAttachments, selectionRange, showRefusal } from './attachments';
import { actOnCard, askWithdrawOnStop, changeCards } from './changeCards';
import { applyToEditor, insertAtCursor } from './codeActions';
import type { ConnectionView, Entry, FromWebview, SlashCommand, ToWebview } from './contract';
import { Conversation } from './conversation';
import { MessageSender } from './messageSender';
import { ChatSurfaces } from './panel';
import { chatTexts, connectionHint } from './texts';
import { webviewStrings } from './webviewStrings';
import { Transcript } from './transcript';
import { ChatHistory } from './history';
import { pickConversation } from './historyPick';
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
  readonly attachments: ChatAttachments;
  private readonly history: ChatHistory;
  // Each folder's `@` list, dropped with its Workspace: a WeakMap is the plain home for it.
  private readonly mentions = new WeakMap<Workspace, Mentions>();
  /** The backend's `/` commands (its last COMMANDS message). */
  private commands: SlashCommand[] = [];
  private readonly editor: ActiveEditor;
  private readonly sender: MessageSender;

  constructor(
    context: vscode.ExtensionContext,
    private readonly controller: BridgeController,
    private readonly sessions: SessionStore,
    private readonly log: Logger,
    private readonly changes?: ChangeQueue & ChangeGate,
  ) {
    this.transcript = new Transcript(context.workspaceState, sessions.id);
    this.history = new ChatHistory(context.workspaceState);
    this.attachments = new ChatAttachments(() => controller.workspace, (chips) => this.panel.post({ type: 'context', context: [...chips] }));
    this.panel = new ChatSurfaces(context.extensionUri, {
      snapshot: () => ({
        type: 'init',
        strings: webviewStrings(),
        connection: this.connectionView(),
        entries: [...this.transcript.entries],
        busy: this.conversation.busy,
        changes: changeCards(this.changes),
        readOnly: !vscode.workspace.isTrusted,
        context: [...this.attachments.list],
        ...(this.editor.file ? { activeFile: this.editor.file } : {}),
        commands: this.commands,
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
      readContext: (refs) => this.attachments.reread(refs),
    });
    const post = (message: ToWebview) => this.panel.post(message);
    this.sender = new MessageSender(this.conversation, this.transcript, this.attachments, post);
    this.editor = new ActiveEditor(() => controller.workspace, post);
    this.subscriptions.push(
      this.editor,
      controller.onDidChangeState((state) => {
        this.conversation.onConnectionState(state);
        this.panel.post({ type: 'connection', connection: this.connectionView() });
      }),
      controller.onDidReceiveMessage((m) => {
        if (m.type === 'COMMANDS') {
          this.commands = m.data.commands.map((c) => ({ name: c.name, description: c.description ?? c.usage ?? '' }));
          this.panel.post({ type: 'commands', commands: this.commands });
        }
        this.conversation.onServerMessage(m);
      }),
      controller.onDidFinishTool(({ call, result }) => this.conversation.onToolFinished(call, result)),
      // Restricted Mode ends without a reload: the read-only notice goes at once.
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.panel.post({ type: 'trust', readOnly: !vscode.workspace.isTrusted })),
    );
    if (changes) this.subscriptions.push(changes.onDidChange(() => this.panel.post({ type: 'changes', changes: changeCards(changes) })));
  }

  /** Add Selection to Chat (editor context menu, keybinding): the selected lines, or the whole file without a selection. */
  async addSelection(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return;
    const range = selectionRange(editor);
    const why = await this.attachments.add(range ? 'selection' : 'file', editor.document.uri.fsPath, range);
    if (why) return showRefusal(why);
    await this.panel.showDocked();
  }

  /** Add File to Chat (explorer and editor context menus): the clicked files, or the active editor's. */
  async addFiles(uris: readonly vscode.Uri[]): Promise<void> {
    const targets = uris.length ? uris : vscode.window.activeTextEditor ? [vscode.window.activeTextEditor.document.uri] : [];
    for (const uri of targets) {
      if (uri.scheme !== 'file') continue;
      const why = await this.attachments.add('file', uri.fsPath);
      if (why) showRefusal(why);
    }
    if (targets.length) await this.panel.showDocked();
  }

  private mentionsOf(ws: Workspace): Mentions {
    let m = this.mentions.get(ws);
    if (!m) this.mentions.set(ws, (m = new Mentions(ws)));
    return m;
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
   * a fresh handshake. The conversation left is kept in Conversation History, so nothing is lost
   * and nothing needs confirming. False while a turn runs.
   */
  async newSession(): Promise<boolean> {
    return this.switchConversation(this.sessions.newId());
  }

  /** Conversation History: pick an earlier conversation of this workspace to continue, or delete some. */
  async showHistory(): Promise<void> {
    const picked = await pickConversation(this.history);
    if (picked) await this.switchConversation(picked);
  }

  /** Leaves the current conversation (kept in History) for another session's: a new one, or one reopened. */
  private async switchConversation(sessionId: string): Promise<boolean> {
    if (this.conversation.busy) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Agent Bridge: the agent is still working on this conversation. Stop it first.'));
      return false;
    }
    const left = this.sessions.id;
    const leftEntries = [...this.transcript.entries];
    await this.transcript.switchTo(sessionId);
    await this.history.keep(left, leftEntries);
    await this.history.take(sessionId);
    this.conversation.reset();
    await this.sessions.switchTo(sessionId);
    this.attachments.clear();
    this.panel.post({ type: 'entries', entries: [...this.transcript.entries] });
    this.panel.post({ type: 'busy', busy: false });
    // Reconnect so the sessionId is in the handshake; a link the developer turned off stays off.
    if (this.controller.isActive) this.controller.connect();
    return true;
  }

  private handle(m: Exclude<FromWebview, { type: 'ready' }>): void {
    switch (m.type) {
      case 'send':
        return this.sender.send(m.text);
      case 'attach':
        void this.attachments.add(m.kind, m.path, m.startLine ? { startLine: m.startLine, endLine: m.endLine ?? m.startLine } : undefined, m.label).then((why) => why && showRefusal(why));
        return;
      case 'detach':
        return this.attachments.remove(m.id);
      case 'resend':
        return this.sender.resend(m.entryId);
      case 'edit':
        return this.sender.edit(m.entryId);
      case 'insertCode':
        void insertAtCursor(this.controller.workspace, this.editor.target(), m.text).then((why) => why && showRefusal(why));
        return;
      case 'applyCode':
        void applyToEditor(this.controller.workspace, this.changes, this.editor.target(), m.text).then((why) => why && showRefusal(why));
        return;
      case 'suggest': {
        const ws = this.controller.workspace;
        if (!ws) return this.panel.post({ type: 'suggestions', requestId: m.requestId, items: [] });
        void this.mentionsOf(ws)
          .suggest(m.query, 30)
          .then(
            // undefined: a newer keystroke asked meanwhile, and only the newest answer is shown
            (items) => items && this.panel.post({ type: 'suggestions', requestId: m.requestId, items }),
            (e: unknown) => this.log.warn(`chat: @ completion: ${String(e)}`),
          );
        return;
      }
      case 'stop':
        return void this.stop();
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
      case 'reject':
      case 'openDiff':
        return actOnCard(this.changes, m, () => this.panel.refocus(), this.log);
      case 'manageTrust':
        void vscode.commands.executeCommand('workbench.trust.manage');
        return;
      case 'openFile':
        void openFileRef(this.controller.workspace, m.path, m.line).then((why) => {
          if (why) vscode.window.setStatusBarMessage(`$(warning) ${why}`, 5000);
        });
        return;
      case 'openSettings':
        void openServerUrlSetting();
        return;
      default: {
        const unreachable: never = m;
        return unreachable;
      }
    }
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

  /**
   * Stop from the chat. Changes the turn proposed that still wait are not withdrawn unasked: the
   * developer picks whether they go with it, or cancels and nothing stops.
   */
  private async stop(): Promise<void> {
    const calls = this.conversation.turnCallIds();
    const waiting = (this.changes?.list() ?? []).filter((c) => calls.includes(c.id));
    if (!waiting.length) return this.conversation.stop();
    const withdraw = await askWithdrawOnStop(waiting);
    if (withdraw !== undefined) this.conversation.stop(withdraw);
    // Back in the message box the developer pressed Stop from.
    this.panel.post({ type: 'focus' });
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.conversation.dispose();
    this.transcript.dispose();
    this.panel.dispose();
  }
}
