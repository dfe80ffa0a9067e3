import * as fs from 'node:fs';
import * as path from 'node:path';
import { realpathLenient } from '../core/realpath';
import { withSecretExcludes, type SecretGuard } from '../core/security/secrets';
import type { FileInfo, Workspace } from '../core/workspace';

export interface NodeWorkspaceOptions {
  /** Project name; defaults to the folder's name. */
  readonly name?: string;
  /** ripgrep binary: a path, `false` for the in-process search, or undefined to look for `rg` on PATH. */
  readonly ripgrep?: string | false;
  /** Language of tool results ('en', 'zh-cn'); default English. */
  readonly locale?: string;
  /** Globs to leave out of search, in VS Code's `files.exclude` syntax. */
  readonly searchExcludes?: readonly string[];
  /** Secret files: search skips them too (the dispatcher refuses to read them). None by default. */
  readonly secrets?: SecretGuard;
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

/** The Workspace over a real folder on disk: used by the headless host, tests and benchmarks. */
export class NodeWorkspace implements Workspace {
  readonly root: string;
  readonly name: string;
  readonly locale: string | undefined;
  private readonly rg: string | undefined;
  private readonly excludes: readonly string[];
  private readonly secrets: SecretGuard | undefined;

  constructor(folder: string, options: NodeWorkspaceOptions = {}) {
    this.root = fs.realpathSync(path.resolve(folder));
    this.name = options.name ?? path.basename(this.root);
    this.locale = options.locale;
    this.rg = options.ripgrep === false ? undefined : (options.ripgrep ?? findOnPath('rg'));
    this.excludes = options.searchExcludes ?? [];
    this.secrets = options.secrets;
  }

  /** A folder has no editor buffers. */
  dirtyText(): string | undefined {
    return undefined;
  }

  async readBytes(absPath: string): Promise<Uint8Array> {
    return fs.promises.readFile(absPath);
  }

  async stat(absPath: string): Promise<FileInfo | undefined> {
    try {
      const s = await fs.promises.stat(absPath);
      return { kind: s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other', size: s.size, mtimeMs: s.mtimeMs };
    } catch {
      return undefined;
    }
  }

  realpath(absPath: string): Promise<string> {
    return realpathLenient(absPath);
  }

  ripgrepPath(): string | undefined {
    return this.rg;
  }

  searchExcludes(): readonly string[] {
    return withSecretExcludes(this.excludes, this.secrets);
  }
}
