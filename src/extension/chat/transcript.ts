/**
 * The conversation of one session, kept in workspaceState under its sessionId so reopening the
 * panel (or reloading the window) shows it again. Bounded: a long session must not bloat the
 * workspace storage, so old entries and long texts are cut.
 */
import type { Entry } from './contract';
import { contract } from './lazyContract';

/** The part of vscode.Memento this needs; tests pass a Map-backed fake. */
export interface StateStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export const MAX_ENTRIES = 200;
/** Per text field; a tool's full output stays in the log, the transcript keeps its head. */
const MAX_TEXT = 20_000;
/** Whole transcript, serialized. */
const MAX_BYTES = 1_000_000;

const KEY_PREFIX = 'agentBridge.chat.transcript.';

export function transcriptKey(sessionId: string): string {
  return `${KEY_PREFIX}${sessionId}`;
}

/** Cuts a text to `max` characters, saying so at the end. */
function clip(value: string, max = MAX_TEXT): string {
  return value.length <= max ? value : `${value.slice(0, max)}\n… (${value.length - max} more characters not kept)`;
}

function clipEntry(entry: Entry): Entry {
  switch (entry.kind) {
    case 'user':
    case 'thinking':
    case 'notice':
      return { ...entry, text: clip(entry.text) };
    case 'answer':
      return { ...entry, markdown: clip(entry.markdown) };
    case 'tool':
      return { ...entry, output: entry.output === undefined ? undefined : clip(entry.output, MAX_TEXT / 4) };
    case 'error':
      return { ...entry, message: clip(entry.message, MAX_TEXT / 4) };
  }
}

/** Drops the oldest entries until both the count and the serialized size fit. */
function bound(entries: readonly Entry[]): Entry[] {
  let kept = entries.slice(-MAX_ENTRIES).map(clipEntry);
  while (kept.length > 1 && Buffer.byteLength(JSON.stringify(kept)) > MAX_BYTES) {
    kept = kept.slice(Math.ceil(kept.length / 10));
  }
  return kept;
}

function settled(entry: Entry): Entry {
  switch (entry.kind) {
    case 'thinking':
      return entry.active ? { ...entry, active: false } : entry;
    case 'answer':
      return entry.done ? entry : { ...entry, done: true };
    case 'tool':
      return entry.status === 'running' ? { ...entry, status: 'cancelled' } : entry;
    default:
      return entry;
  }
}

export class Transcript {
  /** Read from storage on first use: validating it loads the schemas, which activation need not wait for. */
  private loaded: Entry[] | undefined;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly store: StateStore,
    private sessionId: string,
    /** Writes are coalesced: THINKING may update an entry many times a second. */
    private readonly saveDelayMs = 250,
  ) {
  }

  private get items(): Entry[] {
    this.loaded ??= Transcript.load(this.store, this.sessionId);
    return this.loaded;
  }

  private set items(entries: Entry[]) {
    this.loaded = entries;
  }

  /**
   * Stored entries that still match the contract; anything else (an older format) is dropped.
   * Nothing is under way in a new extension host: what was still moving when the last one ended
   * (a thinking bar, an answer being written, a running tool) is settled, so no spinner or cursor
   * stays frozen after a reload. A message waiting to be sent stays waiting (the conversation
   * picks it up).
   */
  static load(store: StateStore, sessionId: string): Entry[] {
    const raw = store.get<unknown>(transcriptKey(sessionId));
    if (!Array.isArray(raw)) return [];
    return raw.flatMap((r) => {
      const parsed = contract().EntrySchema.safeParse(r);
      return parsed.success ? [settled(parsed.data)] : [];
    });
  }

  get entries(): readonly Entry[] {
    return this.items;
  }

  get(id: string): Entry | undefined {
    return this.items.find((e) => e.id === id);
  }

  /** Adds the entry, or replaces the one with its id; returns the entry as kept. */
  upsert(entry: Entry): Entry {
    const kept = clipEntry(entry);
    const i = this.items.findIndex((e) => e.id === entry.id);
    if (i >= 0) this.items[i] = kept;
    else this.items.push(kept);
    if (this.items.length > MAX_ENTRIES) this.items = this.items.slice(-MAX_ENTRIES);
    this.scheduleSave();
    return kept;
  }

  /**
   * Turns to another session's transcript: the one left is stored complete first (History keeps or
   * deletes it), and the other is read from storage (empty for a new session).
   */
  async switchTo(sessionId: string): Promise<void> {
    await this.flush();
    this.sessionId = sessionId;
    this.loaded = undefined;
  }

  async flush(): Promise<void> {
    this.cancelSave();
    this.items = bound(this.items);
    await this.store.update(transcriptKey(this.sessionId), this.items);
  }

  private scheduleSave(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.flush();
    }, this.saveDelayMs);
  }

  private cancelSave(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
  }

  dispose(): void {
    if (this.saveTimer) void this.flush();
  }
}
