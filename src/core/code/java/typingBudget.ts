import type { Expr } from '../model';

/**
 * The work the resolver may spend typing one call, and all the calls of one file. A call's
 * arguments are typed to pick an overload and again to infer each candidate's return type, so
 * nested calls to overloaded generic methods (`id(id(id(…x)))`) doubled the work at each level, so
 * a tiny file could hold the event loop. Each expression is typed once per call (`memo`), and
 * every step (an expression typed, an overload weighed against an argument, a type or declaration
 * looked through) is counted: past a bound the call is listed unresolved, saying why.
 *
 * The bounds sit well above java.base's costliest call (3,166 steps) and file (562,387, mostly
 * cheap declarations scanned). The call bound keeps one call's hold on the thread short (the call
 * graph yields between calls); the file bound caps what one hostile file can cost in all.
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
