/**
 * A write is never applied twice (docs/protocol.md §4.3 idempotency), however many calls come between and
 * across a restart of the host with the same session: every writing call's id is written down,
 * with the tool and a hash of its params, before the tool runs ('started') and with its outcome
 * after ('done'). A resent id then gets the first outcome again; one that names another tool or
 * other params is refused (CONFLICT); one whose host stopped while it ran is refused too, since
 * nobody can tell whether it was written.
 *
 * One JSON line per event, appended synchronously (writes are rare, and the line must be on disk
 * before the file changes). Bounded: answers over ANSWER_KEEP_BYTES keep only their outcome, past
 * MAX_ENTRIES ids the oldest are forgotten, and the file is rewritten with only what is remembered
 * when it reaches COMPACT_AT_BYTES or twice MAX_ENTRIES lines. A file that cannot be read back is
 * never deleted or ignored: the session then refuses every write (see `unreadable`).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../log';
import { MAX_ID_CHARS, type ToolResultMessage } from '../protocol/messages';

export interface JournalEntry {
  readonly tool: string;
  /** sha256 of the call's params, canonical key order. */
  readonly hash: string;
  readonly state: 'started' | 'done';
  readonly success?: boolean;
  readonly code?: string;
  /** The whole answer, when it was small enough to keep. */
  readonly answer?: ToolResultMessage;
  /** Its size in bytes, when it was not kept. */
  readonly size?: number;
}

/** A write's answer up to this size is kept whole; a larger one only as its outcome. */
export const ANSWER_KEEP_BYTES = 16 * 1024;
/** All answers kept whole, together: past it the oldest keep only their outcome. */
const ANSWERS_BUDGET_BYTES = 8 * 1024 * 1024;
const MAX_ENTRIES = 20_000;
/**
 * Most bytes one entry's line takes besides a kept answer: an id of MAX_ID_CHARS characters each
 * escaped to six (`\u0001`), a tool name, the hash, and the outcome's fields.
 */
export const MAX_OUTCOME_LINE_BYTES = 6 * MAX_ID_CHARS + 512;
/** The most a compacted file can hold: every entry's outcome line plus every answer kept whole. */
export const WORST_COMPACTED_BYTES = MAX_ENTRIES * MAX_OUTCOME_LINE_BYTES + ANSWERS_BUDGET_BYTES;
/** The file is compacted before a line would take it past this (above WORST_COMPACTED_BYTES, so compaction always shrinks it). */
export const COMPACT_AT_BYTES = 64 * 1024 * 1024;
/**
 * A journal file larger than this is not read back (this code never writes one: at most
 * COMPACT_AT_BYTES and one line); the session's writes are refused instead.
 */
export const MAX_FILE_BYTES = 128 * 1024 * 1024;

/** The byte bounds, smaller in tests (keep the worst compacted file below `compactAtBytes`, as the defaults do). */
export interface JournalLimits {
  /** All answers kept whole, together (default ANSWERS_BUDGET_BYTES). */
  readonly answersBudgetBytes: number;
  /** Compact before the file would grow past this many bytes (default COMPACT_AT_BYTES). */
  readonly compactAtBytes: number;
}

/** JSON with object keys sorted, so the same params hash the same whatever order they came in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Routing fields a backend adds to params (a v2 backend injects `webSocketSessionId`, docs/protocol.md §9.3, which changes with
 * every connection): not part of what the call asks, so a resend after a reconnect is the same call.
 */
const ROUTING_KEYS: ReadonlySet<string> = new Set(['webSocketSessionId', 'projectKey', 'projectPath', 'sessionId']);

export function paramsHash(params: Record<string, unknown>): string {
  const own = Object.fromEntries(Object.entries(params).filter(([k]) => !ROUTING_KEYS.has(k)));
  return createHash('sha256').update(canonical(own)).digest('hex');
}

/** The folder of one project's journals under a state folder (the project root decides; sessions are files in it). */
export function journalDirFor(stateDir: string, projectRoot: string): string {
  return path.join(stateDir, 'write-journal', createHash('sha256').update(projectRoot).digest('hex').slice(0, 16));
}

export class WriteJournal {
  private readonly entries = new Map<string, JournalEntry>();
  /** Bytes of the answers kept whole, and lines and bytes in the file. */
  private answerBytes = 0;
  private lines = 0;
  private fileBytes = 0;
  private readonly compactAtBytes: number;
  private readonly answersBudgetBytes: number;
  /** Why the file could not be read back; set, the journal keeps nothing and writes nothing. */
  private unreadableReason: string | undefined;

  /** `file` undefined: kept in memory only (tests; a host with nowhere to write). */
  constructor(
    private file: string | undefined,
    private readonly log?: Logger,
    limits?: Partial<JournalLimits>,
  ) {
    this.compactAtBytes = limits?.compactAtBytes ?? COMPACT_AT_BYTES;
    this.answersBudgetBytes = limits?.answersBudgetBytes ?? ANSWERS_BUDGET_BYTES;
    if (file) this.load(file);
  }

  /**
   * Set when the session's journal exists but could not be read back (too large, unreadable, a
   * damaged line): which write ids ran before is then unknown, so any write id may be a resend of
   * one already applied. The dispatcher refuses every write of such a session rather than risk a
   * second run; the file is left as it is, for a person to look at.
   */
  get unreadable(): string | undefined {
    return this.unreadableReason;
  }

  /** The journal of one session in `dir` (created when missing); journals untouched for a week are removed. */
  static forSession(dir: string, sessionId: string, log?: Logger, limits?: Partial<JournalLimits>): WriteJournal {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const weekAgo = Date.now() - 7 * 24 * 3600_000;
      for (const name of fs.readdirSync(dir)) {
        const p = path.join(dir, name);
        if (name.endsWith('.jsonl') && fs.statSync(p).mtimeMs < weekAgo) fs.rmSync(p, { force: true });
      }
    } catch (e) {
      log?.warn(`write journal: ${dir} is not usable (${(e as Error).message}); write ids are remembered in memory only`);
      return new WriteJournal(undefined, log);
    }
    const name = `${createHash('sha256').update(sessionId).digest('hex').slice(0, 32)}.jsonl`;
    return new WriteJournal(path.join(dir, name), log, limits);
  }

  get size(): number {
    return this.entries.size;
  }

  get(id: string): JournalEntry | undefined {
    return this.entries.get(id);
  }

  /**
   * Writes down that the write `id` is about to run; false when that could not reach the file, and
   * then it must not run (after a restart nobody would know it had).
   */
  started(id: string, tool: string, hash: string): boolean {
    if (this.record(id, { tool, hash, state: 'started' })) return true;
    this.forget(id);
    return false;
  }

  done(id: string, tool: string, hash: string, answer: ToolResultMessage): void {
    const text = JSON.stringify(answer);
    const size = Buffer.byteLength(text);
    const keep = size <= ANSWER_KEEP_BYTES;
    this.record(id, { tool, hash, state: 'done', success: answer.data.success, code: answer.data.code, ...(keep ? { answer } : { size }) });
  }

  /** The id was refused before its tool changed anything (retry later): forgotten, so resending it runs. */
  withdraw(id: string): void {
    if (!this.entries.has(id)) return;
    this.forget(id);
    this.persist(`${JSON.stringify([id, null])}\n`);
  }

  private record(id: string, entry: JournalEntry): boolean {
    this.forget(id);
    this.keep(id, entry);
    this.trim();
    return this.persist(`${JSON.stringify([id, entry])}\n`);
  }

  /** At most MAX_ENTRIES ids, and the answers budget of answers kept whole: the oldest answers shrink to their outcome. */
  private trim(): void {
    while (this.entries.size > MAX_ENTRIES) this.forget(this.entries.keys().next().value as string);
    for (const [oldId, old] of this.entries) {
      if (this.answerBytes <= this.answersBudgetBytes) break;
      if (old.answer) {
        this.forget(oldId);
        this.keep(oldId, { ...old, answer: undefined, size: old.size ?? Buffer.byteLength(JSON.stringify(old.answer)) });
      }
    }
  }

  /** Appends one event's line, or compacts instead when the line would take the file past its bounds. */
  /** False when the event could not be written to the file. */
  private persist(line: string): boolean {
    const bytes = Buffer.byteLength(line);
    const full = this.lines + 1 >= 2 * MAX_ENTRIES || this.fileBytes + bytes > this.compactAtBytes;
    // A compaction that failed still leaves the event on disk: the file grows, which the loader turns into refused writes, never a second run.
    return (full && this.compact()) || this.append(line, bytes);
  }

  private keep(id: string, entry: JournalEntry): void {
    this.entries.set(id, entry);
    if (entry.answer) this.answerBytes += Buffer.byteLength(JSON.stringify(entry.answer));
  }

  private forget(id: string): void {
    const old = this.entries.get(id);
    if (!old) return;
    if (old.answer) this.answerBytes -= Buffer.byteLength(JSON.stringify(old.answer));
    this.entries.delete(id);
  }

  private append(line: string, bytes: number): boolean {
    if (!this.file) return true;
    try {
      fs.appendFileSync(this.file, line, { mode: 0o600 });
      this.lines++;
      this.fileBytes += bytes;
      return true;
    } catch (e) {
      this.log?.warn(`write journal: could not write ${this.file}: ${(e as Error).message}`);
      return false;
    }
  }

  /** Rewrites the file with what is remembered now, atomically (a crash leaves the old file or the new one); false if it could not. */
  private compact(): boolean {
    if (!this.file) return true;
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      const text = [...this.entries].map((e) => `${JSON.stringify(e)}\n`).join('');
      fs.writeFileSync(tmp, text, { mode: 0o600 });
      fs.renameSync(tmp, this.file);
      this.lines = this.entries.size;
      this.fileBytes = Buffer.byteLength(text);
      return true;
    } catch (e) {
      this.log?.warn(`write journal: could not compact ${this.file}: ${(e as Error).message}`);
      try {
        fs.rmSync(tmp, { force: true });
      } catch {
        // the warning above already says the folder is not usable
      }
      return false;
    }
  }

  private load(file: string): void {
    let text: string;
    try {
      const size = fs.statSync(file).size;
      if (size > MAX_FILE_BYTES) return this.refuseWrites(file, `it is ${size} bytes, more than this host ever writes`);
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // no journal yet
      return this.refuseWrites(file, (e as Error).message);
    }
    const lines = text.split('\n');
    // Only the last line can be cut by a crash (each line is appended whole); it never ends with a newline.
    const cut = lines.pop() ?? '';
    for (const [i, line] of lines.entries()) {
      if (!this.loadLine(line)) return this.refuseWrites(file, `line ${i + 1} is damaged`);
    }
    this.fileBytes = Buffer.byteLength(text);
    // Taken if whole; either way rewritten with a newline, else the next line appended would be glued to it.
    if (cut) this.loadLine(cut);
    this.trim();
    if (cut && !this.compact()) this.refuseWrites(file, 'a line cut by a crash could not be repaired');
  }

  /** Takes one line into memory; false when it is not a line this journal writes. */
  private loadLine(line: string): boolean {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return false;
    }
    if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string') return false;
    const [id, entry] = parsed as [string, JournalEntry | null];
    this.lines++;
    if (entry === null) {
      this.forget(id);
      return true;
    }
    if (typeof entry !== 'object' || typeof entry.tool !== 'string' || typeof entry.hash !== 'string' || (entry.state !== 'started' && entry.state !== 'done')) return false;
    this.forget(id);
    this.keep(id, entry);
    return true;
  }

  private refuseWrites(file: string, why: string): void {
    this.log?.warn(`write journal: ${file} cannot be read back (${why}); every write of this session is refused, since any of them may be a resend of one already applied. Start a new session, or remove the file once no write of this session will be resent.`);
    this.unreadableReason = why;
    this.entries.clear();
    this.answerBytes = 0;
    this.file = undefined;
  }
}
