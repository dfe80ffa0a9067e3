import * as fs from 'node:fs';
import * as path from 'node:path';
import { readRegularFileSync } from '../../policy/safeRead';
import type { SecretGuard } from '../../workspace/globSet';
import { decodeText, isBinary } from '../../workspace/text';

/**
 * The only way the TypeScript language service (in its worker) reaches the disk: every path is
 * resolved to where it really leads, and refused unless both the path and its target are in the
 * workspace folder (node_modules there included) and neither is a secret file, or both are in the
 * `typescript` package's own folder of `lib.*.d.ts` files. Reads go through safeRead.ts (a regular
 * file, opened without following a last link, one name only, bounded), so a FIFO, a device, a hard
 * link to a secret or a link leading out of the project reads as a missing file. A hostile
 * tsconfig.json (`extends`, `paths`, `typeRoots`, `files` outside the folder) so finds nothing.
 */

export interface GuardSettings {
  /** The workspace folder, its real path. */
  readonly root: string;
  /** The folder holding the `typescript` package's lib.*.d.ts files; none before the package is loaded. */
  readonly libDir?: string;
  readonly secrets: SecretGuard;
  /** Larger files read as missing. */
  readonly maxFileBytes: number;
  /** Directory entries a walk of the project (a config's `include`) may look at before it gives up. */
  readonly maxWalkEntries: number;
}

/** A walk of the project's folders passed `maxWalkEntries`: the project is too large to load. */
export class WalkTooLarge extends Error {}

/** A program build looked at the disk more often than its budget (`startLookups`): the project is too costly to load. */
export class TooManyLookups extends Error {}

const isUnder = (p: string, dir: string): boolean => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);

/** How long a path's judgement is kept, and for how many paths at most. */
const JUDGED_FOR_MS = 2_000;
const MAX_JUDGED = 200_000;

export class GuardedFiles {
  private walked = 0;
  private lookups = 0;
  private maxLookups = Number.POSITIVE_INFINITY;
  private readonly judged = new Map<string, { readonly at: number; readonly real: string | undefined }>();
  /** The lib folder as named and where it really is (node_modules may be a link). */
  private readonly lib: { readonly named: string; readonly real: string } | undefined;

  constructor(private readonly s: GuardSettings) {
    const named = s.libDir && path.resolve(s.libDir);
    this.lib = named ? { named, real: fs.realpathSync.native(named) } : undefined;
  }

  private secret(abs: string): boolean {
    const rel = path.relative(this.s.root, abs).split(path.sep).join('/');
    return rel !== '' && this.s.secrets.isSecret(rel);
  }

  /** Where `p` really leads when the service may look there; undefined when it may not (or nothing is there). */
  allowed(p: string): string | undefined {
    // Each request of the service asks again for every file of its project: a judgement is kept
    // for a moment. A read still opens exactly the path judged and checks where it led (safeRead.ts).
    const now = Date.now();
    const known = this.judged.get(p);
    if (known && now - known.at < JUDGED_FOR_MS) return known.real;
    if (this.judged.size > MAX_JUDGED) this.judged.clear();
    const real = this.judge(p);
    this.judged.set(p, { at: now, real });
    return real;
  }

  private judge(p: string): string | undefined {
    const abs = path.resolve(p);
    let real: string;
    try {
      real = fs.realpathSync.native(abs);
    } catch {
      return undefined;
    }
    const lib = this.lib;
    if (lib && (isUnder(abs, lib.named) || isUnder(abs, lib.real)) && isUnder(real, lib.real)) return real;
    if (!isUnder(abs, this.s.root) || !isUnder(real, this.s.root)) return undefined;
    if (this.secret(abs) || this.secret(real)) return undefined;
    return real;
  }

  private statOf(p: string): fs.Stats | undefined {
    const real = this.allowed(p);
    return real === undefined ? undefined : fs.statSync(real, { throwIfNoEntry: false });
  }

  /**
   * Counts the disk lookups (exists, read, realpath) from here on, and throws TooManyLookups past
   * `max`: module resolution tries every import against every `paths` substitution and extension,
   * keeping each failed lookup, so the count bounds both its time and its memory.
   */
  startLookups(max: number): void {
    this.lookups = 0;
    this.maxLookups = max;
  }

  /** Counts `n` lookups (module resolution counts the places it looked in vain without asking: boundedResolver.ts). */
  looked(n = 1): void {
    this.lookups += n;
    if (this.lookups > this.maxLookups) throw new TooManyLookups(`looked for more than ${this.maxLookups} files and folders while loading`);
  }

  fileExists = (p: string): boolean => {
    this.looked();
    return !!this.statOf(p)?.isFile();
  };

  directoryExists = (p: string): boolean => {
    this.looked();
    return !!this.statOf(p)?.isDirectory();
  };

  /** The file's size and modification time as a version string; undefined when it may not be read. */
  version(p: string): string | undefined {
    const st = this.statOf(p);
    return st?.isFile() ? `${st.mtimeMs}:${st.size}` : undefined;
  }

  /** The file's text, or undefined: refused, missing, not a regular file, larger than the bound, binary. */
  readFile = (p: string): string | undefined => {
    this.looked();
    const real = this.allowed(p);
    if (real === undefined) return undefined;
    try {
      const bytes = readRegularFileSync(real, this.s.maxFileBytes);
      return isBinary(bytes) ? undefined : decodeText(bytes).text;
    } catch {
      return undefined;
    }
  };

  realpath = (p: string): string => {
    this.looked();
    return this.allowed(p) ?? p;
  };

  getDirectories = (p: string): string[] => this.entries(p).directories;

  /** Resets the count of a walk's entries (before each config is read). */
  startWalk(): void {
    this.walked = 0;
  }

  /** A folder's files and subfolders the service may see (TypeScript's `matchFiles` walks with it). */
  entries = (dir: string): { files: string[]; directories: string[] } => {
    const files: string[] = [];
    const directories: string[] = [];
    const real = this.allowed(dir);
    if (real === undefined) return { files, directories };
    let list: fs.Dirent[];
    try {
      list = fs.readdirSync(real, { withFileTypes: true });
    } catch {
      return { files, directories };
    }
    this.walked += list.length;
    if (this.walked > this.s.maxWalkEntries) throw new WalkTooLarge(`more than ${this.s.maxWalkEntries} entries in its folders`);
    for (const e of list) {
      const abs = path.join(dir, e.name);
      if (e.isSymbolicLink()) {
        const st = this.statOf(abs);
        if (st?.isFile()) files.push(e.name);
        else if (st?.isDirectory()) directories.push(e.name);
      } else if (e.isFile()) {
        if (!this.secret(abs)) files.push(e.name);
      } else if (e.isDirectory()) directories.push(e.name);
    }
    return { files, directories };
  };
}
