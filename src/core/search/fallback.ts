import type { Dirent } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ToolError } from '../protocol/errors';
import { findWorkerScript, startWorker } from '../workers';
import type { ScanJob, WorkerInit, WorkerReply, WorkerRequest } from './fallbackWorker';
import { NameMatcher } from '../glob/globAutomaton';
import {
  entryBudget,
  excludeMatcher,
  GitignoreMatcher,
  IGNORE_FILES,
  MAX_IGNORE_BYTES_HELD,
  MAX_IGNORE_FILE_BYTES,
  readIgnoreFile,
  type IgnoreFileName,
  type IgnoreVerdict,
} from './ignore';
import {
  cancelledError,
  compareNames,
  type EngineRequest,
  type FileResult,
  MAX_LINE_BYTES,
  type ResultSink,
} from './types';

/**
 * The in-process search, used when no ripgrep binary is available. It gives the same answer as
 * the ripgrep engine for the same request: the same files (same ignore files, exclusions, hidden
 * files, symlinks, size limit and binary rule, see ripgrep.ts and ignore.ts), the same lines, the
 * same context, the same columns.
 *
 * The folder walk runs here; reading and matching run in a worker thread, so that a regular
 * expression with catastrophic backtracking (JavaScript's engine backtracks, ripgrep's does not)
 * never blocks the extension host: when the call is cancelled or times out, the worker is
 * terminated, even in the middle of a match.
 *
 * Remaining differences from ripgrep, all in the regular-expression dialect (literal searches are
 * identical) or in lines over MAX_LINE_BYTES:
 *  - the pattern is a JavaScript RegExp (flags `u` and `s`, plus `i` when case-insensitive), not a
 *    Rust regex: `\d`, `\w`, `\b` and `\s` are ASCII-only here and Unicode-aware in ripgrep;
 *    look-around and back-references work here and are refused by ripgrep; inline flags like
 *    `(?i)` and POSIX classes like `[[:alpha:]]` work in ripgrep only;
 *  - ripgrep matches bytes, so in a file that is not valid UTF-8 a regex may see the invalid bytes
 *    where this engine sees U+FFFD;
 *  - a file or folder name that is not valid UTF-8 cannot be opened here;
 *  - of a line longer than MAX_LINE_BYTES characters only the start is searched here (the answer
 *    says how many such lines there were); ripgrep searches it whole and shows its start.
 */

/** How much of a file the worker reads at a time. */
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * The worker's heap: it runs in the host's process, so what a hostile repository makes it hold is
 * the host's memory. A batch keeps at most what one answer shows (a few tens of MB at worst).
 */
const WORKER_HEAP_MB = 512;

/** Files per message to the worker, and messages in flight. */
const BATCH_SIZE = 32;
const MAX_IN_FLIGHT = 2;

/** The RegExp source and flags that implement a request's pattern in JavaScript. Throws VALIDATION_FAILED. */
function compilePattern(req: Pick<EngineRequest, 'pattern' | 'regex' | 'caseSensitive'>): {
  source: string;
  flags: string;
} {
  const source = req.regex ? req.pattern : req.pattern.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  // `s`: '.' matches '\r' and U+2028 like Rust's '.' (a line never holds '\n' anyway).
  const flags = `su${req.caseSensitive ? '' : 'i'}`;
  try {
    new RegExp(source, flags);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ToolError(
      'VALIDATION_FAILED',
      message.startsWith('Invalid regular expression') ? message : `Invalid regular expression: ${message}`,
    );
  }
  return { source, flags };
}

/** dist/searchWorker.js beside the bundle, or fallbackWorker.ts when running from the sources (tsx). */
function workerScript(): string {
  const script = typeof __dirname === 'string' ? findWorkerScript(__dirname, 'searchWorker.js', 'fallbackWorker.ts') : undefined;
  if (script === undefined) throw new ToolError('INTERNAL_ERROR', 'The search worker (searchWorker.js) is missing from this installation: install ripgrep, or reinstall.');
  return script;
}

/** Feeds files to the worker in batches, with back-pressure, and their results to the sink in order. */
class ScanWorker {
  private readonly worker: Worker;
  private batch: ScanJob[] = [];
  private inFlight = 0;
  private nextId = 1;
  private failure: unknown;
  private wakers: Array<() => void> = [];
  private closing = false;
  private readonly onAbort = (): void => {
    this.fail(cancelledError(this.signal));
    void this.worker.terminate();
  };

  constructor(
    init: WorkerInit,
    private readonly sink: ResultSink,
    private readonly signal: AbortSignal,
  ) {
    this.worker = startWorker(workerScript(), { workerData: init, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    this.worker.on('message', (msg: WorkerReply) => this.onReply(msg));
    this.worker.on('error', (err: Error & { code?: string }) =>
      this.fail(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new ToolError('BAD_REQUEST', `The search needed more than ${WORKER_HEAP_MB} MB of memory and was stopped: narrow relativePath or file_type, lower context_lines or limit.`)
          : new ToolError('INTERNAL_ERROR', `Search worker failed: ${err.message}`),
      ),
    );
    this.worker.on('exit', (code) => {
      if (!this.closing) this.fail(new ToolError('INTERNAL_ERROR', `Search worker exited (code ${code})`));
    });
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private fail(err: unknown): void {
    if (this.failure === undefined) this.failure = err;
    this.wake();
  }

  private wake(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const w of wakers) w();
  }

  private check(): void {
    if (this.signal.aborted) throw cancelledError(this.signal);
    if (this.failure !== undefined) throw this.failure;
  }

  private onReply(msg: WorkerReply): void {
    this.inFlight--;
    if (msg.error !== undefined) {
      this.fail(new ToolError('INTERNAL_ERROR', `Search worker failed: ${msg.error}`));
      return;
    }
    try {
      for (const r of msg.results ?? []) {
        if (r.count > 0) {
          const file: FileResult = {
            path: r.rel,
            count: r.count,
            matches: r.matches,
            ...(r.partlySearchedLines ? { partlySearchedLines: r.partlySearchedLines } : {}),
            ...(r.opened ? { opened: r.opened } : {}),
          };
          this.sink.addFile(file);
        }
      }
    } catch (err) {
      this.fail(err);
      return;
    }
    this.wake();
  }

  private waitOne(): Promise<void> {
    return new Promise<void>((resolve) => this.wakers.push(resolve));
  }

  async add(job: ScanJob): Promise<void> {
    this.check();
    this.batch.push(job);
    if (this.batch.length >= BATCH_SIZE) await this.flush();
  }

  private async flush(): Promise<void> {
    while (this.inFlight >= MAX_IN_FLIGHT) {
      this.check();
      await this.waitOne();
    }
    this.check();
    if (this.batch.length === 0) return;
    const jobs = this.batch;
    this.batch = [];
    this.inFlight++;
    const request: WorkerRequest = { id: this.nextId++, jobs };
    this.worker.postMessage(request);
  }

  async drain(): Promise<void> {
    await this.flush();
    while (this.inFlight > 0) {
      this.check();
      await this.waitOne();
    }
    this.check();
  }

  async close(): Promise<void> {
    this.closing = true;
    this.signal.removeEventListener('abort', this.onAbort);
    await this.worker.terminate();
  }
}

interface DirNode {
  /** Root-relative path of the folder ('.' for the root). */
  readonly rel: string;
  readonly parent: DirNode | undefined;
  readonly matchers: Partial<Record<IgnoreFileName, GitignoreMatcher>>;
  /** Bytes of ignore files read for this folder and the folders it is in (MAX_IGNORE_BYTES_HELD). */
  readonly heldBytes: number;
}

/** Highest precedence first, as ripgrep ranks them. */
const PRECEDENCE: readonly IgnoreFileName[] = ['.rgignore', '.ignore', '.gitignore'];

/**
 * ripgrep's verdict from the ignore files of the walked folders, then from the explicit rules.
 * All of them share one entry's step budget: past it the entry is `unjudged`, and kept.
 */
function ignoreVerdict(node: DirNode, rel: string, isDir: boolean, explicit: GitignoreMatcher): IgnoreVerdict {
  const budget = entryBudget();
  for (const kind of PRECEDENCE) {
    for (let n: DirNode | undefined = node; n; n = n.parent) {
      const m = n.matchers[kind];
      if (!m) continue;
      const verdict = m.match(n.rel === '.' ? rel : rel.slice(n.rel.length + 1), isDir, budget);
      if (verdict) return verdict;
    }
  }
  return explicit.match(rel, isDir, budget);
}

/** A folder's ignore files, within what the folders above it left of MAX_IGNORE_BYTES_HELD. */
async function readIgnoreFiles(dirAbs: string, entries: readonly Dirent[], heldAbove: number): Promise<Pick<DirNode, 'matchers' | 'heldBytes'>> {
  const matchers: Partial<Record<IgnoreFileName, GitignoreMatcher>> = {};
  let held = heldAbove;
  for (const name of IGNORE_FILES) {
    const room = Math.min(MAX_IGNORE_FILE_BYTES, MAX_IGNORE_BYTES_HELD - held);
    if (room <= 0) break;
    if (!entries.some((e) => e.name === name && !e.isDirectory())) continue;
    // Unreadable or not a regular file (a FIFO): ignored, as ripgrep does; a huge one is read in part.
    const file = await readIgnoreFile(path.join(dirAbs, name), room);
    if (file === undefined) continue;
    const matcher = await GitignoreMatcher.build(file.lines);
    if (matcher.isEmpty) continue;
    matchers[name] = matcher;
    held += file.bytes;
  }
  return { matchers, heldBytes: held };
}

/** How long the walk holds the event loop at most before it gives it back. */
const WALK_SLICE_MS = 8;

/** Walks the target folder depth-first in sorted order (so files come in result order) and queues every file to search. */
async function walk(req: EngineRequest, pool: ScanWorker, sink: ResultSink, signal: AbortSignal): Promise<void> {
  const excludes = await excludeMatcher(req.excludeGlobs);
  const explicit = await GitignoreMatcher.build(req.explicitIgnore);
  const types = req.typeGlobs ? new NameMatcher(req.typeGlobs) : undefined;
  // Matching every entry against a repository's ignore rules runs here, on the host's thread: each
  // entry's matching is bounded in steps (ignore.ts), and the walk gives the event loop back every
  // few milliseconds.
  let turned = performance.now();

  const visit = async (dirAbs: string, dirRel: string, parent: DirNode | undefined): Promise<void> => {
    if (signal.aborted) throw cancelledError(signal);
    let entries: Dirent[];
    try {
      entries = await fs.readdir(dirAbs, { withFileTypes: true });
    } catch {
      return; // unreadable folder: skipped, as ripgrep does
    }
    const node: DirNode = { rel: dirRel, parent, ...(await readIgnoreFiles(dirAbs, entries, parent?.heldBytes ?? 0)) };
    entries.sort((a, b) => compareNames(a.name, b.name));
    for (const entry of entries) {
      if (performance.now() - turned > WALK_SLICE_MS) {
        await nextTurn();
        turned = performance.now();
        if (signal.aborted) throw cancelledError(signal);
      }
      const rel = dirRel === '.' ? entry.name : `${dirRel}/${entry.name}`;
      const isDir = entry.isDirectory();
      if (req.isSecret?.(rel)) continue;
      if (excludes.match(rel, isDir) === 'ignore') continue;
      if (ignoreVerdict(node, rel, isDir, explicit) === 'ignore') continue;
      if (isDir) {
        await visit(path.join(dirAbs, entry.name), rel, node);
      } else if (entry.isFile()) {
        // Symbolic links, sockets, FIFOs and devices are neither files nor folders here: skipped.
        if (types && !types.test(entry.name)) continue;
        await pool.add({ abs: path.join(dirAbs, entry.name), rel, explicit: false, details: sink.wantDetails(rel) });
      }
    }
  };

  await visit(req.target === '.' ? req.root : path.join(req.root, req.target), req.target, undefined);
}

/** Runs the in-process search for the request and feeds every non-binary file with matches to the sink. */
export async function runFallback(req: EngineRequest, sink: ResultSink, signal: AbortSignal): Promise<void> {
  const { source, flags } = compilePattern(req);
  if (signal.aborted) throw cancelledError(signal);
  const pool = new ScanWorker(
    {
      source,
      flags,
      contextLines: req.contextLines,
      perFileLimit: req.perFileLimit,
      maxFileSize: req.maxFileSize,
      maxLine: MAX_LINE_BYTES,
      chunkBytes: READ_CHUNK_BYTES,
    },
    sink,
    signal,
  );
  try {
    if (req.targetIsFile) {
      await pool.add({
        abs: path.join(req.root, req.target),
        rel: req.target,
        explicit: true,
        details: sink.wantDetails(req.target),
      });
    } else {
      await walk(req, pool, sink, signal);
    }
    await pool.drain();
  } finally {
    await pool.close();
  }
}

/** True when a file would be skipped as binary (a NUL byte after BOM decoding): the same rule as the worker's. */
export function isBinaryContent(buf: Uint8Array): boolean {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return b.indexOf(0, 3) !== -1;
  if (b.length >= 2 && ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff))) {
    // UTF-16: a NUL is a zero code unit.
    for (let i = 2; i + 1 < b.length; i += 2) if (b[i] === 0 && b[i + 1] === 0) return true;
    return false;
  }
  return b.indexOf(0) !== -1;
}
