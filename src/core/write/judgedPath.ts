import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../protocol/errors';
import type { Access, AccessKind, AccessPolicy } from '../policy/accessPolicy';
import { unaskedWrite, type UnaskedWrite } from '../policy/unaskedWrites';

/** What a host that writes by name calls right before each step that touches the disk. */
export interface WriteCheck {
  /** Throws PERMISSION_DENIED, naming `when`, if the path no longer leads where it did. */
  recheck(when?: string): Promise<void>;
}

/** One folder on the way from the project root to a file, as it was when the path was judged. */
interface FolderSeen {
  readonly abs: string;
  /** Its identity then; undefined when it did not exist yet (the write creates it). */
  readonly id: { readonly dev: number; readonly ino: number } | undefined;
}

/** A path to be written as the access policy judges it now, and what its other names (hard links) make it. */
interface Judgement {
  readonly access: Access;
  /** 'normal' unless the file has other names: then the class of the strictest (secret when not all were found). */
  readonly linked: AccessKind;
}

/**
 * Resolves and classifies a path to be written through the one access policy (`forWrite`: a file
 * with a protected other name, a hard link, is protected too, and so is one inside a git directory).
 */
async function judgeNow(policy: AccessPolicy, requested: string): Promise<Judgement> {
  const target = await policy.resolve(requested);
  const [byHardLink, byLink] = await Promise.all([policy.linkedKind(target.abs), policy.ledToKind(target.abs)]);
  const linked: AccessKind = byHardLink === 'secret' || byLink === 'secret' ? 'secret' : byHardLink === 'protected' || byLink === 'protected' ? 'protected' : 'normal';
  return { access: await policy.forWrite(target), linked };
}

function lstatOrUndefined(abs: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * A path to be written, as the access policy judged it, with the identity (device and inode) of
 * every folder from the project root down to the file's folder. Symbolic links are resolved once,
 * when a path is judged; a folder swapped for a link (or another folder) afterwards would send the
 * write elsewhere, so every host calls `recheck` immediately before it writes, creates or renames,
 * and refuses when anything, the classification included, is not as it was judged (or approved).
 */
export class JudgedPath implements WriteCheck {
  private constructor(
    private readonly policy: AccessPolicy,
    readonly access: Access,
    private readonly linked: AccessKind,
    /** From the root itself down to the file's folder. */
    readonly folders: readonly FolderSeen[],
  ) {}

  /**
   * Judges `requested` now. `earlier`, the dispatcher's judgement of the same path moments ago,
   * must still lead to the same file: a path that changed in between is refused.
   */
  static async judge(policy: AccessPolicy, root: string, requested: string, earlier?: Access): Promise<JudgedPath> {
    const { access, linked } = await judgeNow(policy, requested);
    // (The class is taken from this judgement, which also looks at hard links.)
    if (earlier && earlier.abs !== access.abs) throw changed(access.rel, 'while the call was being checked');
    const folders: FolderSeen[] = [];
    const rel = path.relative(root, path.dirname(access.abs));
    const parts = rel === '' ? [] : rel.split(path.sep);
    let missing = false;
    let abs = root;
    for (let i = 0; i <= parts.length; i++) {
      if (i > 0) abs = path.join(abs, parts[i - 1]);
      // The root may be reached through a link of the developer's own; below it, nothing may be one.
      let st: fs.Stats | undefined;
      try {
        st = missing ? undefined : i === 0 ? fs.statSync(abs) : lstatOrUndefined(abs);
      } catch {
        throw changed(access.rel, 'while the call was being checked');
      }
      if (st && !st.isDirectory()) throw changed(access.rel, 'while the call was being checked');
      missing = st === undefined;
      folders.push({ abs, id: st && { dev: st.dev, ino: st.ino } });
    }
    return new JudgedPath(policy, access, linked, folders);
  }

  /**
   * Whether autoApprove may write the file without asking (unaskedWrites.ts), judged by the name
   * given and the name it leads to. A secret or protected file, or one with other names (hard
   * links, whose other names could be anything), always asks.
   */
  unaskedWrite(): UnaskedWrite {
    const { rel, kind, rule } = this.access;
    if (kind !== 'normal') return { unasked: false, why: `${rel} is a ${kind} file (it matches "${rule ?? '?'}")` };
    if (this.linked !== 'normal') return { unasked: false, why: `${rel} is a ${this.linked} file through another name of it (a link)` };
    if ((lstatOrUndefined(this.access.abs)?.nlink ?? 1) > 1) return { unasked: false, why: `${rel} has other names (hard links)` };
    const real = path.relative(this.folders[0].abs, this.access.abs).split(path.sep).join('/');
    return real === rel ? unaskedWrite(rel) : unaskedWrite(rel, real);
  }

  /** The file's folder, as judged. */
  get folder(): string {
    return this.folders[this.folders.length - 1].abs;
  }

  /**
   * Judges the whole path again and throws PERMISSION_DENIED unless it is exactly as judged: the
   * same real path and class through the access policy, every folder that existed the same folder
   * (not a link, not another one), every folder that did not a real folder if it exists now.
   */
  async recheck(when = 'since it was checked'): Promise<void> {
    const rel = this.access.rel;
    this.checkFolders(when);
    let now: Judgement;
    try {
      now = await judgeNow(this.policy, rel);
    } catch (e) {
      if (e instanceof ToolError && e.code === 'PERMISSION_DENIED') throw changed(rel, when);
      throw e;
    }
    if (now.access.abs !== this.access.abs) throw changed(rel, when);
    // Another name of the file (a hard link) that is secret or protected counts as the file's own class.
    const kind = now.linked !== this.linked && now.linked !== 'normal' ? now.linked : now.access.kind;
    if (kind !== this.access.kind || now.linked !== this.linked) {
      throw new ToolError(
        'PERMISSION_DENIED',
        `${rel} became a ${kind} file ${when}${now.linked !== this.linked ? ' (through another name of it, a hard link)' : ''}; a change judged for what it was is not written to what it is now. Nothing was written.`,
      );
    }
    // And once more after the policy's own look, which took a moment.
    this.checkFolders(when);
  }

  /** Throws unless every folder on the way is the one judged (see recheck); synchronous, so nothing runs in between. */
  checkFolders(when = 'since it was checked'): void {
    for (const f of this.folders) {
      let st: fs.Stats | undefined;
      try {
        st = f === this.folders[0] ? fs.statSync(f.abs) : lstatOrUndefined(f.abs);
      } catch {
        throw changed(this.access.rel, when); // a folder on the way became a file (ENOTDIR) or a loop
      }
      if (!f.id) {
        if (st && !st.isDirectory()) throw changed(this.access.rel, when);
        continue;
      }
      if (!st || !st.isDirectory() || st.dev !== f.id.dev || st.ino !== f.id.ino) throw changed(this.access.rel, when);
    }
  }

  /** Whether an open folder (its fstat) is the one judged at `index` (a folder that did not exist then matches any). */
  matches(index: number, st: fs.Stats): boolean {
    const id = this.folders[index].id;
    return id === undefined || (st.dev === id.dev && st.ino === id.ino);
  }
}

/** The refusal when a folder on the way to `rel` is no longer the one judged. */
export function changed(rel: string, when: string): ToolError {
  return new ToolError(
    'PERMISSION_DENIED',
    `A folder on the way to ${rel} changed ${when} (swapped for a link or another folder), so the path no longer leads where it was judged to; nothing was written.`,
  );
}

/**
 * For a host that can only create by name (VS Code's file service): after it created `bytes` at the
 * judged path, the path must still be as judged. If it is not, the name may have led elsewhere in
 * that instant: the file it made where the name leads now (a regular file holding exactly those
 * bytes, which did not exist before, as the create refuses to overwrite) is removed, and the call
 * refused.
 */
export async function confirmCreated(judged: JudgedPath, bytes: Uint8Array): Promise<void> {
  try {
    await judged.recheck('while the new file was being created');
  } catch (e) {
    try {
      const landed = fs.realpathSync(path.join(judged.folders[0].abs, judged.access.rel));
      const st = fs.lstatSync(landed);
      if (st.isFile() && st.size === bytes.byteLength && fs.readFileSync(landed).equals(bytes)) fs.unlinkSync(landed);
    } catch {
      // Nothing found where the name leads now: it was swapped back meanwhile.
    }
    throw e;
  }
}

/**
 * For a file written earlier whose path was judged then (a revert of the agent's change): its path
 * must still lead to itself, through no link that appeared since.
 */
export function stillLeadsTo(abs: string): WriteCheck {
  return {
    recheck: async (when = 'since it was written') => {
      const real = await fs.promises.realpath(abs).catch(() => {
        throw changed(abs, when);
      });
      if (real !== abs) throw changed(abs, when);
    },
  };
}
