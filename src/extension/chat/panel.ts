/**
 * Where the chat is shown: docked in the Agent Bridge side bar (a WebviewView the developer may
 * drag to the secondary side bar) and, when asked, as an editor tab (a WebviewPanel, restored by
 * the serializer after a reload). Both show the one conversation: every message goes to each
 * surface whose script said `ready`. Surfaces only move messages: everything posted is checked
 * against the contract first, everything received is parsed by it, and the decisions are the feature's.
 */
import * as vscode from 'vscode';
import type { FromWebview, ToWebview } from './contract';
import { contract } from './lazyContract';
import { chatHtml, webviewOptions } from './html';

export const CHAT_VIEW_TYPE = 'agentBridge.chat';
export const CHAT_SIDEBAR_VIEW_ID = 'agentBridge.chatView';

export interface PanelHost {
  /** The whole state, sent as `init` whenever a webview (re)loads and says `ready`. */
  snapshot(): Extract<ToWebview, { type: 'init' }>;
  handle(message: Exclude<FromWebview, { type: 'ready' }>): void;
  warn(line: string): void;
}

/** One webview showing the chat; until its script says `ready`, posting to it would be lost. */
interface Surface {
  readonly webview: vscode.Webview;
  ready: boolean;
  readonly subscriptions: vscode.Disposable[];
}

export class ChatSurfaces implements vscode.WebviewViewProvider, vscode.Disposable {
  private panel: { readonly panel: vscode.WebviewPanel; readonly surface: Surface } | undefined;
  private view: { readonly view: vscode.WebviewView; readonly surface: Surface } | undefined;
  /** The surface the developer last acted in: where the focus goes back after a decision they made there. */
  private lastFrom: Surface | undefined;
  private readonly postEmitter = new vscode.EventEmitter<ToWebview>();
  /** Every message posted (after validation), once, whatever the number of surfaces: for tests. */
  readonly onDidPost = this.postEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: PanelHost,
    private readonly title: () => string,
  ) {}

  /** Whether the chat is open as an editor tab. */
  get isOpenInEditor(): boolean {
    return this.panel !== undefined;
  }

  /** Whether the docked chat's webview exists (its view was shown at least once and not disposed). */
  get isDocked(): boolean {
    return this.view !== undefined;
  }

  /** Shows the docked chat and puts the cursor in its message box. */
  async showDocked(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_SIDEBAR_VIEW_ID}.focus`);
    this.view?.view.show(false);
    this.focus(this.view?.surface);
  }

  /** Opens (or reveals) the chat as an editor tab, the cursor in its message box. */
  showInEditor(): void {
    if (this.panel) {
      this.panel.panel.reveal(undefined, false);
      this.focus(this.panel.surface);
      return;
    }
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, this.title(), vscode.ViewColumn.Active, {
      ...webviewOptions(this.extensionUri),
      enableFindWidget: true,
    });
    this.attach(panel);
  }

  /** Takes over a panel: a new one, or one VS Code restored after a reload (WebviewPanelSerializer). */
  attach(panel: vscode.WebviewPanel): void {
    this.dropPanel();
    panel.title = this.title();
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'agent-bridge.svg');
    const surface = this.open(panel.webview);
    surface.subscriptions.push(
      panel.onDidDispose(() => {
        if (this.panel?.panel === panel) this.dropPanel();
      }),
    );
    this.panel = { panel, surface };
  }

  /** VS Code shows the docked view (first time, or again after it was disposed while hidden). */
  resolveWebviewView(view: vscode.WebviewView): void {
    this.dropView();
    view.title = this.title();
    const surface = this.open(view.webview);
    surface.subscriptions.push(
      view.onDidDispose(() => {
        if (this.view?.view === view) this.dropView();
      }),
    );
    this.view = { view, surface };
  }

  private open(webview: vscode.Webview): Surface {
    webview.options = webviewOptions(this.extensionUri);
    webview.html = chatHtml(webview, this.extensionUri, this.title());
    const surface: Surface = { webview, ready: false, subscriptions: [] };
    surface.subscriptions.push(webview.onDidReceiveMessage((raw: unknown) => this.receive(raw, surface)));
    return surface;
  }

  /** A message from a webview (or, without `from`, a test posing as one). */
  receive(raw: unknown, from?: Surface): void {
    const parsed = contract().parseFromWebview(raw);
    if (!parsed.ok) return this.host.warn(`chat webview sent a message outside the contract: ${parsed.error}`);
    if (parsed.message.type === 'ready') {
      if (!from) return;
      from.ready = true;
      this.send({ ...this.host.snapshot(), docked: from === this.view?.surface }, [from]);
      return;
    }
    if (from) this.lastFrom = from;
    this.host.handle(parsed.message);
  }

  /**
   * The cursor back in the message box of the chat the developer acted in (after a decision
   * whose reason box or closing diff took the focus), never left in an editor they were not in.
   */
  async refocus(): Promise<void> {
    if (this.lastFrom && this.lastFrom === this.panel?.surface) return this.showInEditor();
    if (this.lastFrom && this.lastFrom === this.view?.surface) return this.showDocked();
  }

  /** Posts to every ready surface (`init` goes only to the surface that asked for it). */
  post(message: ToWebview): void {
    if (message.type === 'init') return;
    this.send(message, this.surfaces().filter((s) => s.ready));
  }

  private focus(surface: Surface | undefined): void {
    // Not ready yet: its `init` focuses the message box anyway.
    if (surface?.ready) this.send({ type: 'focus' }, [surface]);
  }

  private send(message: ToWebview, to: readonly Surface[]): void {
    // A message outside the contract is a bug here, not the webview's to guess at: refuse it loudly.
    const checked = contract().ToWebviewSchema.safeParse(message);
    if (!checked.success) return this.host.warn(`refused to post a chat message outside the contract: ${checked.error.message}`);
    this.postEmitter.fire(checked.data);
    for (const s of to) void s.webview.postMessage(checked.data);
  }

  private surfaces(): Surface[] {
    return [this.view?.surface, this.panel?.surface].filter((s): s is Surface => s !== undefined);
  }

  private dropPanel(): void {
    for (const d of this.panel?.surface.subscriptions ?? []) d.dispose();
    this.panel = undefined;
  }

  private dropView(): void {
    for (const d of this.view?.surface.subscriptions ?? []) d.dispose();
    this.view = undefined;
  }

  dispose(): void {
    const panel = this.panel?.panel;
    this.dropPanel();
    this.dropView();
    panel?.dispose();
    this.postEmitter.dispose();
  }
}
