/**
 * The one interface between the core and an editor. The VS Code adapter implements it over the
 * VS Code API; the Node adapter implements it over a real folder (tests, benchmarks, headless host).
 * All paths here are absolute, native paths that the caller has already contained in `root`.
 */
export interface FileInfo {
  readonly kind: 'file' | 'directory' | 'other';
  readonly size: number;
  readonly mtimeMs: number;
}

export interface Workspace {
  /** Absolute, symlink-resolved path of the project root. */
  readonly root: string;
  /** A human name for the project (the folder's name by default). */
  readonly name: string;
  /** The language the developer reads (a BCP 47 tag such as 'en' or 'zh-cn'); tool results follow it. */
  readonly locale?: string;

  /** Text of an editor buffer that has unsaved changes, or undefined when the file is not open and dirty. */
  dirtyText(absPath: string): string | undefined;
  /** Raw bytes on disk. Rejects with an error whose `code` is 'ENOENT' when the file does not exist. */
  readBytes(absPath: string): Promise<Uint8Array>;
  /** Undefined when nothing exists at the path. Follows symlinks. */
  stat(absPath: string): Promise<FileInfo | undefined>;
  /** Resolves symlinks; for a path that does not exist, resolves its nearest existing ancestor and appends the rest. */
  realpath(absPath: string): Promise<string>;

  /** Path of a ripgrep binary, or undefined to use the in-process search. */
  ripgrepPath(): string | undefined;
  /** Glob patterns (VS Code `files.exclude` / `search.exclude` syntax, relative to root) that search must skip. */
  searchExcludes(): readonly string[];
}
