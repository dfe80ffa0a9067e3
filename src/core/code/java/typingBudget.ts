import type { Expr } from '../model';

/**
 * The work the resolver may spend typing one call, and all the calls of one file. A call's
 * arguments are typed to pick an overload and again to infer each candidate's return type, so
 * nested calls to overloaded generic methods (`id(id(id(…x)))`) doubled the work at each level: a
 * 252-byte file held the event loop 44 s. Each expression is now typed once per call (`memo`), and
 * every step (an expression typed, an overload weighed against an argument, a type or declaration
 * looked through) is counted: past a bound the call is listed unresolved, saying why.
 *
 * On java.base the costliest call takes 3,166 steps and the costliest file 562,387 (most of them
 * declarations scanned, which are cheap); a step of a pathological call costs about 1 µs, so one
 * call holds the thread at most some 20 ms, and the call graph yields between calls. The file
 * bound caps what one hostile file can cost in all, a few seconds at most, in slices.
 */
export const TYPING_LIMITS = { callSteps: 20_000, fileSteps: 2_000_000 };

/** Thrown out of the typing when a run's steps are spent; the resolver lists the call unresolved. */
export class TypingBudgetSpent extends Error {
  constructor() {
    super('typing budget spent');
    this.name = 'TypingBudgetSpent';
  }
}

/** One call's typing: its expressions' types so far (`Meaning`, as the typer gives them), and the steps it may still take. */
export class TypingRun<Meaning = unknown> {
  /** Types of the expressions typed in this run (one call site: one scope). */
  readonly memo = new Map<Expr, Meaning>();
  private steps = 0;

  constructor(
    /** Steps this run may take. */
    readonly limit: number,
    /** The declarations looked through so far by the type lookups (`JavaTypes.work`): counted as steps too. */
    private readonly work: () => number,
    private readonly workAtStart = work(),
  ) {}

  /** Steps taken so far. */
  get spent(): number {
    return this.steps + (this.work() - this.workAtStart);
  }

  /** Counts `n` steps; throws TypingBudgetSpent once the run has taken more than its limit. */
  charge(n = 1): void {
    this.steps += n;
    if (this.spent > this.limit) throw new TypingBudgetSpent();
  }
}
