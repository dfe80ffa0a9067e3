/**
 * The order the call-site pass parses files in (indexStore.ts), and the files answers are waiting
 * for. A call_chain asked while the pass runs needs the call sites of a few files only (those
 * naming the methods it asks about: intel/neededCallSites.ts); they are moved to the front of the pass
 * instead of waiting for the whole project. Nothing is parsed twice and nothing more is parsed:
 * the pass only changes its order.
 */

interface Waiter {
  readonly left: Set<string>;
  readonly done: () => void;
}

/** Past this many taken entries at its head, the wanted list is compacted (taking is O(1) otherwise). */
const COMPACT_AFTER = 1024;

/** Files answers wait for, kept by the index across passes: the call-site pass takes them first. */
export class FilesWanted {
  /** Wanted files, oldest first, from `head` on; each once (`queued`). */
  private urgent: string[] = [];
  private head = 0;
  private readonly queued = new Set<string>();
  private readonly waiters = new Set<Waiter>();
  private wake: (() => void) | undefined;
  /** False once the pass has ended or failed, until another begins: nothing would take a file. */
  private open = true;

  /**
   * Resolves once each of `rels` has been through the call-site pass (parsed, failed, or found
   * gone), or `signal` aborts. The caller must ask only for files the pass has yet to be through.
   */
  want(rels: readonly string[], signal?: AbortSignal): Promise<void> {
    if (!rels.length || signal?.aborted || !this.open) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const waiter: Waiter = {
        left: new Set(rels),
        done: () => {
          this.waiters.delete(waiter);
          signal?.removeEventListener('abort', waiter.done);
          resolve();
        },
      };
      for (const rel of waiter.left) {
        if (this.queued.has(rel)) continue;
        this.queued.add(rel);
        this.urgent.push(rel);
      }
      this.waiters.add(waiter);
      signal?.addEventListener('abort', waiter.done, { once: true });
      this.wake?.();
    });
  }

  /** Resolves when a file is wanted (the pass, held back by a foreground answer, goes on for it). */
  arrival(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  /** Files are wanted and not yet taken by the pass. */
  get pending(): boolean {
    return this.head < this.urgent.length;
  }

  /** The next wanted file, oldest request first. */
  take(): string | undefined {
    if (this.head >= this.urgent.length) return undefined;
    const rel = this.urgent[this.head++] as string;
    this.queued.delete(rel);
    if (this.head > COMPACT_AFTER && this.head * 2 > this.urgent.length) {
      this.urgent = this.urgent.slice(this.head);
      this.head = 0;
    }
    return rel;
  }

  /** The wanted files not taken yet, oldest first. */
  *peek(): Iterable<string> {
    for (let i = this.head; i < this.urgent.length; i++) yield this.urgent[i] as string;
  }

  /** The pass is done with `rel`: answers waiting for it alone go on. */
  doneWith(rel: string): void {
    for (const w of [...this.waiters]) if (w.left.delete(rel) && !w.left.size) w.done();
  }

  /** A call-site pass begins: files can be wanted again. */
  reopen(): void {
    this.open = true;
  }

  /** The pass ended (or failed): nobody waits any longer, and nobody waits until another begins. */
  finish(): void {
    this.open = false;
    this.urgent = [];
    this.head = 0;
    this.queued.clear();
    for (const w of [...this.waiters]) w.done();
  }
}

/** One pass's order: wanted files first, then the list's. Each file once. */
export class PassQueue {
  private next = 0;
  private readonly taken = new Set<string>();
  private readonly inList: ReadonlySet<string>;

  constructor(
    private readonly list: readonly string[],
    private readonly filesWanted?: FilesWanted,
  ) {
    this.inList = new Set(list);
  }

  /** The next file to parse, or undefined when the pass is done. */
  take(): string | undefined {
    for (let rel = this.filesWanted?.take(); rel !== undefined; rel = this.filesWanted?.take()) {
      if (!this.inList.has(rel)) this.filesWanted?.doneWith(rel); // not this pass's: nothing to wait for
      else if (!this.taken.has(rel)) return this.mark(rel);
      // else taken already: waited for until the pass is done with it (callers ask only for files it has yet to be through)
    }
    while (this.next < this.list.length) {
      const rel = this.list[this.next++] as string;
      if (!this.taken.has(rel)) return this.mark(rel);
    }
    return undefined;
  }

  /**
   * Files the pass will take next (to read ahead), without taking them: up to `n`, wanted ones
   * first. A file may come twice (starting its read is idempotent), so this stays O(n).
   */
  ahead(n: number): string[] {
    const out: string[] = [];
    for (const rel of this.filesWanted?.peek() ?? []) {
      if (out.length >= n) return out;
      if (this.inList.has(rel) && !this.taken.has(rel)) out.push(rel);
    }
    for (let i = this.next; i < this.list.length && out.length < n; i++) {
      const rel = this.list[i] as string;
      if (!this.taken.has(rel)) out.push(rel);
    }
    return out;
  }

  private mark(rel: string): string {
    this.taken.add(rel);
    return rel;
  }
}

/**
 * What the call-site pass has done so far, for answers given beside it (intel/neededCallSites.ts):
 * the files it has been through (parsed, failed, or found gone), and when each record was last
 * put, counted in records put since the pass began, so an answer can tell whether a file it read
 * changed while it ran, or after the lookup tables it used were made.
 */
export class PassProgress {
  private readonly through = new Set<string>();
  private readonly putAt = new Map<string, number>();
  private active = false;
  /** Records put while the pass ran. */
  putCount = 0;
  /** `putCount` when the index's lookup tables were last dropped (IndexStore.changed). */
  lookupsAt = 0;

  begin(): void {
    this.active = true;
  }

  /** The pass is running: a file wanted now will be taken. */
  get running(): boolean {
    return this.active;
  }

  /** A record was put or removed (by the pass, or by a save while it runs). */
  put(rel: string): void {
    if (this.active) this.putAt.set(rel, ++this.putCount);
  }

  /** The pass is done with `rel`. */
  passed(rel: string): void {
    if (this.active) this.through.add(rel);
  }

  hasPassed(rel: string): boolean {
    return this.through.has(rel);
  }

  /** Whether a record of `rels` was put after the `putCount` given (kept after a pass that failed, for the answers it left). */
  putSince(rels: Iterable<string>, putCount: number): boolean {
    for (const rel of rels) if ((this.putAt.get(rel) ?? 0) > putCount) return true;
    return false;
  }

  /** The pass stopped: `whole` when it ended with every call site in (nothing here is asked any more). */
  end(whole: boolean): void {
    this.active = false;
    if (!whole) return;
    this.through.clear();
    this.putAt.clear();
  }
}
