/**
 * The in-process search's worker (see fallback.ts), and what it is started with.
 */

export interface WorkerInit {
  readonly source: string;
  readonly flags: string;
  readonly contextLines: number;
  readonly perFileLimit: number;
  readonly maxFileSize: number;
  readonly maxLine: number;
  readonly maxShown: number;
  readonly chunkBytes: number;
}

/**
 * The worker: plain JavaScript (it runs from a string, so it works the same from the tsx test
 * runner and from the esbuild bundle). It streams a file in bounded chunks, decodes it the way
 * ripgrep does (a UTF-8 BOM is dropped, UTF-16 with a BOM is transcoded, everything else is UTF-8),
 * skips it when binary (a NUL after decoding), splits it at '\n' and matches line by line.
 *
 * It opens the file as safeRead.ts does (no final link followed, no blocking, a regular file on the
 * handle, on Linux the handle's path the one walked) and reports the handle's identity.
 */
export const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { source, flags, contextLines, perFileLimit, maxFileSize, maxLine, maxShown, chunkBytes } = workerData;
const re = new RegExp(source, flags);
// Opened without following a final link and without blocking (a FIFO swapped in must not hang the read).
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW || 0) | (fs.constants.O_NONBLOCK || 0);
const PROC_FD = process.platform === 'linux' && fs.existsSync('/proc/self/fd') ? '/proc/self/fd/' : undefined;

function stripCr(line) {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
function safeCut(text, index) {
  if (index > 0 && index < text.length) {
    const code = text.charCodeAt(index);
    if (code >= 0xdc00 && code <= 0xdfff) return index - 1;
  }
  return index;
}
// The same as clipLine and shownLine in types.ts (this worker cannot import them).
function shown(raw, column) {
  const text = stripCr(raw);
  if (text.length <= maxShown) return text;
  let start = 0;
  if (column !== undefined) start = Math.max(0, Math.min(column - 1 - Math.floor(maxShown / 4), text.length - maxShown));
  start = safeCut(text, start);
  const end = safeCut(text, start + maxShown);
  return (start > 0 ? '…' : '') + text.slice(start, end) + (end < text.length ? '…' : '');
}

// Decodes as ripgrep does, chunk by chunk: a UTF-8 BOM is dropped, UTF-16 with a BOM is
// transcoded, everything else is UTF-8.
function decoderFor(first) {
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
    let odd;
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

// Reads the file in chunks of chunkBytes and matches line by line, holding at most maxLine
// characters of a line (the rest of a longer line is neither kept nor searched), the last
// contextLines lines as shown, and the first perFileLimit matches.
function scan(job) {
  const none = { rel: job.rel, count: 0, matches: [] };
  let fd;
  try {
    fd = fs.openSync(job.abs, OPEN_FLAGS);
  } catch (err) {
    return none;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || (!job.explicit && st.size > maxFileSize)) return none;
    // As safeRead.ts: on Linux the handle's path must be the one walked (no folder swapped on the way).
    if (PROC_FD) {
      let at;
      try {
        at = fs.readlinkSync(PROC_FD + fd);
      } catch {
        at = undefined;
      }
      if (at !== undefined && at !== job.abs) return none;
    }
    const buf = Buffer.alloc(chunkBytes);
    let decoder;
    let line = '';
    let lineCut = false;
    let lineNo = 0;
    let count = 0;
    let partly = 0;
    let total = 0;
    const matches = [];
    const recent = [];
    let pending = [];
    const onLine = (text, cut) => {
      lineNo++;
      if (cut) partly++;
      for (const p of pending) p.after.push(shown(text));
      pending = pending.filter((p) => p.after.length < contextLines);
      const m = re.exec(text);
      if (m !== null) {
        count++;
        if (job.details && matches.length < perFileLimit) {
          const match = { line: lineNo, column: m.index + 1, text: shown(text, m.index + 1), before: recent.slice(), after: [] };
          if (cut) match.cut = true;
          matches.push(match);
          if (contextLines > 0) pending.push(match);
        }
      }
      if (contextLines > 0) {
        recent.push(shown(text));
        if (recent.length > contextLines) recent.shift();
      }
    };
    const take = (text) => {
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
    const result = { rel: job.rel, count, matches, opened: { dev: st.dev, ino: st.ino, nlink: st.nlink } };
    if (partly > 0) result.partlySearchedLines = partly;
    return result;
  } catch (err) {
    return none;
  } finally {
    fs.closeSync(fd);
  }
}

parentPort.on('message', (msg) => {
  try {
    parentPort.postMessage({ id: msg.id, results: msg.jobs.map(scan) });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, error: String((err && err.stack) || err) });
  }
});
`;
