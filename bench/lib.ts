// Shared helpers of the benchmark runner (bench/run.ts): statistics, the JDK corpus, child
// processes on loopback, and the result rows the table and the JSON are made of.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { explicitIgnoreLines } from '../src/core/search/ignore';
import { ripgrepArgs } from '../src/core/search/ripgrep';
import { MAX_FILE_SIZE } from '../src/core/search/types';
import { quantile } from '../test/support/stats';

export const repoRoot = path.resolve(__dirname, '..');
const cacheDir = path.join(repoRoot, '.bench-cache');
const corpusDir = path.join(cacheDir, 'jdk17-src');

/** One line of the table. `ours`/`comparison` are display strings; the numbers ride in `data`. */
export interface Row {
  readonly figure: string;
  readonly ours: string;
  readonly comparison: string;
  readonly ratio: string;
  readonly target: string;
  /** undefined: reported, no target. */
  readonly pass: boolean | undefined;
  readonly note?: string;
  readonly data?: Record<string, unknown>;
}

export const now = (): number => performance.now();

export { quantile };

export const median = (values: readonly number[]): number => quantile(values, 0.5);

export const ms = (n: number, digits = n < 10 ? 2 : n < 100 ? 1 : 0): string => `${n.toFixed(digits)} ms`;
export const mb = (bytes: number): string => `${Math.round(bytes / 1048576)} MB`;

export function log(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/** src.zip of the JDK 17 sources (Debian openjdk-17-source), or $JDK_SRC_ZIP. */
function findJdkSrcZip(): string | undefined {
  const candidates = [process.env.JDK_SRC_ZIP, '/usr/lib/jvm/openjdk-17/lib/src.zip'];
  if (fs.existsSync('/usr/lib/jvm')) {
    for (const d of fs.readdirSync('/usr/lib/jvm')) if (/(^|-)17(-|$)/.test(d)) candidates.push(path.join('/usr/lib/jvm', d, 'lib', 'src.zip'));
  }
  return candidates.find((c): c is string => !!c && fs.existsSync(c));
}

/** Unpacks the whole src.zip into .bench-cache/jdk17-src once (a marker file says it is complete). */
export function ensureCorpus(): { root: string; javaFiles: number; unpackMs: number } {
  const marker = path.join(corpusDir, '.complete');
  let unpackMs = 0;
  if (!fs.existsSync(marker)) {
    const zip = findJdkSrcZip();
    if (!zip) throw new Error('JDK 17 sources not found: run `bash scripts/setup-jdk.sh` (openjdk-17-source) or set JDK_SRC_ZIP');
    const t0 = now();
    const tmp = `${corpusDir}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    execFileSync('unzip', ['-q', '-o', zip, '-d', tmp], { stdio: ['ignore', 'ignore', 'inherit'] });
    fs.rmSync(corpusDir, { recursive: true, force: true });
    fs.renameSync(tmp, corpusDir);
    fs.writeFileSync(marker, `${zip}\n`);
    unpackMs = now() - t0;
  }
  let javaFiles = 0;
  for (const rel of fs.readdirSync(corpusDir, { recursive: true, encoding: 'utf8' })) if (rel.endsWith('.java')) javaFiles++;
  return { root: corpusDir, javaFiles, unpackMs };
}

/**
 * The monorepo corpus of issue #15: four copies of the JDK tree side by side in
 * .bench-cache/jdk17-src-x4/copy-{1..4} (~60,000 Java files, ~900 MB), made once from ensureCorpus's
 * tree. Real copies, not hard links: the access policy treats a multiply-linked file as possibly
 * secret, and a monorepo's files are not hard links of each other.
 */
export function ensureCorpusX4(): { root: string; javaFiles: number; unpackMs: number } {
  const base = ensureCorpus();
  const dir = path.join(cacheDir, 'jdk17-src-x4');
  const marker = path.join(dir, '.complete');
  let unpackMs = 0;
  if (!fs.existsSync(marker)) {
    const t0 = now();
    const tmp = `${dir}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    for (let i = 1; i <= 4; i++) fs.cpSync(base.root, path.join(tmp, `copy-${i}`), { recursive: true, filter: (src) => path.basename(src) !== '.complete' });
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
    fs.writeFileSync(marker, 'four copies of jdk17-src\n');
    unpackMs = now() - t0;
  }
  return { root: dir, javaFiles: base.javaFiles * 4, unpackMs };
}

/** A child running a TypeScript file under tsx that talks in JSON lines on stdout. */
export interface Child {
  readonly proc: ChildProcess;
  /** Its first line (the "ready" report). */
  readonly ready: Promise<Record<string, unknown>>;
  /** Sends a signal and resolves with the next line it prints (hostChild answers SIGUSR2 so). */
  ask(signal: NodeJS.Signals): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** A bench child's node arguments; AB_BENCH_CPU_PROF=DIR makes each write a V8 CPU profile there when it exits (a diagnostic). */
function childArgs(script: string, args: readonly string[], nodeArgs: readonly string[]): string[] {
  const prof = process.env.AB_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.AB_BENCH_CPU_PROF}`] : [];
  return [...prof, ...nodeArgs, '--import', 'tsx', path.join(repoRoot, 'bench', script), ...args];
}

export function startChild(script: string, args: readonly string[], nodeArgs: readonly string[] = []): Child {
  const proc = spawn(process.execPath, childArgs(script, args, nodeArgs), {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const waiting: Array<{ resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }> = [];
  let buf = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    buf += chunk.toString('utf8');
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiting.shift();
      if (!w) continue;
      try {
        w.resolve(JSON.parse(line) as Record<string, unknown>);
      } catch (e) {
        w.reject(e instanceof Error ? e : new Error(String(e)));
      }
    }
  });
  const next = (): Promise<Record<string, unknown>> => new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  proc.once('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`${script} exited (code ${String(code)})`));
  });
  const ready = next();
  return {
    proc,
    ready,
    ask: (signal) => {
      const p = next();
      proc.kill(signal);
      return p;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

/** Runs a child to completion and returns the JSON of its last stdout line. */
export function runChildJson(script: string, args: readonly string[], nodeArgs: readonly string[] = [], timeoutMs = 300_000): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, childArgs(script, args, nodeArgs), {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`${script} failed (code ${String(code)} signal ${String(signal)}): ${last}`));
      try {
        resolve(JSON.parse(last) as Record<string, unknown>);
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}

/** rg's arguments exactly as grep_file builds them for a whole-tree search (default options), run from `root`. */
export async function grepFileRgArgs(root: string, pattern: string, regex: boolean): Promise<string[]> {
  const args = ripgrepArgs({
    root,
    target: '.',
    targetIsFile: false,
    pattern,
    regex,
    caseSensitive: false,
    contextLines: 0,
    perFileLimit: 20,
    typeGlobs: undefined,
    excludeGlobs: [],
    explicitIgnore: await explicitIgnoreLines(root, '.'),
    maxFileSize: MAX_FILE_SIZE,
  });
  args.push('--regexp', pattern, '--', '.');
  return args;
}
