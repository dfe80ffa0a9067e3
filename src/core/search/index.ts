import type { Logger } from '../log';
import { toRelative } from '../workspace/paths';
import { accessPolicy } from '../policy/accessPolicy';
import { withSecretExcludes } from '../policy/secrets';
import { MAX_FILE_BYTES, readHead } from '../policy/safeRead';
import { ToolError } from '../protocol/errors';
import type { Workspace } from '../workspace/workspace';
import { confirmShown } from './confirm';
import { isBinaryContent, runFallback } from './fallback';
import { fileTypeGlobs } from './fileTypes';
import { explicitIgnoreLines, normalizeExcludes } from './ignore';
import { RipgrepUnavailableError, runRipgrep } from './ripgrep';
import {
  cancelledError,
  comparePaths,
  MAX_CONTEXT_LINES,
  MAX_FILE_SIZE,
  MAX_LIMIT,
  MAX_LINE_BYTES,
  SEARCH_TIME_BUDGET_MS,
  type EngineRequest,
  type FileMatches,
  type FileResult,
  type LineMatch,
  type ResultSink,
  type SearchOptions,
  type SearchResult,
} from './types';

export type { SearchOptions, SearchResult } from './types';
export { boundSearchResult, formatMarkdown, toStructured } from './format';

/**
 * Keeps the first `limit` matching lines in (path, line) order, whatever order files arrive in,
 * and counts all of them: memory stays O(limit) however many millions of lines match.
 */
class ResultCollector implements ResultSink {
  totalMatches = 0;
  totalFiles = 0;
  /** Lines over MAX_LINE_BYTES searched only in part (the in-process search). */
  partlySearchedLines = 0;
  private kept: Array<{ path: string; match: LineMatch }> = [];
  /** Once `limit` lines are kept: the greatest path among them. A file after it cannot contribute. */
  private threshold: string | undefined;
  private readonly fileTotals = new Map<string, number>();

  constructor(
    private readonly limit: number,
    /** Files no answer may show (the access policy's secret files), whatever an engine's globs let through. */
    private readonly hidden: (file: FileResult) => boolean = () => false,
  ) {}

  wantDetails(path: string): boolean {
    return this.threshold === undefined || comparePaths(path, this.threshold) < 0;
  }

  addFile(file: FileResult): void {
    if (this.hidden(file)) return;
    this.totalMatches += file.count;
    this.totalFiles += 1;
    this.partlySearchedLines += file.partlySearchedLines ?? 0;
    if (file.matches.length === 0 || !this.wantDetails(file.path)) return;
    this.fileTotals.set(file.path, file.count);
    // Engines deliver lines already as shown (shownLine): nothing long reaches the collector.
    for (const m of file.matches) this.kept.push({ path: file.path, match: m });
    if (this.kept.length >= 2 * this.limit || (this.threshold === undefined && this.kept.length >= this.limit)) {
      this.compact();
    }
  }

  private compact(): void {
    this.kept.sort((a, b) => comparePaths(a.path, b.path) || a.match.line - b.match.line);
    if (this.kept.length > this.limit) this.kept.length = this.limit;
    if (this.kept.length >= this.limit) this.threshold = (this.kept[this.kept.length - 1] as { path: string }).path;
  }

  /** The kept lines grouped by file, in order. */
  files(): FileMatches[] {
    this.compact();
    const files: Array<{ path: string; totalMatches: number; matches: LineMatch[] }> = [];
    for (const k of this.kept) {
      let last = files[files.length - 1];
      if (!last || last.path !== k.path) {
        last = { path: k.path, totalMatches: this.fileTotals.get(k.path) ?? 0, matches: [] };
        files.push(last);
      }
      last.matches.push(k.match);
    }
    return files;
  }
}

function validate(options: SearchOptions): { limit: number; contextLines: number; notes: string[] } {
  if (options.pattern === '') throw new ToolError('VALIDATION_FAILED', 'pattern: must not be empty');
  if (options.pattern.includes('\n')) {
    throw new ToolError('VALIDATION_FAILED', 'pattern: must be a single line (the search matches line by line)');
  }
  if (!Number.isInteger(options.limit) || options.limit < 1) {
    throw new ToolError('VALIDATION_FAILED', 'limit: must be a whole number of at least 1');
  }
  if (!Number.isInteger(options.contextLines) || options.contextLines < 0) {
    throw new ToolError('VALIDATION_FAILED', 'context_lines: must be a whole number of at least 0');
  }
  const notes: string[] = [];
  let limit = options.limit;
  if (limit > MAX_LIMIT) {
    notes.push(`limit ${limit} was lowered to ${MAX_LIMIT}, the most one answer returns.`);
    limit = MAX_LIMIT;
  }
  let contextLines = options.contextLines;
  if (contextLines > MAX_CONTEXT_LINES) {
    notes.push(`context_lines ${contextLines} was lowered to ${MAX_CONTEXT_LINES}.`);
    contextLines = MAX_CONTEXT_LINES;
  }
  return { limit, contextLines, notes };
}

/** Reads up to the first MB of a file to tell whether it is binary (only used to explain "no matches"). */
async function looksBinary(abs: string): Promise<boolean> {
  const head = await readHead(abs, 1024 * 1024);
  return head !== undefined && isBinaryContent(head);
}

export type SearchEngine = 'ripgrep' | 'fallback';

/** `signal`, plus a timer that aborts with TIMEOUT once the budget is spent. */
function withBudget(signal: AbortSignal, ms: number, hint: string): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const onAbort = (): void => ac.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    ac.abort(new ToolError('TIMEOUT', `The search was stopped after ${Math.round(ms / 100) / 10} s. ${hint}`));
  }, ms);
  timer.unref?.();
  return {
    signal: ac.signal,
    dispose: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * Searches the project for `options.pattern`: ripgrep when the workspace has a binary, the
 * in-process engine otherwise (or when ripgrep cannot be started). Both give the same result.
 * `engine` forces one (tests compare them).
 */
export async function search(
  ws: Workspace,
  options: SearchOptions,
  signal: AbortSignal,
  log?: Logger,
  engine?: SearchEngine,
): Promise<SearchResult> {
  const { limit, contextLines, notes } = validate(options);
  const typeGlobs = fileTypeGlobs(options.fileType);
  if (signal.aborted) throw cancelledError(signal);

  const policy = accessPolicy(ws);
  const scope = options.relativePath;
  const target = typeof scope === 'object' ? scope : await policy.resolve(scope?.trim() || undefined);
  if (target.kind === 'secret') throw policy.denial(target);
  const info = await ws.stat(target.abs);
  if (!info) throw new ToolError('NOT_FOUND', `File or folder not found: ${target.rel}`);
  if (info.kind === 'other') {
    throw new ToolError('VALIDATION_FAILED', `relativePath: ${target.rel} is neither a file nor a folder`);
  }
  const isFile = info.kind === 'file';
  const realTarget = toRelative(ws.root, target.abs);
  const secrets = policy.secrets;

  const req: EngineRequest = {
    root: ws.root,
    target: realTarget,
    targetIsFile: isFile,
    pattern: options.pattern,
    regex: options.regex,
    caseSensitive: options.caseSensitive,
    contextLines,
    perFileLimit: limit,
    typeGlobs,
    excludeGlobs: normalizeExcludes(ws.searchExcludes()),
    explicitIgnore: isFile ? [] : await explicitIgnoreLines(ws.root, realTarget),
    maxFileSize: MAX_FILE_SIZE,
    isSecret: (rel) => secrets.isSecret(rel),
  };
  // ripgrep cannot ask the policy: it skips the secret globs in its own dialect instead.
  const ripgrepReq: EngineRequest = { ...req, excludeGlobs: normalizeExcludes(withSecretExcludes(ws.searchExcludes(), secrets)) };

  // Both engines skip the secret files themselves; this filter is the policy's own word on each file.
  const hidden = (file: FileResult): boolean => policy.hidesFound(file);
  let collector = new ResultCollector(limit, hidden);
  const rg = engine === 'fallback' ? undefined : ws.ripgrepPath();
  if (engine === 'ripgrep' && !rg) throw new Error('search: no ripgrep binary in this workspace');
  const hint =
    'Narrow `relativePath` or `file_type`, or simplify the pattern' +
    (options.regex && !rg
      ? ' (nested repetitions such as `(a+)+` can take exponential time in the in-process search).'
      : '.');
  const budget = withBudget(signal, options.timeoutMs ?? SEARCH_TIME_BUDGET_MS, hint);
  let files: FileMatches[];
  let totalMatches = 0;
  let totalFiles = 0;
  try {
    let readByRipgrep = false;
    if (rg) {
      try {
        await runRipgrep(rg, ripgrepReq, collector, budget.signal);
        readByRipgrep = true;
      } catch (err) {
        if (!(err instanceof RipgrepUnavailableError) || engine === 'ripgrep') throw err;
        log?.warn(`${err.message}; searching in-process instead`);
        collector = new ResultCollector(limit, hidden);
        await runFallback(req, collector, budget.signal);
      }
    } else {
      await runFallback(req, collector, budget.signal);
    }
    files = collector.files();
    ({ totalMatches, totalFiles } = collector);
    if (readByRipgrep) {
      // The in-process engine judged each handle it read; ripgrep's reads are checked after the fact.
      const { confirmed, dropped } = await confirmShown(ws.root, files, policy.mayReadLinked, budget.signal);
      files = confirmed;
      totalFiles -= dropped.length;
      totalMatches -= dropped.reduce((n, f) => n + f.totalMatches, 0);
      if (dropped.length > 0) notes.push(`${dropped.length} file(s) were left out: their lines could not be read again as found (changed while searched, or over ${MAX_FILE_BYTES / (1024 * 1024)} MB).`);
    }
  } finally {
    budget.dispose();
  }

  const returnedMatches = files.reduce((n, f) => n + f.matches.length, 0);
  const binaryFile = isFile && totalMatches === 0 && (await looksBinary(target.abs));
  // Neither engine says which files it passed over for size: when nothing was found, the agent
  // must know that a very large file was not looked at, and how to search one.
  if (!isFile && totalMatches === 0) {
    notes.push(`files over ${MAX_FILE_SIZE / (1024 * 1024)} MB were not searched; name one in relativePath to search it.`);
  }
  const kb = MAX_LINE_BYTES / 1024;
  if (files.some((f) => f.matches.some((m) => m.cut))) {
    notes.push(`lines marked [cut] are over ${kb} KB: only their first ${kb} KB were read, so the match may lie past what is shown.`);
  }
  if (collector.partlySearchedLines > 0) {
    const n = collector.partlySearchedLines;
    notes.push(n === 1 ? `1 line over ${kb} KB was searched only in its first ${kb} KB.` : `${n} lines over ${kb} KB were searched only in their first ${kb} KB.`);
  }
  return {
    pattern: options.pattern,
    regex: options.regex,
    caseSensitive: options.caseSensitive,
    contextLines,
    fileType: options.fileType,
    limit,
    path: target.rel,
    pathKind: isFile ? 'file' : 'directory',
    totalMatches,
    totalFiles,
    returnedMatches,
    truncated: returnedMatches < totalMatches,
    ...(binaryFile ? { binaryFile: true } : {}),
    notes,
    files,
  };
}
