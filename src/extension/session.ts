import { randomUUID } from 'node:crypto';
import type * as vscode from 'vscode';

const KEY = 'agentBridge.sessionId';

/** The conversation's session id: kept per workspace so it survives a reload, renewed on demand. */
export class SessionStore {
  constructor(private readonly state: vscode.Memento) {}

  get id(): string {
    let id = this.state.get<string>(KEY);
    if (!id) {
      id = randomUUID();
      void this.state.update(KEY, id);
    }
    return id;
  }

  async renew(): Promise<string> {
    const id = randomUUID();
    await this.state.update(KEY, id);
    return id;
  }
}
