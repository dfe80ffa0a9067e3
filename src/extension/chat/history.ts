/**
 * Earlier conversations of this workspace: a New Session keeps the one it leaves here (its
 * transcript stays in workspace state under its session id), and Conversation History reopens one,
 * continuing under its session id, so a backend that still holds that session's context continues
 * it too. Bounded: the newest MAX_CONVERSATIONS are kept, older transcripts are deleted.
 */
import type { Entry } from './contract';
import { transcriptKey, type StateStore } from './transcript';

export interface PastConversation {
  readonly sessionId: string;
  /** The first message, cut to one line. */
  readonly title: string;
  /** When it was left (ms since the epoch). */
  readonly at: number;
  readonly messages: number;
}

export const MAX_CONVERSATIONS = 10;
const KEY = 'agentBridge.chat.history';
const TITLE_CHARS = 80;

export class ChatHistory {
  constructor(private readonly store: StateStore) {}

  list(): PastConversation[] {
    const raw = this.store.get<unknown>(KEY);
    if (!Array.isArray(raw)) return [];
    return raw.filter(
      (c): c is PastConversation =>
        typeof c === 'object' && c !== null && typeof (c as PastConversation).sessionId === 'string' && typeof (c as PastConversation).title === 'string' && typeof (c as PastConversation).at === 'number',
    );
  }

  /** Keeps a conversation being left (nothing to keep without a message); drops the oldest beyond the bound. */
  async keep(sessionId: string, entries: readonly Entry[], now = Date.now()): Promise<void> {
    const users = entries.filter((e): e is Extract<Entry, { kind: 'user' }> => e.kind === 'user');
    if (!users.length) {
      await this.store.update(transcriptKey(sessionId), undefined);
      return this.save(this.list().filter((c) => c.sessionId !== sessionId));
    }
    const line = users[0].text.replace(/\s+/g, ' ').trim();
    const title = line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
    const next = [{ sessionId, title, at: now, messages: users.length }, ...this.list().filter((c) => c.sessionId !== sessionId)];
    for (const old of next.slice(MAX_CONVERSATIONS)) await this.store.update(transcriptKey(old.sessionId), undefined);
    await this.save(next.slice(0, MAX_CONVERSATIONS));
  }

  /** Takes a conversation out of the list (it is being reopened: it is the current one now). */
  async take(sessionId: string): Promise<PastConversation | undefined> {
    const found = this.list().find((c) => c.sessionId === sessionId);
    if (found) await this.save(this.list().filter((c) => c.sessionId !== sessionId));
    return found;
  }

  /** Deletes a conversation and its transcript. */
  async remove(sessionId: string): Promise<void> {
    await this.store.update(transcriptKey(sessionId), undefined);
    await this.save(this.list().filter((c) => c.sessionId !== sessionId));
  }

  private save(list: readonly PastConversation[]): Promise<void> {
    return Promise.resolve(this.store.update(KEY, list));
  }
}
