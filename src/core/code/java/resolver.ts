import type { MethodEntry } from '../entries';
import { JavaExpressions, type Meaning } from './javaExpressions';
import { byArgumentTypes } from './javaInference';
import { isJdkStub } from './jdkStubs';
import { JavaTypes, type JavaTypeIndex, type Scope } from './javaTypes';
import { ANONYMOUS, IN_NESTED_CLASS, type CallSite } from '../model';
import { rawName } from './typeRef';
import { TYPING_LIMITS, TypingBudgetSpent, TypingRun } from './typingBudget';

/**
 * Resolves call sites to what javac would compile them to: the qualifying type (javap's owner of
 * the invoke instruction) and the declarations in the project the call reaches. Receivers are
 * typed by `JavaExpressions` (javaExpressions.ts), overloads told apart by their arguments in
 * javaInference.ts. What cannot be told from the sources in hand is reported with a reason, never
 * guessed.
 */

export interface ResolvedCall {
  readonly site: CallSite;
  /** Qualifying type, fully qualified with `.` for nesting (`java.util.Map.Entry`); undefined when unresolved. */
  readonly owner?: string;
  /** Declarations in the project the call reaches statically: fitting overloads, or constructors. */
  readonly targets: readonly MethodEntry[];
  /** Why the call is unresolved. */
  readonly reason?: string;
}

export class JavaResolver {
  readonly types: JavaTypes;
  private readonly expressions: JavaExpressions;
  /** Typing steps spent on each file's calls so far (by path), against TYPING_LIMITS.fileSteps. */
  private readonly spentByFile = new Map<string, number>();

  constructor(readonly index: JavaTypeIndex) {
    this.types = new JavaTypes(index);
    this.expressions = new JavaExpressions(this.types);
  }

  /**
   * The call as javac compiles it; unresolved, saying why, when typing it would take more than
   * its share of TYPING_LIMITS, or its file has spent its own.
   */
  resolve(site: CallSite, caller: MethodEntry): ResolvedCall {
    const file = caller.owner.path;
    const before = this.spentByFile.get(file) ?? 0;
    const left = TYPING_LIMITS.fileSteps - before;
    if (left <= 0) return { site, targets: [], reason: fileSpent() };
    const run = new TypingRun<Meaning>(Math.min(TYPING_LIMITS.callSteps, left), () => this.types.work);
    try {
      return this.expressions.during(run, () => this.resolveTyped(site, caller));
    } catch (e) {
      if (!(e instanceof TypingBudgetSpent)) throw e;
      return { site, targets: [], reason: left < TYPING_LIMITS.callSteps ? fileSpent() : `typing it takes more than ${TYPING_LIMITS.callSteps.toLocaleString('en')} steps (nesting too deep or overloads too many)` };
    } finally {
      this.spentByFile.set(file, before + run.spent);
    }
  }

  private resolveTyped(site: CallSite, caller: MethodEntry): ResolvedCall {
    const scope: Scope = { entry: caller.owner, method: caller.method };
    const nested = ((site.flags ?? 0) & IN_NESTED_CLASS) !== 0;
    const T = this.types;
    const ctorTargets = (fqn: string, argc: number): ResolvedCall => {
      const { entry, found } = T.constructors(fqn, argc);
      if (!entry || isJdkStub(entry)) return { site, owner: fqn, targets: [] };
      let ctors = found.map((method) => ({ entry, method }));
      this.expressions.weigh(ctors.length, site.g);
      if (ctors.length > 1 && site.g) ctors = byArgumentTypes(T, ctors, site.g, this.expressions.argType(scope, nested));
      return { site, owner: fqn, targets: ctors.map((c) => ({ owner: entry, method: c.method })) };
    };
    switch (site.kind) {
      case 'new': {
        let fqn: string | undefined;
        if (site.recv) {
          const m = this.expressions.typeOf(site.recv, scope, nested);
          if (!('v' in m)) return { site, targets: [], reason: 'err' in m ? m.err : 'qualifier is not a value' };
          fqn = T.memberType(m.v.fqn, rawName(site.name));
        } else fqn = T.resolveText(site.name, scope)?.fqn;
        if (!fqn) return { site, targets: [], reason: `type ${rawName(site.name)} not found` };
        return ctorTargets(fqn, site.argc);
      }
      case 'this':
        if (nested) return { site, targets: [], reason: 'inside an anonymous or local class' };
        return ctorTargets(scope.entry.type.fqn, site.argc);
      case 'super': {
        if (nested) return { site, targets: [], reason: 'inside an anonymous or local class' };
        const sup = T.superclass(scope.entry);
        return sup ? ctorTargets(sup.fqn, site.argc) : { site, targets: [], reason: 'superclass not found' };
      }
      default:
        return this.resolveMethodCall(site, scope, nested);
    }
  }

  private resolveMethodCall(site: CallSite, scope: Scope, nested: boolean): ResolvedCall {
    if (site.kind === 'ref' && site.name === 'new') {
      const m = site.recv ? this.expressions.typeOf(site.recv, scope, nested) : { err: 'no type' };
      if ('type' in m) {
        const { entry, found } = this.types.constructors(m.type, -1);
        return { site, owner: m.type, targets: entry && !isJdkStub(entry) ? found.map((method) => ({ owner: entry, method })) : [] };
      }
      return { site, targets: [], reason: 'err' in m ? m.err : 'not a class' };
    }
    const s = this.expressions.siteOf(site.recv, site.name, scope, nested);
    if (!s.t) return { site, targets: [], reason: s.err ?? 'receiver type unknown' };
    const { owner, found, reason } = this.expressions.lookup(s.t, site.name, site.argc);
    if (!owner) return { site, targets: [], reason: reason ?? 'not found' };
    this.expressions.weigh(found.length, site.g);
    const chosen = found.length > 1 && site.g ? byArgumentTypes(this.types, found, site.g, this.expressions.argType(scope, nested)) : found;
    // A JDK stub is no declaration in the project: the call leaves it (owner only).
    const targets = chosen.filter((f) => !isJdkStub(f.entry)).map((f) => ({ owner: f.entry, method: f.method }));
    // javac qualifies a static method reached through an enclosing class by its declaring class.
    const declaring = new Set(found.map((f) => f.entry.type.fqn));
    if (s.outer && found.length && found.every((f) => f.method.modifiers.includes('static')) && declaring.size === 1) {
      return { site, owner: [...declaring][0] as string, targets };
    }
    return { site, owner, targets };
  }
}

const fileSpent = (): string => `the calls of this file take more than ${TYPING_LIMITS.fileSteps.toLocaleString('en')} steps to type`;

/** Is this a call the comparison with bytecode (and the agent) should see as creating an anonymous class? */
export const isAnonymous = (site: CallSite): boolean => ((site.flags ?? 0) & ANONYMOUS) !== 0;
