import { randomUUID } from 'node:crypto';
import type * as vscode from 'vscode';

const KEY = 'agentBridge.sessionId';

/** The conversation's session id: kept per workspace so it survives a reload, renewed on demand. */
export class SessionStore {
  private readonly renewed = new Set<() => void>();

  constructor(private readonly state: vscode.Memento) {}

  /** Called after a new conversation begins (the Agent Changes list folds the old one away). */
  onDidRenew(listener: () => void): vscode.Disposable {
    this.renewed.add(listener);
    return { dispose: () => this.renewed.delete(listener) };
  }

  get id(): string {
    let id = this.state.get<string>(KEY);
    if (!id) {
      id = randomUUID();
      void this.state.update(KEY, id);
    }
    return id;
  }

  /** A fresh id, not yet in use. */
  newId(): string {
    return randomUUID();
  }

  /** Continues an earlier conversation under its own id (Conversation History). */
  async switchTo(id: string): Promise<void> {
    await this.state.update(KEY, id);
    for (const l of this.renewed) l();
  }
}
