import * as fs from 'node:fs';
import * as path from 'node:path';
import { realpathLenient } from '../core/workspace/realpath';
import { readRegularFile, readRegularFileSync } from '../core/policy/safeRead';
import type { GlobSet, SecretGuard } from '../core/workspace/globSet';
import { TsLanguageIntel, type TsServiceOptions } from '../core/code/tsService/tsLanguageIntel';
import type { LanguageIntel } from '../core/workspace/languageIntel';
import type { FileInfo, LinkedCheck, Workspace } from '../core/workspace/workspace';

export interface NodeWorkspaceOptions {
  /** Project name; defaults to the folder's name. */
  readonly name?: string;
  /** ripgrep binary: a path, `false` for the in-process search, or undefined to look for `rg` on PATH. */
  readonly ripgrep?: string | false;
  /** Globs to leave out of search, in VS Code's `files.exclude` syntax. */
  readonly searchExcludes?: readonly string[];
  /** Secret files (the access policy's secret class; search skips them too). Default: DEFAULT_EXCLUDE_GLOBS. */
  readonly secrets?: SecretGuard;
  /** Globs added to the built-in protected files (which apply regardless). */
  readonly extraProtected?: GlobSet;
  /**
   * TypeScript and JavaScript questions answered by the `typescript` package's language service
   * (tsLanguageIntel.ts) before the parser; off unless given.
   */
  readonly typescriptService?: TsServiceOptions | false;
}

/** Finds an executable on PATH, as a shell would. */
export function findOnPath(command: string, envPath = process.env.PATH ?? ''): string | undefined {
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, command + ext);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        if (fs.statSync(candidate).isFile()) return candidate;
      } catch {
        // not here; keep looking
      }
    }
  }
  return undefined;
}

/** Files up to this size are read synchronously (see `readBytes`): at most a fraction of a millisecond from the page cache. */
const SYNC_READ_MAX_BYTES = 256 * 1024;

/** The Workspace over a real folder on disk: used by the headless host, tests and benchmarks. */
export class NodeWorkspace implements Workspace {
  readonly root: string;
  readonly name: string;
  /** `readBytes` reads this disk through safeRead.ts (sync or async, the same checks). */
  readonly readsLocalFiles = true;
  private readonly rg: string | undefined;
  private readonly excludes: readonly string[];
  private readonly secrets: SecretGuard | undefined;
  private readonly extraProtected: GlobSet | undefined;
  /** The TypeScript language service, when on (whether or not the folder has a project for it). */
  readonly typescript: TsLanguageIntel | undefined;
  /** TypeScript's language service, until it finds the folder has no tsconfig/jsconfig. */
  languageIntel: LanguageIntel | undefined;

  constructor(folder: string, options: NodeWorkspaceOptions = {}) {
    this.root = fs.realpathSync(path.resolve(folder));
    this.name = options.name ?? path.basename(this.root);
    this.rg = options.ripgrep === false ? undefined : (options.ripgrep ?? findOnPath('rg'));
    this.excludes = options.searchExcludes ?? [];
    this.secrets = options.secrets;
    this.extraProtected = options.extraProtected;
    this.typescript = options.typescriptService ? new TsLanguageIntel(this, options.typescriptService) : undefined;
    this.languageIntel = this.typescript;
    // A folder with no tsconfig/jsconfig: the code tools go straight to the parser from then on.
    this.typescript?.onNoProject(() => {
      if (this.languageIntel === this.typescript) this.languageIntel = undefined;
    });
  }

  /** A folder has no editor buffers. */
  dirtyText(_absPath?: string): string | undefined {
    return undefined;
  }

  // Metadata calls and small reads are synchronous here, as tsserver and ESLint do it: on a local
  // disk they take microseconds, while each thread-pool round trip (a realpath, a stat, and the
  // open, fstat, read and close of a read) costs several times that in hand-offs between threads,
  // and read_file runs thousands of times a minute. Larger or unknown sizes are read asynchronously.
  // Either way the file is judged on its open handle (safeRead.ts): no FIFO, no swapped path, bounded.
  async readBytes(absPath: string, size?: number, linked?: LinkedCheck): Promise<Uint8Array> {
    if (size !== undefined && size <= SYNC_READ_MAX_BYTES) return readRegularFileSync(absPath, undefined, undefined, linked);
    return readRegularFile(absPath, undefined, linked);
  }

  secretGuard(): SecretGuard | undefined {
    return this.secrets;
  }

  protectedGuard(): GlobSet | undefined {
    return this.extraProtected;
  }

  async stat(absPath: string): Promise<FileInfo | undefined> {
    try {
      const s = fs.statSync(absPath, { throwIfNoEntry: false });
      return s && { kind: s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other', size: s.size, mtimeMs: s.mtimeMs, readonly: (s.mode & 0o222) === 0 };
    } catch {
      return undefined; // ENOTDIR, EACCES, ELOOP: nothing usable there
    }
  }

  realpath(absPath: string): Promise<string> {
    return realpathLenient(absPath, fs.realpathSync.native);
  }

  ripgrepPath(): string | undefined {
    return this.rg;
  }

  searchExcludes(): readonly string[] {
    return this.excludes;
  }
}
