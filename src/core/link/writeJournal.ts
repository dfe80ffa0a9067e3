/**
 * A write is never applied twice (docs/protocol.md §4.3 idempotency), however many calls come between and
 * across a restart of the host with the same session: every writing call's id is written down,
 * with the tool and a hash of its params, before the tool runs ('started') and with its outcome
 * after ('done'). A resent id then gets the first outcome again; one that names another tool or
 * other params is refused (CONFLICT); one whose host stopped while it ran is refused too, since
 * nobody can tell whether it was written.
 *
 * One JSON line per event, appended synchronously (writes are rare, and the line must be on disk
 * before the file changes). Bounded: answers over ANSWER_KEEP_BYTES keep only their outcome, and
 * past MAX_ENTRIES ids the oldest are forgotten (the file is compacted).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../log';
import type { ToolResultMessage } from '../protocol/messages';

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
export const ANSWERS_BUDGET_BYTES = 8 * 1024 * 1024;
export const MAX_ENTRIES = 20_000;
/** A journal file larger than this is not read back (it cannot have been written by this code). */
const MAX_FILE_BYTES = 128 * 1024 * 1024;

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
  /** Bytes of the answers kept whole, and lines in the file (compacted at twice MAX_ENTRIES). */
  private answerBytes = 0;
  private lines = 0;

  /** `file` undefined: kept in memory only (tests; a host with nowhere to write). */
  constructor(
    private readonly file: string | undefined,
    private readonly log?: Logger,
  ) {
    if (file) this.load(file);
  }

  /** The journal of one session in `dir` (created when missing); journals untouched for a week are removed. */
  static forSession(dir: string, sessionId: string, log?: Logger): WriteJournal {
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
    return new WriteJournal(path.join(dir, name), log);
  }

  get size(): number {
    return this.entries.size;
  }

  get(id: string): JournalEntry | undefined {
    return this.entries.get(id);
  }

  started(id: string, tool: string, hash: string): void {
    this.record(id, { tool, hash, state: 'started' });
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
    this.append(`${JSON.stringify([id, null])}\n`);
  }

  private record(id: string, entry: JournalEntry): void {
    this.forget(id);
    this.keep(id, entry);
    while (this.entries.size > MAX_ENTRIES) this.forget(this.entries.keys().next().value as string);
    // Bounded in bytes too: the oldest answers kept whole shrink to their outcome.
    for (const [oldId, old] of this.entries) {
      if (this.answerBytes <= ANSWERS_BUDGET_BYTES) break;
      if (old.answer) {
        this.forget(oldId);
        this.keep(oldId, { ...old, answer: undefined, size: old.size ?? Buffer.byteLength(JSON.stringify(old.answer)) });
      }
    }
    if (this.lines >= 2 * MAX_ENTRIES) this.compact();
    else this.append(`${JSON.stringify([id, entry])}\n`);
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

  private append(line: string): void {
    if (!this.file) return;
    try {
      fs.appendFileSync(this.file, line, { mode: 0o600 });
      this.lines++;
    } catch (e) {
      this.log?.warn(`write journal: could not write ${this.file}: ${(e as Error).message}`);
    }
  }

  /** Rewrites the file with what is remembered now (when it has twice MAX_ENTRIES lines; rare). */
  private compact(): void {
    if (!this.file) return;
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(tmp, [...this.entries].map((e) => `${JSON.stringify(e)}\n`).join(''), { mode: 0o600 });
      fs.renameSync(tmp, this.file);
      this.lines = this.entries.size;
    } catch (e) {
      this.log?.warn(`write journal: could not compact ${this.file}: ${(e as Error).message}`);
    }
  }

  private load(file: string): void {
    let text: string;
    try {
      if (fs.statSync(file).size > MAX_FILE_BYTES) {
        this.log?.warn(`write journal: ${file} is too large to be ours; starting a new one`);
        fs.rmSync(file, { force: true });
        return;
      }
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return; // no journal yet
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const [id, entry] = JSON.parse(line) as [string, JournalEntry | null];
        this.lines++;
        if (typeof id === 'string' && entry === null) this.forget(id);
        else if (typeof id === 'string' && entry && typeof entry.tool === 'string' && typeof entry.hash === 'string') {
          this.forget(id);
          this.keep(id, entry);
        }
      } catch {
        // a line cut by a crash: the entries before it stand
      }
    }
    while (this.entries.size > MAX_ENTRIES) this.forget(this.entries.keys().next().value as string);
  }
}
