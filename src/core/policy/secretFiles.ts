/**
 * Where the project's secret files are, kept current cheaply: each call looks at every folder again,
 * but a folder whose modification time is unchanged since the last look (so no entry was added,
 * removed or renamed in it) is not read again. Not into node_modules, whose packages are no
 * developer's secret, nor into `.git`, whose objects and refs no language service reads as source.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SecretGuard } from '../workspace/globSet';

/** Bounds of one look at the project: time, directory entries, secret files found. */
const WALK_MS = 3_000;
const WALK_ENTRIES = 200_000;
const MAX_SECRET_FILES = 1_000;
/** Folders looked at once. */
const WALK_PARALLEL = 8;
/** Entries judged between two turns of the event loop. */
const ENTRIES_PER_TURN = 2_000;
/**
 * A folder changed this recently is read again each time: an entry added in the same tick of a
 * coarse clock leaves its modification time as it was.
 */
const RACY_MS = 2_000;

interface FolderSeen {
  readonly ino: number;
  readonly mtimeMs: number;
  readonly entries: number;
  readonly folders: readonly string[];
  readonly secrets: readonly string[];
}

/** A project too large to list is not walked again for this long: the answer stays "unknown" (fail closed) meanwhile. */
const OVER_BOUND_MS = 30_000;

/** One project's secret files; its AccessPolicy keeps one, so what the last walk saw lives as long as the workspace. */
export class SecretFileList {
  /** The folders as the last complete walk saw them, for the secret globs it judged with. */
  private listing: { readonly guard: SecretGuard; readonly folders: ReadonlyMap<string, FolderSeen> } | undefined;
  /** When a walk last ran over its bounds, for those globs. */
  private overBound: { readonly guard: SecretGuard; readonly at: number } | undefined;

  constructor(private readonly root: string) {}

  /** Absolute paths of the project's secret files (links included), or undefined when a bound was hit. */
  async list(guard: SecretGuard): Promise<string[] | undefined> {
    const over = this.overBound;
    if (over && over.guard === guard && Date.now() - over.at < OVER_BOUND_MS) return undefined;
    const found = await walk(this.root, guard, this.listing?.guard === guard ? this.listing.folders : undefined);
    if (!found) {
      this.listing = undefined;
      this.overBound = { guard, at: Date.now() };
      return undefined;
    }
    this.listing = { guard, folders: found.seen };
    return found.files;
  }
}

/** Every folder looked at (again only where it changed since `known`), and the secret files found; undefined past a bound. */
async function walk(root: string, guard: SecretGuard, known: ReadonlyMap<string, FolderSeen> | undefined): Promise<{ files: string[]; seen: Map<string, FolderSeen> } | undefined> {
  const seen = new Map<string, FolderSeen>();
  const started = Date.now();
  const found: string[] = [];
  let entries = 0;
  let sinceTurn = 0;
  let pending: string[] = [''];
  const overBounds = (): boolean => Date.now() - started > WALK_MS || entries > WALK_ENTRIES || found.length > MAX_SECRET_FILES;
  while (pending.length && !overBounds()) {
    const batch = pending.slice(-WALK_PARALLEL);
    pending = pending.slice(0, -WALK_PARALLEL);
    const looks = await Promise.all(batch.map((dir) => lookAt(root, dir, known?.get(dir), guard, started)));
    for (const [i, look] of looks.entries()) {
      if (!look) continue;
      seen.set(batch[i], look);
      entries += look.entries;
      pending.push(...look.folders);
      found.push(...look.secrets.map((rel) => path.join(root, rel)));
      sinceTurn += look.entries;
    }
    if (sinceTurn >= ENTRIES_PER_TURN) {
      sinceTurn = 0;
      await nextTurn();
    }
  }
  return overBounds() ? undefined : { files: found, seen };
}

/** One folder: as seen last time when its modification time says nothing changed in it, else read and judged now. */
async function lookAt(root: string, dir: string, last: FolderSeen | undefined, guard: SecretGuard, now: number): Promise<FolderSeen | undefined> {
  const abs = path.join(root, dir);
  let st: fs.Stats;
  try {
    st = await fs.promises.lstat(abs);
  } catch {
    return undefined;
  }
  const { ino, mtimeMs } = st;
  if (last && last.ino === ino && last.mtimeMs === mtimeMs && now - mtimeMs > RACY_MS) return last;
  let list: fs.Dirent[];
  try {
    list = await fs.promises.readdir(abs, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const folders: string[] = [];
  const secrets: string[] = [];
  for (const [i, e] of list.entries()) {
    if (i > 0 && i % ENTRIES_PER_TURN === 0) await nextTurn();
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name.toLowerCase() !== '.git') folders.push(rel);
    } else if ((e.isFile() || e.isSymbolicLink()) && guard.isSecret(rel)) {
      secrets.push(rel);
    }
  }
  return { ino, mtimeMs, entries: list.length, folders, secrets };
}

const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
