import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ToolError } from '../protocol/errors';
import { cancelledError, type EngineRequest, type ResultSink } from './types';

/**
 * The ripgrep engine: spawns `rg --json` in the project root and stream-parses its output.
 *
 * Which files are searched (the fallback in fallback.ts implements the very same rules):
 *  - `--hidden`: dot-files and dot-folders are searched, like VS Code's own search (`.github/`,
 *    `.eslintrc.json`, `.env.example` are often what the agent is looking for). `.git`, `.svn` and
 *    `.hg` are always excluded (ALWAYS_EXCLUDED), so are the workspace's `files.exclude` /
 *    `search.exclude` globs (`--glob !…`).
 *  - `.gitignore`, `.ignore` and `.rgignore` files are honoured whether or not the folder is a git
 *    repository (`--no-require-git`; ripgrep alone would ignore `.gitignore` outside a repository):
 *    a project copied without `.git`, or unpacked from an archive, still keeps its build output
 *    out of the results.
 *  - Only ignore files inside the project count: `--no-ignore-parent` and `--no-ignore-global`
 *    (VS Code's defaults too: search.useParentIgnoreFiles and search.useGlobalIgnoreFiles are off),
 *    so a `~/.gitignore` of a dotfiles repository cannot hide the project.
 *    When the target is a subfolder, the ignore files of the folders between the root and the
 *    target are passed, rebased onto the root, as an `--ignore-file` (lowest precedence, like a
 *    parent's rules), together with the root's `.git/info/exclude` (`--no-ignore-exclude` turns off
 *    ripgrep's own reading of it, whose location rules vary between ripgrep versions).
 *  - Symbolic links are not followed (ripgrep's default): a link inside the project must not lead
 *    the search outside it. A target named explicitly is searched even when ignored or excluded
 *    (it was asked for by name), as ripgrep does for paths on its command line.
 *  - Binary files (a NUL byte anywhere, after BOM decoding) are skipped entirely: `--no-mmap` makes
 *    ripgrep read every file up to its first NUL, and a file whose `end` message carries a
 *    `binary_offset` is dropped with the matches it had before that point.
 *  - Files over MAX_FILE_SIZE are skipped while walking (`--max-filesize`).
 */

/** Thrown when the binary cannot be started at all: the caller then uses the in-process search. */
export class RipgrepUnavailableError extends Error {}

type LineKind = 'begin' | 'match' | 'context' | 'end' | 'other';

interface LineConsumer {
  /** Whether a line of this kind must be parsed; when false it is only counted (`skipped`). */
  wants(kind: LineKind): boolean;
  line(buf: Buffer): void;
  skipped(kind: LineKind): void;
}

const HEAD = 24;

const PREFIXES: ReadonlyArray<readonly [Buffer, LineKind]> = (
  [
    ['{"type":"match"', 'match'],
    ['{"type":"context"', 'context'],
    ['{"type":"begin"', 'begin'],
    ['{"type":"end"', 'end'],
  ] as const
).map(([prefix, kind]) => [Buffer.from(prefix, 'latin1'), kind] as const);

/** The kind of a JSON line from its first bytes (rg writes `type` first in these four messages). */
function kindOf(head: Buffer): LineKind {
  for (const [prefix, kind] of PREFIXES) {
    if (head.length >= prefix.length && head.compare(prefix, 0, prefix.length, 0, prefix.length) === 0) return kind;
  }
  return 'other';
}

/**
 * Splits a byte stream into lines without ever holding more than one line, and without even
 * holding that one when its first bytes show it is not needed (a match beyond the limit can be a
 * multi-megabyte minified line: it is counted, not stored).
 */
export class JsonLineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private mode: 'undecided' | 'keep' | 'skip' = 'undecided';
  private kind: LineKind = 'other';

  constructor(private readonly consumer: LineConsumer) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      if (end > start && this.mode !== 'skip') {
        this.parts.push(chunk.subarray(start, end));
        this.size += end - start;
      }
      if (this.mode === 'undecided' && (this.size >= HEAD || (nl !== -1 && this.size > 0))) this.decide();
      if (nl === -1) return;
      this.finishLine();
      start = nl + 1;
    }
  }

  end(): void {
    if (this.mode === 'undecided' && this.size > 0) this.decide();
    this.finishLine();
  }

  private decide(): void {
    const first = this.parts[0] as Buffer;
    this.kind = kindOf(first.length >= HEAD ? first : Buffer.concat(this.parts, Math.min(this.size, HEAD)));
    if (this.consumer.wants(this.kind)) {
      this.mode = 'keep';
    } else {
      this.mode = 'skip';
      this.parts = [];
      this.size = 0;
    }
  }

  private finishLine(): void {
    if (this.mode === 'keep' && this.size > 0) {
      this.consumer.line(this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.size));
    } else if (this.mode === 'skip') {
      this.consumer.skipped(this.kind);
    }
    this.parts = [];
    this.size = 0;
    this.mode = 'undecided';
    this.kind = 'other';
  }
}

// --- JSON message access (rg's --json format; checked, never trusted blindly) ----------------

type Json = Record<string, unknown>;

function asObject(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

/** `{"text": "..."}` or `{"bytes": "<base64>"}` → raw bytes or text. */
function dataText(v: unknown): { text: string; bytes?: Buffer } | undefined {
  const o = asObject(v);
  if (!o) return undefined;
  if (typeof o.text === 'string') return { text: o.text };
  if (typeof o.bytes === 'string') {
    const bytes = Buffer.from(o.bytes, 'base64');
    return { text: bytes.toString('utf8'), bytes };
  }
  return undefined;
}

function normalizePath(p: string): string {
  let s = p.replace(/\\/g, '/');
  while (s.startsWith('./')) s = s.slice(2);
  return s;
}

/** Byte offset within a line → UTF-16 offset. */
function utf16Offset(line: { text: string; bytes?: Buffer }, byteOffset: number): number {
  if (byteOffset <= 0) return 0;
  const bytes = line.bytes ?? Buffer.from(line.text, 'utf8');
  if (bytes.length === line.text.length) return byteOffset; // pure ASCII
  return bytes.subarray(0, byteOffset).toString('utf8').length;
}

interface PendingMatch {
  readonly line: number;
  readonly column: number;
  readonly text: string;
  readonly before: string[];
  readonly after: string[];
}

interface FileState {
  readonly path: string;
  readonly detail: boolean;
  count: number;
  readonly matches: PendingMatch[];
  /** Kept matches still collecting after-context. */
  pending: PendingMatch[];
  /** The last `contextLines` lines seen (before-context of the next match). */
  readonly recent: Array<{ line: number; text: string }>;
}

/** Turns rg's JSON messages into per-file results for the sink. */
class RgJsonConsumer implements LineConsumer {
  sawSummary = false;
  private file: FileState | undefined;

  constructor(
    private readonly req: EngineRequest,
    private readonly sink: ResultSink,
  ) {}

  private needsLines(f: FileState): boolean {
    return f.detail && (f.matches.length < this.req.perFileLimit || f.pending.length > 0);
  }

  wants(kind: LineKind): boolean {
    const f = this.file;
    if (kind === 'match' || kind === 'context') return f === undefined || this.needsLines(f);
    return true;
  }

  skipped(kind: LineKind): void {
    if (kind === 'match' && this.file) this.file.count++;
  }

  line(buf: Buffer): void {
    const msg = asObject(JSON.parse(buf.toString('utf8')));
    if (!msg) return;
    const data = asObject(msg.data);
    switch (msg.type) {
      case 'begin': {
        const p = dataText(data?.path);
        if (!p) return;
        const filePath = normalizePath(p.text);
        this.file = {
          path: filePath,
          detail: this.sink.wantDetails(filePath),
          count: 0,
          matches: [],
          pending: [],
          recent: [],
        };
        return;
      }
      case 'match':
      case 'context':
        if (data) this.onLine(data, msg.type === 'match');
        return;
      case 'end': {
        const f = this.file;
        this.file = undefined;
        if (!f || !data) return;
        const binary = data.binary_offset;
        if (binary !== null && binary !== undefined) return; // a binary file: dropped entirely
        if (f.count > 0) this.sink.addFile({ path: f.path, count: f.count, matches: f.matches });
        return;
      }
      case 'summary':
        this.sawSummary = true;
        return;
      default:
        return;
    }
  }

  private onLine(data: Json, isMatch: boolean): void {
    const f = this.file;
    if (!f) return;
    if (isMatch) f.count++;
    const lineNo = typeof data.line_number === 'number' ? data.line_number : undefined;
    const raw = dataText(data.lines);
    if (lineNo === undefined || !raw || !f.detail) return;
    const text = raw.text.endsWith('\n') ? raw.text.slice(0, -1) : raw.text;
    const ctx = this.req.contextLines;

    if (f.pending.length > 0) {
      for (const p of f.pending) {
        if (lineNo > p.line && lineNo <= p.line + ctx) p.after.push(text);
      }
      f.pending = f.pending.filter((p) => lineNo < p.line + ctx);
    }
    if (isMatch && f.matches.length < this.req.perFileLimit) {
      const first = Array.isArray(data.submatches) ? asObject(data.submatches[0]) : undefined;
      const start = typeof first?.start === 'number' ? first.start : 0;
      const m: PendingMatch = {
        line: lineNo,
        column: utf16Offset(raw, start) + 1,
        text,
        before: f.recent.filter((r) => r.line >= lineNo - ctx && r.line < lineNo).map((r) => r.text),
        after: [],
      };
      f.matches.push(m);
      if (ctx > 0) f.pending.push(m);
    }
    if (ctx > 0) {
      f.recent.push({ line: lineNo, text });
      if (f.recent.length > ctx) f.recent.shift();
    }
  }
}

/** The ripgrep command line for a request (without the `--ignore-file`, which needs a temporary file). */
export function ripgrepArgs(req: EngineRequest): string[] {
  const args = [
    '--json',
    '--no-config',
    '--no-mmap',
    '--hidden',
    '--no-require-git',
    '--no-ignore-parent',
    '--no-ignore-global',
    '--no-ignore-exclude',
    '--max-filesize',
    String(req.maxFileSize),
    req.caseSensitive ? '--case-sensitive' : '--ignore-case',
  ];
  if (!req.regex) args.push('--fixed-strings');
  if (req.contextLines > 0) args.push('--context', String(req.contextLines));
  if (req.typeGlobs) {
    for (const glob of req.typeGlobs) args.push('--type-add', `agentbridge:${glob}`);
    args.push('--type', 'agentbridge');
  }
  for (const glob of req.excludeGlobs) args.push('--glob', `!${glob}`);
  return args;
}

function regexErrorMessage(stderr: string): string {
  // rg: "regex parse error:\n    a(b\n     ^\nerror: unclosed group" (+ a hint about --pcre2, useless here).
  const lines = stderr.trim().split('\n');
  const errorAt = lines.findIndex((l) => l.startsWith('error:'));
  const reason = errorAt >= 0 ? (lines[errorAt] as string).slice('error:'.length).trim() : (lines[0] ?? '').trim();
  const from = lines[0]?.startsWith('regex parse error') ? 1 : 0;
  const diagram = errorAt > from ? lines.slice(from, errorAt).join('\n') : '';
  return `Invalid regular expression: ${reason}${diagram.trim() ? `\n${diagram}` : ''}`;
}

/** Runs ripgrep for the request and feeds every non-binary file with matches to the sink. */
export async function runRipgrep(
  rgPath: string,
  req: EngineRequest,
  sink: ResultSink,
  signal: AbortSignal,
): Promise<void> {
  if (signal.aborted) throw cancelledError(signal);
  const args = ripgrepArgs(req);
  let tmpDir: string | undefined;
  try {
    if (req.explicitIgnore.length > 0 && !req.targetIsFile) {
      tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-bridge-rg-'));
      const ignoreFile = path.join(tmpDir, 'ignore');
      await fs.writeFile(ignoreFile, `${req.explicitIgnore.join('\n')}\n`);
      args.push('--ignore-file', ignoreFile);
    }
    args.push('--regexp', req.pattern, '--', req.target);
    await runProcess(rgPath, args, req, sink, signal);
  } finally {
    if (tmpDir) await fs.rm(tmpDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

function runProcess(
  rgPath: string,
  args: string[],
  req: EngineRequest,
  sink: ResultSink,
  signal: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let failure: unknown;
    let stderr = '';
    const consumer = new RgJsonConsumer(req, sink);
    const reader = new JsonLineReader(consumer);
    const child = spawn(rgPath, args, { cwd: req.root, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const onAbort = (): void => {
      child.kill();
    };
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      fn();
    };
    signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      if (failure !== undefined) return;
      try {
        reader.push(chunk);
      } catch (err) {
        failure = err;
        child.kill();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 16384) stderr += chunk.toString('utf8');
    });
    child.on('error', (err) => {
      child.kill();
      settle(() => reject(new RipgrepUnavailableError(`Cannot run ripgrep at ${rgPath}: ${err.message}`)));
    });
    child.on('close', (code) => {
      settle(() => {
        if (signal.aborted) return reject(cancelledError(signal));
        if (failure === undefined) {
          try {
            reader.end();
          } catch (err) {
            failure = err;
          }
        }
        if (failure !== undefined) {
          const detail = failure instanceof Error ? failure.message : String(failure);
          return reject(new ToolError('INTERNAL_ERROR', `Could not read ripgrep's output: ${detail}`));
        }
        // 0: matches, 1: none, 2: an error; with a summary the search ran to its end and the error
        // was about some file (unreadable, vanished): the results stand, as they do in the fallback.
        if (code === 0 || code === 1 || (code === 2 && consumer.sawSummary)) return resolve();
        if (/regex/i.test(stderr)) {
          return reject(new ToolError('VALIDATION_FAILED', regexErrorMessage(stderr)));
        }
        reject(new ToolError('INTERNAL_ERROR', `ripgrep failed (exit code ${String(code)}): ${stderr.trim()}`));
      });
    });
  });
}
