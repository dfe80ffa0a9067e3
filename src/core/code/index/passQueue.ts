/**
 * The order the call-site pass parses files in (indexStore.ts), and the files answers are waiting
 * for. A call_chain asked while the pass runs needs the call sites of a few files only (those
 * naming the methods it asks about: intel/callsFirst.ts); they are pulled to the front of the pass
 * instead of waiting for the whole project. Nothing is parsed twice and nothing more is parsed:
 * the pass only changes its order.
 */

interface Waiter {
  readonly left: Set<string>;
  readonly done: () => void;
}

/** Files answers wait for, kept by the index across passes: the call-site pass takes them first. */
export class CallPulls {
  private readonly urgent: string[] = [];
  private readonly waiters = new Set<Waiter>();
  private wake: (() => void) | undefined;

  /** Resolves once each of `rels` has been through the call-site pass (parsed, or found gone), or `signal` aborts. */
  want(rels: readonly string[], signal?: AbortSignal): Promise<void> {
    if (!rels.length || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const waiter: Waiter = {
        left: new Set(rels),
        done: () => {
          this.waiters.delete(waiter);
          signal?.removeEventListener('abort', waiter.done);
          resolve();
        },
      };
      this.waiters.add(waiter);
      signal?.addEventListener('abort', waiter.done, { once: true });
      this.urgent.push(...rels);
      this.wake?.();
    });
  }

  /** Resolves when a file is wanted (the pass, held back by a foreground answer, goes on for it). */
  arrival(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  /** Files are wanted and not yet taken by the pass. */
  get pending(): boolean {
    return this.urgent.length > 0;
  }

  /** The next wanted file, oldest request first. */
  take(): string | undefined {
    return this.urgent.shift();
  }

  /** The wanted files not taken yet, oldest first. */
  peek(): readonly string[] {
    return this.urgent;
  }

  /** The pass is done with `rel`: answers waiting for it alone go on (true when there are such). */
  settles(rel: string): boolean {
    let any = false;
    for (const w of [...this.waiters]) {
      if (w.left.delete(rel) && !w.left.size) {
        w.done();
        any = true;
      }
    }
    return any;
  }

  /** The pass ended (or failed): nobody waits any longer. */
  finish(): void {
    this.urgent.length = 0;
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
    private readonly pulls?: CallPulls,
  ) {
    this.inList = new Set(list);
  }

  /** The next file to parse, or undefined when the pass is done. */
  take(): string | undefined {
    for (let rel = this.pulls?.take(); rel !== undefined; rel = this.pulls?.take()) {
      if (!this.inList.has(rel)) this.pulls?.settles(rel); // not this pass's: nothing to wait for
      else if (!this.taken.has(rel)) return this.mark(rel);
      // else taken already: settled when the pass is done with it
    }
    while (this.next < this.list.length) {
      const rel = this.list[this.next++] as string;
      if (!this.taken.has(rel)) return this.mark(rel);
    }
    return undefined;
  }

  /** Up to `n` files the pass will take next (to read ahead), without taking them. */
  ahead(n: number): string[] {
    const out: string[] = [];
    for (const rel of this.pulls?.peek() ?? []) {
      if (out.length >= n) return out;
      if (this.inList.has(rel) && !this.taken.has(rel) && !out.includes(rel)) out.push(rel);
    }
    for (let i = this.next; i < this.list.length && out.length < n; i++) {
      const rel = this.list[i] as string;
      if (!this.taken.has(rel) && !out.includes(rel)) out.push(rel);
    }
    return out;
  }

  private mark(rel: string): string {
    this.taken.add(rel);
    return rel;
  }
}
