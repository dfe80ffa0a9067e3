/**
 * The one interface between the core and an editor. The VS Code adapter implements it over the
 * VS Code API; the Node adapter implements it over a real folder (tests, benchmarks, headless host).
 * All paths here are absolute, native paths that the caller has already contained in `root`.
 */
import type { GlobSet, SecretGuard } from './globSet';
import type { LanguageIntel } from './languageIntel';

/** What identifies an opened file with more than one name: enough to find all its names in the access policy's walk. */
export interface OpenedFile {
  readonly dev: number;
  readonly ino: number;
  readonly nlink: number;
}

/** Whether an opened file may be read, judged on the open handle: one with more than one name (a hard link) only when cleared. */
export type LinkedCheck = (opened: OpenedFile) => boolean;

export interface FileInfo {
  readonly kind: 'file' | 'directory' | 'other';
  readonly size: number;
  readonly mtimeMs: number;
  /** Nobody may write it (no write permission for its owner, or a read-only file system entry). */
  readonly readonly?: boolean;
}

export interface Workspace {
  /** Absolute, symlink-resolved path of the project root. */
  readonly root: string;
  /** A human name for the project (the folder's name by default). */
  readonly name: string;

  /** Text of an editor buffer that has unsaved changes, or undefined when the file is not open and dirty. */
  dirtyText(absPath: string): string | undefined;
  /** Absolute paths of the files with unsaved changes in an editor (none where there is no editor). */
  dirtyPaths?(): string[];
  /**
   * Raw bytes on disk. Rejects with an error whose `code` is 'ENOENT' when the file does not exist,
   * and (security/safeRead.ts) 'ENOTREG' for anything but a regular file (a FIFO must never block
   * the host), 'EFBIG' past MAX_FILE_BYTES, 'ESWAPPED' when the path led elsewhere once opened.
   * `size` is the file's size from a `stat` just made, when the caller has one. A file with more
   * than one name (a hard link) is refused ('ELINKED') unless `linked` clears its open handle.
   */
  readBytes(absPath: string, size?: number, linked?: LinkedCheck): Promise<Uint8Array>;
  /**
   * True when `readBytes` is `readRegularFile` (safeRead.ts) on this host's disk, so another
   * thread may read a checked path itself with the same checks and get the same bytes (the code
   * index's parse workers do, to keep reads off the main thread).
   */
  readonly readsLocalFiles?: boolean;
  /** Undefined when nothing exists at the path. Follows symlinks. */
  stat(absPath: string): Promise<FileInfo | undefined>;
  /** Resolves symlinks; for a path that does not exist, resolves its nearest existing ancestor and appends the rest. */
  realpath(absPath: string): Promise<string>;

  /** The secret-file globs in force (read per call: a setting may change); undefined: the defaults. */
  secretGuard?(): SecretGuard | undefined;
  /** Globs the user added to the protected files (`agentBridge.protectedGlobs`); the built-in ones apply besides, always. */
  protectedGuard?(): GlobSet | undefined;

  /** Path of a ripgrep binary, or undefined to use the in-process search. */
  ripgrepPath(): string | undefined;
  /**
   * Glob patterns (VS Code `files.exclude` / `search.exclude` syntax, relative to root) that search
   * must skip. The secret globs need not be among them: the search adds them itself.
   */
  searchExcludes(): readonly string[];

  /** The editor's language servers, when there is an editor (the VS Code adapter); absent elsewhere. */
  readonly languageIntel?: LanguageIntel;

  /**
   * The editor's problems (errors, warnings, …) in these files (absolute paths), or in every file
   * when none are given. With `settleMs`, first waits up to that long for the language services to
   * report again on those files (after a write). Absent where there is no editor (headless).
   */
  diagnostics?(absPaths: readonly string[] | undefined, opts?: { readonly settleMs?: number; readonly signal?: AbortSignal }): Promise<DiagnosticInfo[]>;
}

/** One problem an editor reports in a file. Lines and columns are 1-based. */
export interface DiagnosticInfo {
  /** Absolute path. */
  readonly path: string;
  readonly line: number;
  readonly column: number;
  readonly severity: 'error' | 'warning' | 'information' | 'hint';
  readonly message: string;
  readonly source?: string;
  readonly code?: string;
}
