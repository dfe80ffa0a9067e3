/**
 * The chat as an editor tab: one WebviewPanel at a time, created by the command or restored by
 * the serializer after a reload. It only moves messages: everything it posts is checked against
 * the contract first, everything it receives is parsed by it, and the decisions are the feature's.
 */
import * as vscode from 'vscode';
import type { FromWebview, ToWebview } from './contract';
import { contract } from './lazyContract';
import { chatHtml, webviewOptions } from './html';

export const CHAT_VIEW_TYPE = 'agentBridge.chat';

export interface PanelHost {
  /** The whole state, sent as `init` whenever the webview (re)loads and says `ready`. */
  snapshot(): Extract<ToWebview, { type: 'init' }>;
  handle(message: Exclude<FromWebview, { type: 'ready' }>): void;
  warn(line: string): void;
}

export class ChatPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private panelSubscriptions: vscode.Disposable[] = [];
  /** Until the script says `ready`, posting would be lost; `init` on ready carries everything instead. */
  private ready = false;
  private readonly postEmitter = new vscode.EventEmitter<ToWebview>();
  /** Every message posted to the webview (after validation): for tests. */
  readonly onDidPost = this.postEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: PanelHost,
    private readonly title: () => string,
  ) {}

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  show(): void {
    if (this.panel) return this.panel.reveal(undefined, false);
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, this.title(), vscode.ViewColumn.Active, {
      ...webviewOptions(this.extensionUri),
      enableFindWidget: true,
    });
    this.attach(panel);
  }

  /** Takes over a panel: a new one, or one VS Code restored after a reload (WebviewPanelSerializer). */
  attach(panel: vscode.WebviewPanel): void {
    this.detach();
    this.panel = panel;
    this.ready = false;
    panel.title = this.title();
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'agent-bridge.svg');
    panel.webview.options = webviewOptions(this.extensionUri);
    panel.webview.html = chatHtml(panel.webview, this.extensionUri, this.title());
    this.panelSubscriptions = [
      panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      panel.onDidDispose(() => {
        if (this.panel === panel) this.detach();
      }),
    ];
  }

  /** A message from the webview (or a test posing as it). */
  receive(raw: unknown): void {
    const parsed = contract().parseFromWebview(raw);
    if (!parsed.ok) return this.host.warn(`chat webview sent a message outside the contract: ${parsed.error}`);
    if (parsed.message.type === 'ready') {
      this.ready = true;
      this.post(this.host.snapshot());
      return;
    }
    this.host.handle(parsed.message);
  }

  post(message: ToWebview): void {
    // A message outside the contract is a bug here, not the webview's to guess at: refuse it loudly.
    const checked = contract().ToWebviewSchema.safeParse(message);
    if (!checked.success) return this.host.warn(`refused to post a chat message outside the contract: ${checked.error.message}`);
    if (message.type !== 'init' && !this.ready) return;
    this.postEmitter.fire(checked.data);
    void this.panel?.webview.postMessage(checked.data);
  }

  private detach(): void {
    for (const d of this.panelSubscriptions) d.dispose();
    this.panelSubscriptions = [];
    this.panel = undefined;
    this.ready = false;
  }

  dispose(): void {
    const panel = this.panel;
    this.detach();
    panel?.dispose();
    this.postEmitter.dispose();
  }
}
