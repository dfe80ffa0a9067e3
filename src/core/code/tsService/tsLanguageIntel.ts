import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Logger } from '../../log';
import { accessPolicy } from '../../policy/accessPolicy';
import type { SecretGuard } from '../../workspace/globSet';
import type { IntelCall, IntelCallItem, IntelPosition, IntelSymbol, IntelSymbolLocation, LanguageIntel } from '../../workspace/languageIntel';
import type { Workspace } from '../../workspace/workspace';
import { findWorkerScript, startWorker } from '../../workers';
import type { TsRequest } from './tsAnswers';
import type { ProjectBounds, RefusedConfig } from './tsProjects';
import type { TsWorkerAnswer, TsWorkerData } from './tsServiceWorker';
import { holdsTsConfig } from './configFiles';

/**
 * LanguageIntel for hosts without an editor (the headless host, tests, benchmarks): the
 * `typescript` package's own language service over the project's tsconfig.json and jsconfig.json
 * files, in a worker thread started on the first TypeScript or JavaScript question. Other files
 * get empty answers (the parser answers for them), as do files of no project. The worker reads
 * only what GuardedFiles lets it; every path it answers with is judged again here, by the access
 * policy, before it is used. A request that takes too long stops the worker (a new one is started
 * after a pause), a project over the bounds is refused (the parser answers, the log says why), and
 * the worker's heap is capped. A config whose load stopped a worker is remembered: the next
 * workers leave it to the parser until it changes.
 */

export interface TsServiceOptions {
  readonly log?: Logger;
  readonly bounds?: Partial<ProjectBounds>;
  /** Larger files read as missing. */
  readonly maxFileBytes?: number;
  /** The worker's old-generation heap (resourceLimits). */
  readonly heapMb?: number;
  /** How long one request may take once its project is loaded. */
  readonly requestMs?: number;
  /** How long a request that loads projects may take, from its start, however many it loads. */
  readonly loadMs?: number;
  /** After a worker was stopped or died, how long until another is started. */
  readonly retryMs?: number;
  /** The worker's script (tests); default: beside the bundle, or the source under tsx. */
  readonly script?: string;
}

const DEFAULT_BOUNDS: ProjectBounds = { maxFiles: 8_000, maxBytes: 48 * 1024 * 1024, maxConfigs: 32, maxLookups: 1_000_000, maxPathKeys: 2_000, maxPathSubstitutions: 16 };
const TS_OR_JS = /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/i;

/** The language service's own name, shown with the answers it gave. */
const TS_SERVICE_NAME = 'typescript-language-service';

interface Pending {
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: Error) => void;
}

export class TsLanguageIntel implements LanguageIntel {
  readonly serverName = TS_SERVICE_NAME;
  private worker: Worker | undefined;
  private guard: SecretGuard | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** When the oldest pending request started, and how long it may take: one deadline per request. */
  private since = 0;
  private allowance = 0;
  /** The config the worker said it is loading, until its request is answered (blamed if the worker dies meanwhile). */
  private loadingConfig: string | undefined;
  /** Configs that stopped a worker (memory, time): the next workers refuse them while they are unchanged. */
  private readonly refusedConfigs = new Map<string, RefusedConfig>();
  private watchdog: NodeJS.Timeout | undefined;
  private stoppedUntil = 0;
  private stoppedWhy = '';
  private readonly told = new Set<string>();
  /** The worker's heap in use after its last answer (benchmarks). */
  heapBytes = 0;
  /** How many tsconfig/jsconfig files the worker found; undefined until it answered. */
  private projects: number | undefined;
  private noProjectListener: (() => void) | undefined;
  /** Whether the folder holds a tsconfig/jsconfig at all, looked for once before any worker starts. */
  private presence: Promise<boolean> | undefined;

  constructor(
    private readonly ws: Workspace,
    private readonly o: TsServiceOptions = {},
  ) {}

  private get requestMs(): number {
    return this.o.requestMs ?? 15_000;
  }

  private start(): Worker {
    const script = this.o.script ?? (typeof __dirname === 'string' ? findWorkerScript(__dirname, 'tsServiceWorker.js', 'tsServiceWorker.ts') : undefined);
    if (!script) throw new Error('the TypeScript language service worker is missing');
    const bundledLib = typeof __dirname === 'string' ? path.join(__dirname, 'ts-lib') : undefined;
    this.guard = accessPolicy(this.ws).secrets;
    const data: TsWorkerData = {
      root: this.ws.root,
      ...(script.endsWith('.js') && bundledLib && fs.existsSync(bundledLib) ? { libDir: bundledLib } : {}),
      secretGlobs: this.guard.globs,
      maxFileBytes: this.o.maxFileBytes ?? 4 * 1024 * 1024,
      bounds: { ...DEFAULT_BOUNDS, ...this.o.bounds },
      refusedConfigs: [...this.refusedConfigs.values()],
    };
    const worker = startWorker(script, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: this.o.heapMb ?? 1536 } });
    worker.unref();
    worker.on('message', (m: TsWorkerAnswer) => this.onAnswer(m));
    worker.on('error', (e) => this.stop(worker, `it failed: ${e.message}`));
    worker.on('exit', (code) => this.stop(worker, `it exited (${code})`));
    this.watchdog = setInterval(() => this.checkTime(), 250);
    this.watchdog.unref();
    return worker;
  }

  private onAnswer(m: TsWorkerAnswer): void {
    if ('loading' in m) {
      // Measured from the request's start still: loading one project after another adds no time.
      this.allowance = this.o.loadMs ?? 60_000;
      this.loadingConfig = m.loading;
      return;
    }
    const p = this.pending.get(m.id);
    this.pending.delete(m.id);
    this.loadingConfig = undefined;
    this.since = Date.now();
    this.allowance = this.requestMs;
    if ('error' in m) {
      if (m.refused && !this.told.has(m.error)) {
        this.told.add(m.error);
        this.o.log?.info(`TypeScript language service: ${m.error}; the parser answers for that project`);
      }
      return p?.reject(new Error(m.error));
    }
    this.heapBytes = m.heapBytes;
    const first = this.projects === undefined;
    this.projects = m.projects;
    if (first && m.projects === 0) this.noProjectListener?.();
    p?.resolve(m.value);
  }

  private checkTime(): void {
    if (this.worker && this.pending.size && Date.now() - this.since > this.allowance) {
      this.stop(this.worker, `it did not answer within ${this.allowance / 1000} s`);
    }
  }

  /** Stops the worker: its requests fail, and none is started again for `retryMs`. */
  private stop(worker: Worker, why: string, quiet = false): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    clearInterval(this.watchdog);
    if (!quiet && this.loadingConfig) this.refuseConfig(this.loadingConfig, why);
    this.loadingConfig = undefined;
    void worker.terminate().catch(() => undefined);
    this.stoppedUntil = Date.now() + (this.o.retryMs ?? 60_000);
    this.stoppedWhy = why;
    if (!quiet) this.o.log?.warn(`TypeScript language service stopped: ${why}; the parser answers meanwhile`);
    const error = new Error(`the TypeScript language service stopped (${why})`);
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }

  /** Remembers that loading `config` stopped the worker, so the next workers leave it to the parser at once. */
  private refuseConfig(config: string, why: string): void {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(config, { throwIfNoEntry: false });
    } catch {
      return; // not a file to be had (a folder on the way went): nothing to remember
    }
    if (!st?.isFile() || this.refusedConfigs.size >= 64) return;
    this.refusedConfigs.set(config, { config, version: `${st.mtimeMs}:${st.size}`, why: `stopped the language service (${why})` });
    this.o.log?.warn(`TypeScript language service: ${config} is left to the parser until it changes (loading it stopped the service)`);
  }

  /** Whether the folder has a config to load; told to the listener once when it has none. */
  private async anyProject(): Promise<boolean> {
    this.presence ??= holdsTsConfig(this.ws.root);
    if (await this.presence) return true;
    if (this.projects === undefined) {
      this.projects = 0;
      this.noProjectListener?.();
    }
    return false;
  }

  private async ask<T>(request: TsRequest): Promise<T> {
    // Empty answers (the parser answers) without a worker when there is nothing for it to load.
    if (!(await this.anyProject())) return (request.op === 'memory' ? undefined : []) as T;
    return this.askWorker<T>(request);
  }

  private askWorker<T>(request: TsRequest): Promise<T> {
    // The worker knows the secret globs it started with: another set (a setting changed) needs another worker.
    if (this.worker && this.guard !== accessPolicy(this.ws).secrets) {
      this.loadingConfig = undefined; // stopped for the setting, not for the project it loads
      this.stop(this.worker, 'the secret globs changed');
    }
    if (this.worker === undefined && this.stoppedWhy && Date.now() < this.stoppedUntil) {
      return Promise.reject(new Error(`the TypeScript language service is stopped (${this.stoppedWhy}); it starts again in ${Math.ceil((this.stoppedUntil - Date.now()) / 1000)} s`));
    }
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (!this.pending.size) {
        this.since = Date.now();
        this.allowance = this.requestMs;
      }
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ id, ...request });
    });
  }

  /** Whether a path the worker answered with may be used: in the project and not secret by the access policy, or one of TypeScript's own lib files. */
  private async mayUse(abs: string): Promise<boolean> {
    const rel = path.relative(this.ws.root, abs);
    // `..util.ts` is in the project: only `..` as a whole name leads out.
    if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return /^lib(\.[\w.-]+)?\.d\.ts$/.test(path.basename(abs)) && /[/\\](typescript[/\\]lib|ts-lib)$/.test(path.dirname(abs));
    try {
      return (await accessPolicy(this.ws).resolve(rel || '.')).kind !== 'secret';
    } catch {
      return false;
    }
  }

  private async asks(abs: string): Promise<boolean> {
    return TS_OR_JS.test(abs) && (await this.mayUse(abs));
  }

  private async kept<T>(list: readonly T[], pathOf: (x: T) => string): Promise<T[]> {
    const keep = await Promise.all(list.map((x) => this.mayUse(pathOf(x))));
    return list.filter((_, i) => keep[i]);
  }

  async workspaceSymbols(query: string): Promise<readonly IntelSymbolLocation[]> {
    if (!query.trim()) return [];
    return this.kept(await this.ask<IntelSymbolLocation[]>({ op: 'workspaceSymbols', query }), (s) => s.path);
  }

  async documentSymbols(absPath: string): Promise<readonly IntelSymbol[]> {
    return (await this.asks(absPath)) ? this.ask<IntelSymbol[]>({ op: 'documentSymbols', file: absPath }) : [];
  }

  async prepareCallHierarchy(absPath: string, position: IntelPosition): Promise<readonly IntelCallItem[]> {
    if (!(await this.asks(absPath))) return [];
    return this.kept(await this.ask<IntelCallItem[]>({ op: 'prepare', file: absPath, ...position }), (i) => i.path);
  }

  incomingCalls(item: IntelCallItem): Promise<readonly IntelCall[]> {
    return this.calls('incoming', item);
  }

  outgoingCalls(item: IntelCallItem): Promise<readonly IntelCall[]> {
    return this.calls('outgoing', item);
  }

  private async calls(op: 'incoming' | 'outgoing', item: IntelCallItem): Promise<readonly IntelCall[]> {
    if (!(await this.asks(item.path))) return [];
    const calls = await this.ask<IntelCall[]>({ op, file: item.path, ...item.selectionRange.start });
    return this.kept(calls, (c) => c.item.path);
  }

  /** Told once when the worker finds the folder has no tsconfig.json or jsconfig.json: there is nothing to ask it. */
  onNoProject(listener: () => void): void {
    this.noProjectListener = listener;
  }

  /** The worker's heap in use now, after a request that makes sure its projects are loaded (benchmarks). */
  async heapInUse(): Promise<number> {
    await this.ask({ op: 'memory' });
    return this.heapBytes;
  }

  /** Stops the worker for good (the host stops). */
  close(): void {
    if (this.worker) this.stop(this.worker, 'the host stopped', true);
    this.stoppedUntil = Number.POSITIVE_INFINITY;
  }
}
