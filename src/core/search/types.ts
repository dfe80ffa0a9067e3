import type { Access } from '../policy/accessPolicy';
import type { OpenedFile } from '../workspace/workspace';
import { ToolError } from '../protocol/errors';

/**
 * Types and small pure helpers shared by the two search engines (ripgrep and the in-process
 * fallback), the result collector and the formatter. Nothing here touches the disk.
 */

/** What the agent asked for, after parameter parsing (defaults applied). */
export interface SearchOptions {
  readonly pattern: string;
  /**
   * Project-relative file or folder (undefined, '' or '.' = the whole project), or one the access
   * policy already judged (a tool's `paths`).
   */
  readonly relativePath?: string | Access;
  readonly regex: boolean;
  readonly caseSensitive: boolean;
  readonly contextLines: number;
  /** Maximum number of matching lines returned (all are counted). */
  readonly limit: number;
  /** 'all' or a language / extension name ('java', 'ts', '.py', 'kt,java'). */
  readonly fileType: string;
  /** Time budget in ms (default SEARCH_TIME_BUDGET_MS); past it the search stops with TIMEOUT. */
  readonly timeoutMs?: number;
}

/**
 * A search gives up after this long: the backend stops waiting after 30 s (docs/protocol.md §4.4), so it is
 * better to answer a clear TIMEOUT before that than to keep a CPU busy for nobody.
 */
export const SEARCH_TIME_BUDGET_MS = 25_000;

/** Upper bounds applied to the agent's numbers (the reply must stay well under the 10 MB message limit). */
export const MAX_LIMIT = 1000;
export const MAX_CONTEXT_LINES = 50;
/** Files larger than this are skipped while walking a folder (an explicitly named file is always searched). */
export const MAX_FILE_SIZE = 20 * 1024 * 1024;
/** Lines longer than this are shown clipped (around the match for a matching line). */
const MAX_DISPLAY_LINE = 400;
/**
 * Of a line longer than this, only the start is read: bytes of ripgrep's output, characters in the
 * in-process search (which also searches only that start). A minified file can be one very long line.
 */
export const MAX_LINE_BYTES = 256 * 1024;

/**
 * One matching line. Engines report each line as it is shown (`shownLine`: without its `\n` or the
 * `\r` of a CRLF file, clipped to MAX_DISPLAY_LINE), so they never hold more of a line than that.
 */
export interface LineMatch {
  /** 1-based line number. */
  readonly line: number;
  /** 1-based column of the first match on the line, in UTF-16 code units (VS Code's convention). */
  readonly column: number;
  readonly text: string;
  /** Up to `contextLines` lines before, oldest first. */
  readonly before: readonly string[];
  /** Up to `contextLines` lines after. */
  readonly after: readonly string[];
  /** The line was longer than MAX_LINE_BYTES: only its start was read, and the match may lie past what `text` shows. */
  readonly cut?: true;
}

/** Everything an engine found in one file. */
export interface FileResult {
  /** Project-relative path with forward slashes. */
  readonly path: string;
  /** The project-relative name as bytes, when it is not valid UTF-8 (`path` then shows it with U+FFFD): what names it on disk. */
  readonly nameBytes?: Buffer;
  /** The handle the engine read, when the engine opened the file itself: the file is judged by it, not by its name. */
  readonly opened?: OpenedFile;
  /** Number of matching lines in the file (all of them, however many were kept). */
  readonly count: number;
  /** The first matching lines of the file in line order (at most `perFileLimit`); empty when details were not wanted. */
  readonly matches: readonly LineMatch[];
  /** Lines over MAX_LINE_BYTES of which only the start was searched (the in-process search). */
  readonly partlySearchedLines?: number;
}

/** Where engines deliver results. Files may arrive in any order; binary files are never delivered. */
export interface ResultSink {
  /** False when no match of this file can make it into the result any more: then count only. */
  wantDetails(path: string): boolean;
  addFile(file: FileResult): void;
}

/** What both engines need to know: the same request drives both, so their answers are the same. */
export interface EngineRequest {
  /** Absolute, symlink-resolved project root (the engines' working directory). */
  readonly root: string;
  /** Root-relative real path of the file or folder to search, forward slashes; '.' = the root. */
  readonly target: string;
  readonly targetIsFile: boolean;
  readonly pattern: string;
  readonly regex: boolean;
  readonly caseSensitive: boolean;
  readonly contextLines: number;
  /** How many matches of one file may be needed at most (= the limit). */
  readonly perFileLimit: number;
  /** File-name globs a file must match (ripgrep type globs); undefined = every file. */
  readonly typeGlobs: readonly string[] | undefined;
  /** Exclusion globs in ripgrep `--glob` syntax without the leading '!', anchored to the root ('/**\/node_modules'). */
  readonly excludeGlobs: readonly string[];
  /**
   * Lines in gitignore syntax, relative to the root, with the lowest precedence: the ignore files of
   * the folders above the target (inside the project) and the root's `.git/info/exclude`.
   */
  readonly explicitIgnore: readonly string[];
  readonly maxFileSize: number;
  /**
   * Whether the access policy keeps a root-relative path secret (the one glob engine,
   * workspace/globSet.ts): the in-process search neither enters nor reads it. ripgrep cannot ask,
   * so it gets the secret globs among its `excludeGlobs`; either way every file found is judged again.
   */
  readonly isSecret?: (rel: string) => boolean;
}

export interface FileMatches {
  readonly path: string;
  /** All matching lines of this file. */
  readonly totalMatches: number;
  /** The ones returned (the others were cut by the limit). */
  readonly matches: readonly LineMatch[];
}

export interface SearchResult {
  readonly pattern: string;
  readonly regex: boolean;
  readonly caseSensitive: boolean;
  readonly contextLines: number;
  readonly fileType: string;
  readonly limit: number;
  /** Project-relative path searched, as the agent named it ('.' for the whole project). */
  readonly path: string;
  readonly pathKind: 'file' | 'directory';
  /** Number of matching lines in the whole search. */
  readonly totalMatches: number;
  readonly totalFiles: number;
  readonly returnedMatches: number;
  readonly truncated: boolean;
  /** Set when the searched path is a single file that was skipped because it is binary. */
  readonly binaryFile?: boolean;
  /** Notes about values that were adjusted (limit or context clamped). */
  readonly notes: readonly string[];
  readonly files: readonly FileMatches[];
}

/**
 * Total order on project-relative paths: folder by folder, each name compared by UTF-16 code
 * units. `a/b` sorts before `a.txt` (the folder `a` before the file `a.txt`), which is also the
 * order of a depth-first walk that visits names in sorted order.
 */
export function comparePaths(a: string, b: string): number {
  if (a === b) return 0;
  const as = a.split('/');
  const bs = b.split('/');
  const n = Math.min(as.length, bs.length);
  for (let i = 0; i < n; i++) {
    const x = as[i] as string;
    const y = bs[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}

/** Code-unit comparison of two names (the order of a sorted directory listing). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Removes one trailing '\r' (CRLF files): what is shown of a line. */
export function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

function safeCut(text: string, index: number): number {
  // Never cut a surrogate pair in half.
  if (index > 0 && index < text.length) {
    const code = text.charCodeAt(index);
    if (code >= 0xdc00 && code <= 0xdfff) return index - 1;
  }
  return index;
}

/**
 * Bounds a line for display: a long line keeps MAX_DISPLAY_LINE characters, around the match
 * (`column`, 1-based) for a matching line, from the start for a context line, with '…' marking
 * what was cut.
 */
export function clipLine(text: string, column?: number): string {
  if (text.length <= MAX_DISPLAY_LINE) return text;
  let start = 0;
  if (column !== undefined) {
    start = Math.max(0, Math.min(column - 1 - Math.floor(MAX_DISPLAY_LINE / 4), text.length - MAX_DISPLAY_LINE));
  }
  start = safeCut(text, start);
  const end = safeCut(text, start + MAX_DISPLAY_LINE);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

/** What is kept and shown of a line an engine read (without its `\n`): no `\r`, clipped for display. */
export function shownLine(raw: string, column?: number): string {
  return clipLine(stripCr(raw), column);
}

/** The error a search throws once its AbortSignal fired: the signal's own ToolError if it carries one. */
export function cancelledError(signal: AbortSignal): ToolError {
  const reason: unknown = signal.reason;
  return reason instanceof ToolError ? reason : new ToolError('CANCELLED', 'The search was cancelled.');
}
