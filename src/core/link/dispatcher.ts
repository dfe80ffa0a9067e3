import type { z } from 'zod';
import type { ChangeGate } from '../write/gate';
import type { Logger } from '../log';
import { RetryLaterError, ToolError, type ToolErrorCode } from '../protocol/errors';
import { BACKEND_WAIT_MS, toolFailure, toolSuccess, type ToolCall, type ToolResultMessage } from '../protocol/messages';
import { busyMessage, isBusyError, Limiter, resolveLimits, type ToolLimits } from '../policy/limiter';
import { t } from '../l10n';
import type { Access } from '../policy/accessPolicy';
import { resolveToolPaths } from '../tools/toolPaths';
import { paramsHash, WriteJournal, type JournalEntry } from './writeJournal';
import type { ToolDefinition, ToolOutput } from '../tools/tool';
import type { Workspace } from '../workspace/workspace';

export interface DispatcherOptions {
  readonly workspace: Workspace;
  readonly tools: readonly ToolDefinition[];
  readonly log: Logger;
  /** Approves and performs the writing tools' changes. */
  readonly changes?: ChangeGate;
  /** Asked before any writing tool runs: a reason to refuse, or undefined to allow. */
  readonly writeRefusal?: () => string | undefined;
  /**
   * How many bytes of answers are kept for replay (docs/protocol.md §4.3 idempotency); an answer over
   * REPLAY_KEEP_BYTES is not kept (a repeated read runs again; a write's outcome is in `journal`).
   */
  readonly replayCacheBytes?: number;
  /** Where writing calls' ids are remembered, durably per session; default: in memory. */
  readonly journal?: WriteJournal;
  /**
   * Concurrency, queue and deadline for the read tools, read per call (settings may change).
   * Writing tools wait for a person, so neither bound applies to them.
   */
  readonly limits?: () => Partial<ToolLimits>;
  /** How long the backend waits for an answer (BACKEND_WAIT_MS); a write answered later says what became of it. */
  readonly backendWaitMs?: number;
}

/** Answers up to this size are kept whole for replay; larger ones never (a 4 MB read × 300 filled the heap). */
export const REPLAY_KEEP_BYTES = 64 * 1024;
const DEFAULT_REPLAY_CACHE_BYTES = 16 * 1024 * 1024;
/** How many call ids are remembered with their tool and params, to refuse an id reused for another call. */
export const MAX_FINGERPRINTS = 50_000;

/** How long a cancelled writing tool may take to settle (withdraw, or finish its write) before it is answered CANCELLED. */
const WRITE_CANCEL_GRACE_MS = 5_000;

/**
 * Rejects with the signal's reason `ms` after it fires (never, if it never does). `done()` stops
 * it once the tool has settled, so no late warning claims a settled tool did not.
 */
function graceAfter(signal: AbortSignal, ms: number, log: Logger, label: string): { promise: Promise<never>; done: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let finished = false;
  const promise = new Promise<never>((_, reject) => {
    const start = (): void => {
      if (finished) return;
      timer = setTimeout(() => {
        log.warn(`${label} did not settle within ${ms} ms of being cancelled; answering CANCELLED`);
        reject(signal.reason);
      }, ms);
      timer.unref();
    };
    if (signal.aborted) start();
    else signal.addEventListener('abort', start, { once: true });
  });
  promise.catch(() => undefined);
  return {
    promise,
    done: () => {
      finished = true;
      clearTimeout(timer);
    },
  };
}

/**
 * An answer's memory, roughly and cheaply (no serializing on the hot path): its text in UTF-16,
 * and as much again for `structured`, which restates the same facts.
 */
function estimateBytes(message: ToolResultMessage): number {
  const d = message.data;
  return 256 + (d.result?.length ?? 0) * (d.structured === undefined ? 2 : 4) + (d.error?.length ?? 0) * 2;
}

/** A log line's worth of an error message: its first line, cut (later lines may quote file contents). */
function firstLine(message: string, max = 200): string {
  const line = message.split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** Params for a debug log line: long strings (file contents, replacements) are cut. */
function describeParams(params: unknown): string {
  try {
    return JSON.stringify(params, (_key, value: unknown) => (typeof value === 'string' && value.length > 120 ? `${value.slice(0, 120)}… (${value.length} chars)` : value));
  } catch {
    return '(unprintable params)';
  }
}

/** Turns zod's issues into one sentence that names each bad field. */
function describeParamIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.join('.') || '(params)';
      if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) return `${field}: is required`;
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}

/**
 * Errors whose words come from the policy, the gate or the person (refusals, rejections, deadlines),
 * never from the file: a failed change to a secret file keeps those. Every other error of such a
 * change (not found with its closest region, conflicts, a notebook's parse error) is replaced.
 */
const SAYS_NOTHING_OF_THE_FILE: ReadonlySet<ToolErrorCode> = new Set(['PERMISSION_DENIED', 'USER_REJECTED', 'CANCELLED', 'TIMEOUT']);

/** The one answer a failed change to a secret file gets: the code, and nothing of the file. */
function secretWriteFailure(target: Access, code: ToolErrorCode): string {
  return t('The change to {0} was not made ({1}). It is a secret file ({2}), so no detail about its content is given.', target.rel, code, target.rule ?? '?');
}

/**
 * Runs tool calls: looks the tool up, validates its params, runs it, and turns every outcome
 * (including a crash) into exactly one TOOL_RESULT. Calls run concurrently; a repeated id gets
 * the first call's answer, and a call still running is joined rather than run twice.
 */
export class Dispatcher {
  private readonly byName: ReadonlyMap<string, ToolDefinition>;
  private readonly running = new Map<string, { promise: Promise<ToolResultMessage>; abort: AbortController }>();
  /** Answers kept for replay, oldest first, with their sizes; bounded in bytes. */
  private readonly answered = new Map<string, { message: ToolResultMessage; bytes: number; tool: string; hash: string }>();
  private answeredBytes = 0;
  private readonly cacheBytes: number;
  /** The tool and params hash of every recent call id: the same id for another call is refused. */
  private readonly fingerprints = new Map<string, { tool: string; hash: string }>();
  private readonly journal: WriteJournal;
  private readonly limiter: Limiter;
  /** Answers that must not be replayed (busy, retry later): a retry with the same id runs again. */
  private readonly transient = new WeakSet<ToolResultMessage>();

  constructor(private readonly options: DispatcherOptions) {
    this.byName = new Map(options.tools.map((t) => [t.name, t]));
    this.cacheBytes = options.replayCacheBytes ?? DEFAULT_REPLAY_CACHE_BYTES;
    this.journal = options.journal ?? new WriteJournal(undefined, options.log);
    this.limiter = new Limiter(() => this.limits());
  }

  /** Bytes of answers kept for replay now (at most `replayCacheBytes`). */
  get replayBytes(): number {
    return this.answeredBytes;
  }

  /** Read tool calls running now, and waiting for a slot. */
  get load(): { running: number; waiting: number } {
    return { running: this.limiter.active, waiting: this.limiter.waiting };
  }

  private limits(): ToolLimits {
    return resolveLimits(this.options.limits?.());
  }

  get toolNames(): string[] {
    return [...this.byName.keys()];
  }

  dispatch(call: ToolCall): Promise<ToolResultMessage> {
    const hash = paramsHash(call.params);
    const writes = this.byName.get(call.toolName)?.writes === true;
    const journaled = this.journal.get(call.id);
    // Whatever still remembers the id also remembers what it was for (a kept answer may outlive the fingerprints).
    const known = this.fingerprints.get(call.id) ?? this.answered.get(call.id) ?? journaled;
    if (known && (known.tool !== call.toolName || known.hash !== hash)) {
      this.options.log.warn(`call ${call.id} reuses the id of an earlier ${known.tool} call with other params; refused`);
      return Promise.resolve(
        toolFailure(call, 'CONFLICT', t('The id {0} was already used by another call ({1} with other params). Nothing was done; send each call with a new id.', call.id, known.tool), 0),
      );
    }
    const previous = this.answered.get(call.id);
    if (previous) {
      this.options.log.info(`call ${call.id} was answered before; sending the same answer again`);
      return Promise.resolve(previous.message);
    }
    const inFlight = this.running.get(call.id);
    if (inFlight) return inFlight.promise;
    if (journaled && writes) return Promise.resolve(this.replayWrite(call, journaled));
    if (writes && this.journal.unreadable !== undefined) {
      this.options.log.warn(`call ${call.id} is a write, and this session's write journal cannot be read back; refused`);
      return Promise.resolve(
        toolFailure(call, 'CONFLICT', t('No change is made in this session: its record of write ids could not be read back, so this call may be a resend of one already applied. Nothing was done. Start a new session to make changes.'), 0),
      );
    }

    this.fingerprints.delete(call.id);
    this.fingerprints.set(call.id, { tool: call.toolName, hash });
    if (this.fingerprints.size > MAX_FINGERPRINTS) this.fingerprints.delete(this.fingerprints.keys().next().value as string);
    // Written down before the tool runs: a restart in the middle is then known, never applied again.
    if (writes && !this.journal.started(call.id, call.toolName, hash)) {
      this.options.log.warn(`call ${call.id} is a write whose id could not be written to the journal; refused`);
      return Promise.resolve(
        toolFailure(call, 'INTERNAL_ERROR', t("The call {0} was not run: its id could not be written to this session's record of writes (see the host's log), and a write nobody could tell apart from a new one after a restart might be applied twice. Nothing was done; try again.", call.id), 0),
      );
    }
    const abort = new AbortController();
    const promise = this.run(call, abort).then((result) => {
      this.running.delete(call.id);
      if (!this.transient.has(result)) {
        this.remember(call.id, result, call.toolName, hash);
        if (writes) this.journal.done(call.id, call.toolName, hash, result);
      } else if (writes) {
        // Refused before it changed anything: the id is free again, so resending it retries.
        this.journal.withdraw(call.id);
      }
      return result;
    });
    this.running.set(call.id, { promise, abort });
    return promise;
  }

  /** A write id seen before (maybe before a restart): its first outcome, never a second run. */
  private replayWrite(call: ToolCall, entry: JournalEntry): ToolResultMessage {
    this.options.log.info(`call ${call.id} is a write already ${entry.state === 'done' ? 'answered' : 'started'}; not run again`);
    if (entry.state === 'started') {
      return toolFailure(call, 'CONFLICT', t('The call {0} was interrupted by a restart of the host while it ran; it may or may not have been written. Nothing was done now: read the file, then send a new call with a new id.', call.id), 0);
    }
    if (entry.answer) return entry.answer;
    return entry.success
      ? toolSuccess(call, t('The call {0} was applied already; its answer ({1} bytes) is not kept. Read the file to see it.', call.id, entry.size ?? 0), 0)
      : toolFailure(call, (entry.code as ToolErrorCode | undefined) ?? 'INTERNAL_ERROR', t('The call {0} failed already ({1}); it is not run again. Send a new call with a new id.', call.id, entry.code ?? '?'), 0);
  }

  /** Aborts every running call; each answers CANCELLED. */
  cancelAll(reason: string): void {
    for (const { abort } of this.running.values()) abort.abort(new ToolError('CANCELLED', reason));
  }

  /**
   * The bridge could not send this call's answer (too large to serialize) and sent `message`
   * instead: a retry with the same id gets that, not a second run that fails the same way.
   */
  replaceAnswer(id: string, message: ToolResultMessage): void {
    const known = this.fingerprints.get(id) ?? this.answered.get(id);
    if (!known) return;
    const old = this.answered.get(id);
    if (old) {
      this.answered.delete(id);
      this.answeredBytes -= old.bytes;
    }
    this.remember(id, message, known.tool, known.hash);
  }

  /** Keeps a small answer for replay, oldest dropped first past the byte budget; a large one is not kept. */
  private remember(id: string, message: ToolResultMessage, tool: string, hash: string): void {
    const bytes = estimateBytes(message);
    if (bytes > REPLAY_KEEP_BYTES) return;
    this.answered.set(id, { message, bytes, tool, hash });
    this.answeredBytes += bytes;
    for (const [oldId, old] of this.answered) {
      if (this.answeredBytes <= this.cacheBytes) break;
      this.answered.delete(oldId);
      this.answeredBytes -= old.bytes;
    }
  }

  private async run(call: ToolCall, abort: AbortController): Promise<ToolResultMessage> {
    const signal = abort.signal;
    const started = performance.now();
    // Time a change waited for the developer is not the tool's work: reported apart (approvalWaitMs).
    let waited = 0;
    const elapsed = () => Math.max(0, Math.round(performance.now() - started - waited));
    const withWait = (r: ToolResultMessage): ToolResultMessage => {
      if (waited <= 0) return r;
      const total = performance.now() - started;
      // Past the backend's own wait its caller may have got TIMEOUT: the answer says what became of the file.
      const note =
        total < (this.options.backendWaitMs ?? BACKEND_WAIT_MS)
          ? undefined
          : r.data.success
            ? t('Answered {0} s after the call, later than a backend usually waits ({1} s). If the call timed out on your side, this change was still written, as this result says.', Math.round(total / 1000), Math.round((this.options.backendWaitMs ?? BACKEND_WAIT_MS) / 1000))
            : t('Answered {0} s after the call, later than a backend usually waits ({1} s). Nothing was written.', Math.round(total / 1000), Math.round((this.options.backendWaitMs ?? BACKEND_WAIT_MS) / 1000));
      return { ...r, data: { ...r.data, approvalWaitMs: Math.round(waited), ...(note ? { note } : {}) } };
    };
    const label = `${call.toolName} ${call.id}${call.traceId ? ` trace=${call.traceId}` : ''}`;
    // A writing tool aimed at a secret file: no answer or error may tell anything of its content.
    let secretTarget: Access | undefined;
    const fail = (code: ToolErrorCode, message: string) => {
      if (secretTarget && !SAYS_NOTHING_OF_THE_FILE.has(code)) message = secretWriteFailure(secretTarget, code);
      // The message may quote the file (closest match, conflicts): only its first line at warn.
      this.options.log.warn(`${label} failed: ${code} ${firstLine(message)}`);
      this.options.log.debug(`${label} error in full: ${message}`);
      return withWait(toolFailure(call, code, message, elapsed()));
    };

    const tool = this.byName.get(call.toolName);
    if (!tool) {
      return fail('TOOL_NOT_FOUND', t('Unknown tool "{0}". Available tools: {1}.', call.toolName, this.toolNames.join(', ')));
    }
    if (this.options.log.verbose !== false) this.options.log.debug(`${label} params: ${describeParams(call.params)}`);
    const parsed = tool.params.safeParse(call.params);
    if (!parsed.success) {
      return fail('VALIDATION_FAILED', t('Invalid params for {0}: {1}', tool.name, describeParamIssues(parsed.error)));
    }
    if (tool.writes) {
      const refusal = this.options.writeRefusal?.();
      if (refusal) return fail('PERMISSION_DENIED', refusal);
    }
    const limits = this.limits();
    let timer: NodeJS.Timeout | undefined;
    let release: (() => void) | undefined;
    try {
      if (!tool.writes) {
        timer = setTimeout(() => {
          abort.abort(
            new ToolError(
              'TIMEOUT',
              t('{0} did not finish within {1} s and was stopped (agentBridge.toolTimeoutSeconds). Narrow the request and try again.', tool.name, limits.timeoutMs / 1000),
            ),
          );
        }, limits.timeoutMs);
        release = await this.limiter.acquire(signal);
      }
      // Every path the call names goes through the access policy before the tool sees it.
      const judged = await resolveToolPaths(tool, parsed.data, this.options.workspace);
      secretTarget = judged.secretTarget;
      this.options.log.info(`${label} started`);
      const aborted = new Promise<never>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      // A cancel after the tool has answered must not surface as an unhandled rejection.
      aborted.catch(() => undefined);
      const onApprovalWait = (ms: number): void => {
        waited += ms;
      };
      const handled = tool.handler(parsed.data, { workspace: this.options.workspace, callId: call.id, signal, log: this.options.log, changes: this.options.changes, paths: judged.paths, onApprovalWait });
      // A writing tool is not cut short: its gate withdraws a pending approval itself (CANCELLED),
      // and a write already under way finishes, so the answer says what really happened to the
      // file. Only a tool that ignores the signal is answered CANCELLED after a grace period.
      let output: ToolOutput;
      if (tool.writes) {
        const grace = graceAfter(signal, WRITE_CANCEL_GRACE_MS, this.options.log, label);
        try {
          output = await Promise.race([handled, grace.promise]);
        } finally {
          grace.done();
        }
      } else output = await Promise.race([handled, aborted]);
      const result = withWait(
        secretTarget
          ? toolSuccess(call, t('{0} was changed. It is a secret file ({1}), so nothing of its content is shown.', secretTarget.rel, secretTarget.rule ?? '?'), elapsed(), { path: secretTarget.rel, secret: true })
          : toolSuccess(call, output.result, elapsed(), output.structured),
      );
      this.options.log.info(`${tool.name} ${call.id} succeeded in ${result.data.executionTime} ms`);
      return result;
    } catch (e) {
      if (e instanceof RetryLaterError) {
        const later = fail(e.code, isBusyError(e) ? busyMessage(t, e.running, e.waiting, e.max) : e.message);
        this.transient.add(later);
        return later;
      }
      if (e instanceof ToolError) return fail(e.code, e.message);
      this.options.log.error(`${tool.name} ${call.id} crashed: ${(e as Error)?.stack ?? String(e)}`);
      return fail('INTERNAL_ERROR', t('{0} failed unexpectedly: {1}', tool.name, withoutLocalPaths(e, this.options.workspace.root)));
    } finally {
      clearTimeout(timer);
      release?.();
    }
  }
}

/**
 * An unexpected error as the agent may see it. A system error's message quotes the absolute path it
 * failed on (the developer's home, a handle's /proc path): the agent gets the code and the call.
 */
function withoutLocalPaths(e: unknown, root: string): string {
  const sys = e as NodeJS.ErrnoException | undefined;
  if (sys && typeof sys.code === 'string' && typeof sys.syscall === 'string') return `${sys.code} (${sys.syscall})`;
  return (sys?.message ?? String(e)).split(root).join('<project>');
}
