import * as fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { OpenedFile } from '../workspace/workspace';
import { shownLine, type LineMatch } from './types';

/**
 * The in-process search's worker (fallback.ts starts it; bundled on its own as dist/searchWorker.js).
 * It streams a file in bounded chunks, decodes it the way ripgrep does (a UTF-8 BOM is dropped,
 * UTF-16 with a BOM is transcoded, everything else is UTF-8), skips it when binary (a NUL after
 * decoding), splits it at '\n' and matches line by line.
 *
 * It opens the file as safeRead.ts does (no final link followed, no blocking, a regular file on the
 * handle, on Linux the handle's path the one walked) and reports the handle's identity.
 */

/** What the worker is started with (`workerData`). */
export interface WorkerInit {
  readonly source: string;
  readonly flags: string;
  readonly contextLines: number;
  readonly perFileLimit: number;
  readonly maxFileSize: number;
  /** Characters of a line kept and searched; the rest of a longer line is neither. */
  readonly maxLine: number;
  readonly chunkBytes: number;
}

/** One file to search. */
export interface ScanJob {
  readonly abs: string;
  readonly rel: string;
  /** A file named by the agent: searched whatever its size. */
  readonly explicit: boolean;
  /** False: only count the matching lines. */
  readonly details: boolean;
}

export interface ScanResult {
  readonly rel: string;
  readonly count: number;
  readonly matches: LineMatch[];
  readonly partlySearchedLines?: number;
  readonly opened?: OpenedFile;
}

/** A batch of jobs, and its answer in the same order (or why the batch failed). */
export interface WorkerRequest {
  readonly id: number;
  readonly jobs: readonly ScanJob[];
}
export interface WorkerReply {
  readonly id: number;
  readonly results?: readonly ScanResult[];
  readonly error?: string;
}

// Opened without following a final link and without blocking (a FIFO swapped in must not hang the read).
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
const PROC_FD = process.platform === 'linux' && fs.existsSync('/proc/self/fd') ? '/proc/self/fd/' : undefined;

interface Decoder {
  /** BOM bytes to drop at the start. */
  readonly skip: number;
  /** Whether a NUL byte before decoding already makes the file binary (UTF-8; not UTF-16). */
  readonly binaryBytes: boolean;
  decode(bytes: Buffer, end: boolean): string;
}

// Decodes as ripgrep does, chunk by chunk: a UTF-8 BOM is dropped, UTF-16 with a BOM is
// transcoded, everything else is UTF-8.
function decoderFor(first: Buffer): Decoder {
  if (first.length >= 3 && first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf) {
    const d = new TextDecoder('utf-8', { ignoreBOM: true });
    return { skip: 3, binaryBytes: false, decode: (b, end) => d.decode(b, { stream: !end }) };
  }
  if (first.length >= 2 && first[0] === 0xff && first[1] === 0xfe) {
    const d = new TextDecoder('utf-16le', { ignoreBOM: true });
    return { skip: 2, binaryBytes: false, decode: (b, end) => d.decode(b, { stream: !end }) };
  }
  if (first.length >= 2 && first[0] === 0xfe && first[1] === 0xff) {
    const d = new TextDecoder('utf-16le', { ignoreBOM: true });
    let odd: Buffer | undefined;
    return {
      skip: 2,
      binaryBytes: false,
      decode: (b, end) => {
        const all = odd ? Buffer.concat([odd, b]) : b;
        const even = all.length - (all.length % 2);
        odd = even < all.length ? Buffer.from(all.subarray(even)) : undefined;
        const swapped = Buffer.from(all.subarray(0, even));
        swapped.swap16();
        return d.decode(swapped, { stream: !end }) + (end && odd ? '\uFFFD' : '');
      },
    };
  }
  const d = new TextDecoder('utf-8');
  return { skip: 0, binaryBytes: true, decode: (b, end) => d.decode(b, { stream: !end }) };
}

/**
 * A copy of `text` that holds nothing else: a piece cut from a string keeps the whole string alive
 * (V8), so a kept line would pin the long line or the chunk it came from until the batch's
 * answer goes out. UTF-16 keeps every code unit, a lone surrogate too.
 */
function ownCopy(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}

interface ContextLine {
  readonly shown: string;
  /** Its own copy, made once a match keeps it. */
  own?: string;
}

const keep = (line: ContextLine): string => (line.own ??= ownCopy(line.shown));

interface FoundLine {
  line: number;
  column: number;
  text: string;
  before: string[];
  after: string[];
  cut?: true;
}

/** Searches one file; every failure (gone, not a regular file, swapped, unreadable) is "no matches", as in ripgrep. */
export function scan(job: ScanJob, init: WorkerInit, re: RegExp): ScanResult {
  const { contextLines, perFileLimit, maxFileSize, maxLine, chunkBytes } = init;
  const none: ScanResult = { rel: job.rel, count: 0, matches: [] };
  let fd: number;
  try {
    fd = fs.openSync(job.abs, OPEN_FLAGS);
  } catch {
    return none;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || (!job.explicit && st.size > maxFileSize)) return none;
    // As safeRead.ts: on Linux the handle's path must be the one walked (no folder swapped on the way).
    if (PROC_FD) {
      let at: string | undefined;
      try {
        at = fs.readlinkSync(PROC_FD + String(fd));
      } catch {
        at = undefined;
      }
      if (at !== undefined && at !== job.abs) return none;
    }
    // Reads the file in chunks of chunkBytes and matches line by line, holding at most maxLine
    // characters of a line, the last contextLines lines as shown, and the first perFileLimit matches.
    const buf = Buffer.alloc(chunkBytes);
    let decoder: Decoder | undefined;
    let line = '';
    let lineCut = false;
    let lineNo = 0;
    let count = 0;
    let partly = 0;
    let total = 0;
    const matches: FoundLine[] = [];
    // The last lines as shown, copied (ownCopy) only when a match keeps them.
    const recent: ContextLine[] = [];
    let pending: FoundLine[] = [];
    const onLine = (text: string, cut: boolean): void => {
      lineNo++;
      if (cut) partly++;
      const line: ContextLine | undefined = contextLines > 0 ? { shown: shownLine(text) } : undefined;
      if (line) for (const p of pending) p.after.push(keep(line));
      pending = pending.filter((p) => p.after.length < contextLines);
      const m = re.exec(text);
      if (m !== null) {
        count++;
        if (job.details && matches.length < perFileLimit) {
          const match: FoundLine = { line: lineNo, column: m.index + 1, text: ownCopy(shownLine(text, m.index + 1)), before: recent.map(keep), after: [] };
          if (cut) match.cut = true;
          matches.push(match);
          if (contextLines > 0) pending.push(match);
        }
      }
      if (line) {
        recent.push(line);
        if (recent.length > contextLines) recent.shift();
      }
    };
    const take = (text: string): void => {
      let from = 0;
      for (;;) {
        const nl = text.indexOf('\n', from);
        const end = nl === -1 ? text.length : nl;
        if (!lineCut) {
          const room = maxLine - line.length;
          if (end - from > room) {
            line += text.slice(from, from + room);
            lineCut = true;
          } else line += text.slice(from, end);
        }
        if (nl === -1) return;
        onLine(line, lineCut);
        line = '';
        lineCut = false;
        from = nl + 1;
      }
    };
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      const end = n === 0;
      let bytes = buf.subarray(0, n);
      if (decoder === undefined) {
        if (end) break; // an empty file
        decoder = decoderFor(bytes);
        bytes = bytes.subarray(decoder.skip);
      }
      if (decoder.binaryBytes && bytes.indexOf(0) !== -1) return none;
      const text = decoder.decode(bytes, end);
      // Binary: a NUL anywhere, after decoding, drops the whole file (as ripgrep does).
      if (text.indexOf('\u0000') !== -1) return none;
      take(text);
      total += n;
      if (!job.explicit && total > maxFileSize) return none;
      if (end) break;
    }
    if (line.length > 0 || lineCut) onLine(line, lineCut);
    // The identity of what was read: the access policy judges that file, not what the name shows afterwards (a hard link swapped in between).
    const opened: OpenedFile = { dev: st.dev, ino: st.ino, nlink: st.nlink };
    return { rel: job.rel, count, matches, opened, ...(partly > 0 ? { partlySearchedLines: partly } : {}) };
  } catch {
    return none;
  } finally {
    fs.closeSync(fd);
  }
}

if (parentPort) {
  const port = parentPort;
  const init = workerData as WorkerInit;
  const re = new RegExp(init.source, init.flags);
  port.on('message', (msg: WorkerRequest) => {
    try {
      // Files come in answer order and an answer shows at most perFileLimit matches in all: once a
      // batch holds that many, later files are only counted (a file with other names may be left
      // out of the answer by the access policy, so its matches do not count).
      let shown = 0;
      const results = msg.jobs.map((job) => {
        const result = scan(shown >= init.perFileLimit ? { ...job, details: false } : job, init, re);
        if (result.opened?.nlink === 1) shown += result.matches.length;
        return result;
      });
      const reply: WorkerReply = { id: msg.id, results };
      port.postMessage(reply);
    } catch (err) {
      const reply: WorkerReply = { id: msg.id, error: String((err instanceof Error && err.stack) || err) };
      port.postMessage(reply);
    }
  });
}
