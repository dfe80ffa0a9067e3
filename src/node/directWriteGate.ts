import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import type { ChangeGate, CommittedChange, ProposedChange } from '../core/write/gate';
import { ToolError } from '../core/protocol/errors';
import { decodeText, encodeText } from '../core/workspace/text';
import { CREATE_NEW, PinnedFolder } from '../core/write/pinnedFolder';

/** How long after the rename the replaced original is watched for a write from a writer that had it open. */
const LATE_WRITER_MS = 30;
/**
 * After that, the replaced original is still watched this long in the background: a writer that
 * opened it before the rename but was descheduled longer than LATE_WRITER_MS appends to a file
 * nobody reads any more. What it appends there is moved to the end of the new file.
 */
const LATE_APPEND_WATCH_MS = 1500;
const LATE_APPEND_POLL_MS = 50;

const OPEN_ORIGINAL = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
/** Appending back a racing writer's bytes: never through a link that replaced the file meanwhile. */
const OPEN_APPEND = fs.constants.O_WRONLY | fs.constants.O_APPEND | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

async function appendNoFollow(abs: string, bytes: Buffer): Promise<void> {
  const handle = await fsp.open(abs, OPEN_APPEND);
  try {
    if (!(await handle.stat()).isFile()) return;
    await handle.write(bytes);
  } finally {
    await handle.close();
  }
}

async function readFrom(handle: fsp.FileHandle): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let position = 0;
  for (;;) {
    const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(256 * 1024), 0, 256 * 1024, position);
    if (bytesRead === 0) return Buffer.concat(chunks);
    chunks.push(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
}

const WHILE_WRITING = 'while the change was being written';

/**
 * A name for a file of ours beside the target. Short and of fixed length, whatever the target's
 * name: a name near the 255-byte limit must still be writable. Random, so two hosts never meet.
 */
function scratchName(kind: 'tmp' | 'back' | 'keep'): string {
  return `.agent-bridge-${process.pid}-${randomBytes(6).toString('hex')}.${kind}`;
}

/** A system error as the agent may see it: the code and the project-relative path, never an absolute one. */
function withoutPaths(e: unknown, rel: string): unknown {
  if (e instanceof ToolError || !(e instanceof Error)) return e;
  const code = (e as NodeJS.ErrnoException).code;
  return code ? new ToolError('INTERNAL_ERROR', `Writing ${rel} failed (${code}). Read the file again to see what it holds before another change.`) : e;
}

/** A new file with exactly these bytes and mode, never through a name that exists (a link included); its stat. */
async function createFile(where: string, bytes: Buffer, mode: number): Promise<fs.Stats> {
  const handle = await fsp.open(where, CREATE_NEW, 0o600);
  try {
    await handle.writeFile(bytes);
    await handle.chmod(mode);
    return await handle.stat();
  } finally {
    await handle.close();
  }
}

/**
 * After the rename: the file's path must still lead, through the judged folders, to the file just
 * written. If not (a folder on the way was moved or swapped in that instant) the write is taken
 * back, a new file removed and a replaced one's bytes put back, and the call refused.
 */
async function landedWhereJudged(change: ProposedChange, folder: PinnedFolder, name: string, made: fs.Stats, before: Buffer | undefined, mode: number): Promise<void> {
  try {
    await folder.verify(WHILE_WRITING);
    const byName = await fsp.lstat(change.path.abs).catch(() => undefined);
    if (byName?.dev !== made.dev || byName.ino !== made.ino) throw new ToolError('PERMISSION_DENIED', `${change.path.rel} no longer led to the file just written (a folder on the way moved); the change was taken back and nothing was written.`);
    await change.judged.recheck(WHILE_WRITING);
  } catch (e) {
    const here = folder.entry(name);
    const now = await fsp.lstat(here).catch(() => undefined);
    if (now && now.dev === made.dev && now.ino === made.ino) {
      if (before === undefined) await fsp.rm(here, { force: true });
      else {
        const back = folder.entry(scratchName('back'));
        try {
          await createFile(back, before, mode);
          await fsp.rename(back, here);
        } finally {
          await fsp.rm(back, { force: true });
        }
      }
    }
    throw e;
  }
}

/**
 * The headless host's gate, used only with --auto-approve: nobody is asked, so it writes only what
 * autoApprove writes without asking (source code and prose, see unaskedWrites.ts); a change to a
 * protected file (`.git`, `.vscode`, CI configuration, …) or a tool's configuration is refused,
 * and a secret one never gets here (this gate has no `allowSecretChange`).
 *
 * The path is judged again right before the write, its folder opened level by level and every
 * name reached through that open folder (see PinnedFolder). The write is atomic and loses nobody's
 * work: the original is opened (never through a link) and kept open; its bytes must still be what
 * the change was computed from; the new text goes to a file beside it with the original's mode,
 * which then replaces it by rename (a new file by a hard link, which fails rather than overwrite
 * one that appeared meanwhile). Right before the rename the name must still hold the original: an
 * editor's atomic save since is kept and the call answers CONFLICT (a save landing between that
 * check and the rename, one system call apart, is still replaced). After the rename the kept
 * original is read again: if another writer changed it in between, their text is put back and the
 * call answers CONFLICT, so a racing write is never silently lost.
 */
export class DirectWriteGate implements ChangeGate {
  async commit(change: ProposedChange, signal: AbortSignal): Promise<CommittedChange> {
    if (signal.aborted) throw new ToolError('CANCELLED', 'The call was cancelled before the change was written.');
    const { rel } = change.path;
    if (change.path.kind !== 'normal') {
      throw new ToolError(
        'PERMISSION_DENIED',
        `${rel} is a ${change.path.kind} file (it matches "${change.path.rule}"${change.path.matched !== rel ? ` as ${change.path.matched}` : ''}): a change to it always needs a person's decision, and this host has nobody to ask. Nothing was written.`,
      );
    }
    const unasked = change.judged.unaskedWrite();
    if (!unasked.unasked) {
      throw new ToolError('PERMISSION_DENIED', `${unasked.why}: with --auto-approve this host writes only source files and prose, and has nobody to ask about other files. Nothing was written. Open the project in VS Code to review such a change.`);
    }
    const conflict = () => new ToolError('CONFLICT', `${rel} changed while the change was being prepared; nothing was written. Read it again and retry.`);
    // Judged again, and the folder opened level by level without following a link: every name
    // below is reached through it, so a folder swapped for a link afterwards changes nothing here.
    const folder = await PinnedFolder.open(change.judged);
    const name = path.basename(change.path.abs);
    let original: fsp.FileHandle | undefined;
    let wrote = false;
    try {
      try {
        original = await fsp.open(folder.entry(name), OPEN_ORIGINAL);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') throw new ToolError('PERMISSION_DENIED', `${rel} changed into a link while the change was prepared; nothing was written.`);
        if (code !== 'ENOENT') throw e;
      }
      const info = await original?.stat();
      if (info && !info.isFile()) throw new ToolError('BAD_REQUEST', `${rel} is not a regular file; nothing was written.`);
      const before = original ? await readFrom(original) : undefined;
      if ((before === undefined ? undefined : decodeText(before).text) !== change.original) throw conflict();
      const bytes = Buffer.from(encodeText(change.proposed, change.encoding));
      // The original's mode exactly (a mode given at creation is cut by the umask: 0664 became 0644).
      const mode = info ? info.mode & 0o7777 : 0o666 & ~process.umask();
      const tmp = folder.entry(scratchName('tmp'));
      try {
        const made = await createFile(tmp, bytes, mode);
        await change.judged.recheck(WHILE_WRITING);
        await folder.verify(WHILE_WRITING);
        if (info) {
          // An editor's atomic save (a new file renamed over the name) since the original was read
          // would be replaced unseen: the name must still hold the original, checked last thing
          // before the rename, back to back with it.
          const atName = await fsp.lstat(folder.entry(name)).catch(() => undefined);
          if (atName?.dev !== info.dev || atName.ino !== info.ino) {
            throw new ToolError('CONFLICT', `${rel} was saved by another program while the change was being written; their text was kept and nothing of this change was written. Read it again and retry.`);
          }
          await fsp.rename(tmp, folder.entry(name));
        } else {
          try {
            // A hard link fails rather than overwrite a file that appeared meanwhile.
            await fsp.link(tmp, folder.entry(name));
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw conflict();
            throw e;
          }
          // Gone before the checks below: a file with two names would be judged by its hard links.
          await fsp.rm(tmp, { force: true });
        }
        wrote = true;
        await landedWhereJudged(change, folder, name, made, before, mode);
      } finally {
        await fsp.rm(tmp, { force: true });
      }
      if (original && before) {
        // From here the original belongs to keepRacingWrites: it stays open for late writers.
        const kept = original;
        original = undefined;
        await this.keepRacingWrites(kept, before, bytes, folder, name, rel, info?.mode);
      }
    } catch (e) {
      if (!wrote) await folder.undoFolders();
      throw withoutPaths(folder.explain(e), rel);
    } finally {
      await original?.close();
      await folder.release();
    }
    return { finalText: change.proposed, modifiedByUser: false, formatted: false, saved: true };
  }

  /**
   * After the rename: if the kept original changed since it was checked, another writer wrote to it
   * in between. Their text goes back, with whatever they appended to our new file meanwhile (an
   * appender switches to the new file at the rename), and the call answers CONFLICT.
   */
  private async keepRacingWrites(original: fsp.FileHandle, before: Buffer, mine: Buffer, folder: PinnedFolder, name: string, rel: string, mode: number | undefined): Promise<void> {
    let theirs: Buffer;
    try {
      theirs = await readFrom(original);
      if (theirs.equals(before)) {
        // A writer that opened the file just before the rename writes a moment later: look once more.
        await new Promise((r) => setTimeout(r, LATE_WRITER_MS));
        theirs = await readFrom(original);
      }
    } catch (e) {
      await original.close().catch(() => undefined);
      throw e;
    }
    if (theirs.equals(before)) {
      // Kept open a while longer, for a writer descheduled past that look; the watch closes it.
      void watchLateAppends(original, before.length, folder.retain(), name);
      return;
    }
    void watchLateAppends(original, theirs.length, folder.retain(), name);
    let placed: fsp.FileHandle | undefined;
    try {
      placed = await fsp.open(folder.entry(name), OPEN_ORIGINAL);
      const now = await readFrom(placed);
      // Appended to our text since the rename: keep it after theirs. A whole new text: it is the newest.
      const back = now.subarray(0, mine.length).equals(mine) ? Buffer.concat([theirs, now.subarray(mine.length)]) : now;
      const keep = folder.entry(scratchName('keep'));
      try {
        await createFile(keep, back, (mode ?? 0o600) & 0o7777);
        await fsp.rename(keep, folder.entry(name));
      } finally {
        await fsp.rm(keep, { force: true });
      }
      // Appends that reached our file between that read and this rename (or just after, from a
      // writer that had it open) go after it too.
      await new Promise((r) => setTimeout(r, LATE_WRITER_MS));
      const late = await readFrom(placed);
      if (late.length > now.length) await appendNoFollow(folder.entry(name), late.subarray(now.length));
      // And later ones, from a writer that had our file open: watched like the original.
      void watchLateAppends(placed, late.length, folder.retain(), name);
      placed = undefined;
    } finally {
      await placed?.close();
    }
    throw new ToolError('CONFLICT', `${rel} changed while the change was being written; the other writer's text was kept and nothing of this change was written. Read it again and retry.`);
  }
}

/**
 * Watches the replaced original (kept open) for bytes appended after the rename by a writer that
 * had it open, and appends them to the file now named `name` in the pinned folder, so nothing is
 * lost (its lines may land after ones written to the new file meanwhile). Closes the handle and
 * releases the folder when done.
 */
async function watchLateAppends(original: fsp.FileHandle, size: number, folder: PinnedFolder, name: string): Promise<void> {
  try {
    const end = Date.now() + LATE_APPEND_WATCH_MS;
    let seen = size;
    while (Date.now() < end) {
      await new Promise((r) => setTimeout(r, LATE_APPEND_POLL_MS).unref());
      const now = (await original.stat()).size;
      if (now <= seen) continue;
      const extra = Buffer.alloc(now - seen);
      const { bytesRead } = await original.read(extra, 0, extra.length, seen);
      await appendNoFollow(folder.entry(name), extra.subarray(0, bytesRead));
      seen += bytesRead;
    }
  } catch {
    // The file went away or cannot be appended to: nothing more to keep.
  } finally {
    await original.close().catch(() => undefined);
    await folder.release();
  }
}
