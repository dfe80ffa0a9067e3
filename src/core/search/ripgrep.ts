import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ToolError } from '../protocol/errors';
import { JsonLineReader, RgJsonConsumer } from './ripgrepJson';
import { ripgrepRelative } from './ripgrepPath';
import { cancelledError, type EngineRequest, type ResultSink } from './types';

/**
 * The ripgrep engine: spawns `rg --json` in the project root and stream-parses its output (read
 * by ripgrepJson.ts).
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

export interface RipgrepTextOptions {
  readonly cwd: string;
  /** The run is killed past this long (default 5 s). */
  readonly timeoutMs?: number;
  /** Output past this many bytes kills the run (default 4 MB). */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
}

/** The paths ripgrep printed with `--null` (`--files`, `--files-with-matches`), project-relative with forward slashes. */
export const ripgrepPaths = (out: string): string[] => out.split('\0').filter(Boolean).map(ripgrepRelative);

/**
 * Runs ripgrep for a small text answer (a list of files, say): its stdout when it exits with 0
 * (found) or 1 (nothing found); undefined when it cannot run, fails, is cancelled, runs past the
 * deadline or writes more than the byte bound. Callers treat undefined as "ask another way".
 */
export function runRipgrepText(rgPath: string, args: readonly string[], o: RipgrepTextOptions): Promise<string | undefined> {
  const maxBytes = o.maxBytes ?? 4 * 1024 * 1024;
  return new Promise((resolve) => {
    if (o.signal?.aborted) return resolve(undefined);
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const child = spawn(rgPath, args, { cwd: o.cwd, stdio: ['ignore', 'pipe', 'ignore'], windowsHide: true });
    const finish = (value: string | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      if (child.exitCode === null) child.kill();
      resolve(value);
    };
    const onAbort = (): void => finish(undefined);
    const timer = setTimeout(() => finish(undefined), o.timeoutMs ?? 5000);
    o.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (c: Buffer) => {
      bytes += c.length;
      if (bytes > maxBytes) return finish(undefined);
      chunks.push(c);
    });
    child.on('error', () => finish(undefined));
    child.on('close', (code) => finish(code === 0 || code === 1 ? Buffer.concat(chunks).toString('utf8') : undefined));
  });
}
