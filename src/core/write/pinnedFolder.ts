import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { ToolError } from '../protocol/errors';
import { changed, type JudgedPath } from './judgedPath';

const OPEN_FOLDER = fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);
/** A new file: never through anything already at that name, a link included. */
export const CREATE_NEW = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);

/**
 * Node has no openat. On Linux, `/proc/self/fd/N/name` is resolved through the open folder N itself,
 * whatever its path leads to by then: the same guarantee. Elsewhere names are used, checked before
 * and after each step (a narrower race remains there; see the README's threat model).
 */
const PROC_FD = '/proc/self/fd';
let procUsable: boolean | undefined;
function throughProc(): boolean {
  procUsable ??= process.platform === 'linux' && fs.existsSync(PROC_FD);
  return procUsable;
}

const isErr = (e: unknown, ...codes: string[]) => codes.includes((e as NodeJS.ErrnoException).code ?? '');

/**
 * The folder a judged file goes in, opened one level at a time from the project root without
 * following a link, each level checked against the identity it had when the path was judged, and
 * kept open: every name in it (`entry`) is reached through the open folder, not by its path again.
 * Missing folders are made one level at a time the same way (and removed again if the write is
 * refused). Shared by the write and the watchers after it: each holder calls `release` once.
 */
export class PinnedFolder {
  private holders = 1;

  private constructor(
    private readonly judged: JudgedPath,
    private readonly handle: fsp.FileHandle,
    /** Folders made here, outermost first. */
    private readonly made: readonly string[],
  ) {}

  static async open(judged: JudgedPath): Promise<PinnedFolder> {
    await judged.recheck();
    const rel = judged.access.rel;
    const folders = judged.folders;
    const made: string[] = [];
    let handle = await fsp.open(folders[0].abs, fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0));
    try {
      if (!judged.matches(0, await handle.stat())) throw changed(rel, 'since it was checked');
      for (let i = 1; i < folders.length; i++) {
        const where = throughProc() ? `${PROC_FD}/${handle.fd}/${path.basename(folders[i].abs)}` : folders[i].abs;
        let next: fsp.FileHandle;
        try {
          next = await openFolder(where, rel);
        } catch (e) {
          // Only a folder that did not exist when the path was judged is made; one that went away since is a change.
          if (!isErr(e, 'ENOENT') || folders[i].id) throw isErr(e, 'ENOENT') ? changed(rel, 'since it was checked') : e;
          try {
            // Not recursive: each level is made inside the one just opened and checked.
            await fsp.mkdir(where);
            made.push(folders[i].abs);
          } catch (m) {
            if (!isErr(m, 'EEXIST')) throw m;
          }
          next = await openFolder(where, rel, true);
        }
        const st = await next.stat().catch(async (e: unknown) => {
          await next.close();
          throw e;
        });
        await handle.close();
        handle = next;
        if (!judged.matches(i, st)) throw changed(rel, 'since it was checked');
      }
    } catch (e) {
      await handle.close().catch(() => undefined);
      await removeMade(judged, made);
      // A folder on the way removed or replaced while it was opened or made.
      throw isErr(e, 'ENOENT') ? changed(rel, 'since it was checked') : e;
    }
    const pinned = new PinnedFolder(judged, handle, made);
    try {
      await pinned.verify('since it was checked');
    } catch (e) {
      await pinned.undoFolders();
      await pinned.release();
      throw e;
    }
    return pinned;
  }

  /** A name in this folder, reached through the open folder where the platform allows it. */
  entry(name: string): string {
    return throughProc() ? `${PROC_FD}/${this.handle.fd}/${name}` : path.join(this.judged.folder, name);
  }

  /**
   * Throws PERMISSION_DENIED unless the path still leads here: every folder on the way is the one
   * judged, and the folder found by name is the open one.
   */
  async verify(when: string): Promise<void> {
    this.judged.checkFolders(when);
    const mine = await this.handle.stat();
    let byName: fs.Stats;
    try {
      byName = await fsp.lstat(this.judged.folder);
    } catch {
      throw changed(this.judged.access.rel, when);
    }
    if (!byName.isDirectory() || byName.dev !== mine.dev || byName.ino !== mine.ino) throw changed(this.judged.access.rel, when);
  }

  /**
   * An error from a step inside this folder, as the agent may see it: the folder gone meanwhile
   * (ENOENT: removed, or replaced by a rename) is a change of the path; any other names the
   * folder by its path, not by the open handle.
   */
  explain(e: unknown): unknown {
    if (e instanceof ToolError || !(e instanceof Error)) return e;
    if (isErr(e, 'ENOENT')) return changed(this.judged.access.rel, 'while the change was being written');
    if (throughProc()) e.message = e.message.split(`${PROC_FD}/${this.handle.fd}`).join(this.judged.folder);
    return e;
  }

  /** Removes the folders made for a write that was then refused (only while empty). */
  async undoFolders(): Promise<void> {
    await removeMade(this.judged, this.made);
  }

  retain(): this {
    this.holders++;
    return this;
  }

  async release(): Promise<void> {
    if (--this.holders === 0) await this.handle.close().catch(() => undefined);
  }
}

async function openFolder(where: string, rel: string, made = false): Promise<fsp.FileHandle> {
  try {
    return await fsp.open(where, OPEN_FOLDER);
  } catch (e) {
    // A link (ELOOP), or a file where a folder was: not what was judged. Gone right after it was made: moved away.
    if (isErr(e, 'ELOOP', 'ENOTDIR', 'EMLINK') || (made && isErr(e, 'ENOENT'))) throw changed(rel, 'since it was checked');
    throw e;
  }
}

/** Innermost first, and only while the path by name is still the judged one (else they stay, empty). */
async function removeMade(judged: JudgedPath, made: readonly string[]): Promise<void> {
  if (made.length === 0) return;
  try {
    judged.checkFolders();
  } catch {
    return;
  }
  for (const dir of [...made].reverse()) await fsp.rmdir(dir).catch(() => undefined);
}
