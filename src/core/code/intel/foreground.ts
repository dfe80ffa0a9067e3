/**
 * Cold answers first. While a read_class or call_chain is answered from the files it needs
 * (quickLookup.ts, neededFilesIndex.ts), the workspace's index build starts no new files: both want the
 * same CPU and disk, and on a large tree a cold lookup that ran beside the build was several
 * times slower. The build is held back for at most HOLD_MS at a time and then runs for at least
 * RUN_MS before it can be held again, so a stream of cold questions slows it but never stops it.
 * Each workspace has one (`codeStateOf(ws).foreground`, state.ts).
 */

const HOLD_MS = 3000;
const RUN_MS = 1000;

export class ForegroundGate {
  private active = 0;
  private waiters: Array<() => void> = [];
  private heldUntil = 0;

  /** Runs a cold answer; the build holds back until it (and every other one) is done. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await work();
    } finally {
      if (--this.active === 0) this.release();
    }
  }

  get busy(): boolean {
    return this.active > 0;
  }

  /** For the build, before it starts more files: resolves once no cold answer runs, or after HOLD_MS. */
  async idle(now = Date.now()): Promise<void> {
    if (!this.active || now < this.heldUntil + RUN_MS) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve();
      };
      const timer = setTimeout(done, HOLD_MS);
      this.waiters.push(done);
    });
    this.heldUntil = Date.now();
  }

  private release(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
