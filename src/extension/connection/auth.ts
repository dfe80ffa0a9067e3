import * as vscode from 'vscode';

/** The SecretStorage key of the backend token. The token is never put in settings or logs. */
const TOKEN_KEY = 'agentBridge.token';

/** The backend token in VS Code's SecretStorage (the OS keychain on desktop). */
export class TokenStore implements vscode.Disposable {
  private last: string | undefined;
  private readonly emitter = new vscode.EventEmitter<void>();
  /** The token was set or removed (here or in another window). */
  readonly onDidChange = this.emitter.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((e) => {
      if (e.key === TOKEN_KEY) this.emitter.fire();
    });
  }

  async get(): Promise<string | undefined> {
    const token = (await this.secrets.get(TOKEN_KEY))?.trim();
    this.last = token || undefined;
    return this.last;
  }

  /** The token as last read or written, for scrubbing log lines (which cannot wait for a read). */
  known(): string | undefined {
    return this.last;
  }

  /** Stores the token; empty or undefined removes it. */
  async set(token: string | undefined): Promise<void> {
    const clean = token?.trim();
    if (clean) {
      this.last = clean;
      await this.secrets.store(TOKEN_KEY, clean);
    } else {
      await this.secrets.delete(TOKEN_KEY);
      this.last = undefined;
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }
}

/**
 * `agentBridge.setToken`: asks for the token in a password box (empty removes it). Tests and
 * scripts may pass it as the argument instead. Changing it reconnects (the controller listens).
 */
export async function setToken(tokens: TokenStore, value?: unknown): Promise<void> {
  const t = vscode.l10n.t;
  const token =
    typeof value === 'string'
      ? value
      : await vscode.window.showInputBox({
          title: t('Agent Bridge: backend token'),
          prompt: t('The token the agent backend expects. It is kept in VS Code\'s secret storage. Leave empty to remove it.'),
          password: true,
          ignoreFocusOut: true,
        });
  if (token === undefined) return;
  await tokens.set(token);
  if (typeof value !== 'string') {
    void vscode.window.showInformationMessage(token.trim() ? t('Agent Bridge: token saved.') : t('Agent Bridge: token removed.'));
  }
}
