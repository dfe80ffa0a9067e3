/**
 * Reading a file the access policy has cleared, so that what is read is what was checked:
 *
 *  - opened without following a final symbolic link and without blocking (a FIFO would otherwise
 *    hang the host), then judged on the open handle (`fstat`): only a regular file is read;
 *  - on Linux, the open handle's own path (`/proc/self/fd/N`) must be the path that was checked, so
 *    a folder swapped for a symbolic link between the check and the open cannot lead elsewhere;
 *  - a file with more than one name (a hard link) is read only when the caller's LinkedCheck clears
 *    the open handle: one of its other names may be a secret, and a check made by name before the
 *    open cannot see a link swapped in after it;
 *  - bounded in bytes: nothing larger than `maxBytes` is loaded into memory.
 *
 * Failures are errors with a `code`: ENOENT, ENOTREG (not a regular file), EFBIG (too large),
 * ESWAPPED (the path led somewhere else once opened), ECHANGED (not the file that was checked),
 * ELINKED (a hard link not cleared), or the system's own.
 */
import * as fs from 'node:fs';
import type { LinkedCheck, OpenedFile } from '../workspace/workspace';

/** Largest file any tool loads: larger ones get a clear error instead of filling the host's memory. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

const FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);
const PROC_FD = process.platform === 'linux' && fs.existsSync('/proc/self/fd') ? '/proc/self/fd/' : undefined;

export class ReadRefusal extends Error {
  constructor(
    readonly code: 'ENOTREG' | 'EFBIG' | 'ESWAPPED' | 'ECHANGED' | 'ELINKED',
    message: string,
    readonly size?: number,
  ) {
    super(message);
  }
}

/**
 * What a check saw of the file, for a read made later elsewhere (a parse worker): the handle must
 * show the same size and modification time (to the millisecond: an editor's stat may round), and
 * one name only, since hard links were judged by the checker, not here.
 */
export interface CheckedFile {
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * Refuses a handle `linked` does not clear; without a check, one with more than one name is never
 * read. The check sees every handle: one name now may still be a secret's inode.
 */
function refuseUnclearedLink(st: OpenedFile, abs: string, linked: LinkedCheck | undefined): void {
  if (linked ? !linked(st) : st.nlink > 1) throw new ReadRefusal('ELINKED', `the file has other names (hard links) that were not cleared: ${abs}`);
}

function check(fd: number, abs: string, maxBytes: number, checked?: CheckedFile, linked?: LinkedCheck): number {
  const st = fs.fstatSync(fd);
  if (!st.isFile()) throw new ReadRefusal('ENOTREG', `not a regular file: ${abs}`);
  if (checked && (st.size !== checked.size || Math.abs(st.mtimeMs - checked.mtimeMs) >= 1 || st.nlink > 1)) {
    throw new ReadRefusal('ECHANGED', `not the file that was checked: ${abs}`);
  }
  refuseUnclearedLink(st, abs, linked);
  if (st.size > maxBytes) throw new ReadRefusal('EFBIG', `file of ${st.size} bytes is over the ${maxBytes}-byte limit: ${abs}`, st.size);
  if (PROC_FD) {
    let opened: string | undefined;
    try {
      opened = fs.readlinkSync(PROC_FD + fd);
    } catch {
      opened = undefined; // no /proc access here (a sandbox): the other checks stand
    }
    if (opened !== undefined && opened !== abs) throw new ReadRefusal('ESWAPPED', `the path led elsewhere once opened: ${abs}`);
  }
  return st.size;
}

/** Reads from `fd` until end of file or past `maxBytes` (a file may grow while it is read). */
function readAll(fd: number, size: number, maxBytes: number, abs: string): Buffer {
  let buf = Buffer.allocUnsafe(Math.max(size, 1) + 1);
  let len = 0;
  for (;;) {
    if (len === buf.length) {
      if (len > maxBytes) throw new ReadRefusal('EFBIG', `file grew over the ${maxBytes}-byte limit while read: ${abs}`, len);
      const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, maxBytes + 1));
      buf.copy(bigger, 0, 0, len);
      buf = bigger;
    }
    let n: number;
    try {
      n = fs.readSync(fd, buf, len, buf.length - len, null);
    } catch (e) {
      // A FIFO or device slipped past fstat cannot be here, but a non-blocking read says EAGAIN, never hangs.
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') throw new ReadRefusal('ENOTREG', `not a regular file: ${abs}`);
      throw e;
    }
    if (n === 0) return buf.subarray(0, len);
    len += n;
  }
}

/** Synchronous: for small files, where a thread-pool round trip costs more than the read. `checked`: see CheckedFile; `linked`: see LinkedCheck. */
export function readRegularFileSync(abs: string, maxBytes = MAX_FILE_BYTES, checked?: CheckedFile, linked?: LinkedCheck): Buffer {
  const fd = fs.openSync(abs, FLAGS);
  try {
    return readAll(fd, check(fd, abs, maxBytes, checked, linked), maxBytes, abs);
  } finally {
    fs.closeSync(fd);
  }
}

/** Asynchronous open and checks; the read itself is bounded by `maxBytes`. `linked`: see LinkedCheck. */
export async function readRegularFile(abs: string, maxBytes = MAX_FILE_BYTES, linked?: LinkedCheck): Promise<Buffer> {
  const handle = await fs.promises.open(abs, FLAGS);
  try {
    const size = check(handle.fd, abs, maxBytes, undefined, linked);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const want = Math.max(64 * 1024, Math.min(size - total + 1, 4 * 1024 * 1024));
      const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(want), 0, want, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw new ReadRefusal('EFBIG', `file grew over the ${maxBytes}-byte limit while read: ${abs}`, total);
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

/** The first `bytes` of a regular file with one name (undefined for anything else, or a hard link not cleared by `linked`): enough to sniff its kind. */
export async function readHead(abs: string, bytes: number, linked?: LinkedCheck): Promise<Buffer | undefined> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(abs, FLAGS);
    const st = await handle.stat();
    if (!st.isFile()) return undefined;
    refuseUnclearedLink(st, abs, linked);
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
