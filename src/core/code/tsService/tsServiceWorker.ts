import * as path from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { SecretGuard } from '../../workspace/globSet';
import { GuardedFiles, TooManyLookups } from './guardedFiles';
import { TsAnswers, type TsRequest } from './tsAnswers';
import { findConfigs } from './configFiles';
import { ProjectRefused, Projects, type ProjectBounds, type RefusedConfig } from './tsProjects';

/**
 * The worker thread of the headless TypeScript language service (tsLanguageIntel.ts starts it):
 * loads the `typescript` package on its first question and answers one request at a time. Its
 * file access is GuardedFiles only. Bundled on its own as dist/tsServiceWorker.js.
 */

export interface TsWorkerData {
  readonly root: string;
  /** The folder of the lib.*.d.ts files; undefined: the `typescript` package's own. */
  readonly libDir?: string;
  readonly secretGlobs: readonly string[];
  readonly maxFileBytes: number;
  readonly bounds: ProjectBounds;
  /** Configs that stopped an earlier worker: refused unless they changed since. */
  readonly refusedConfigs: readonly RefusedConfig[];
}

/** A request's answer: the value, or the error; `refused` when a project is over the bounds. `loading`: the config about to be loaded. */
export type TsWorkerAnswer =
  | { readonly id: number; readonly value: unknown; readonly heapBytes: number; readonly projects: number }
  | { readonly id: number; readonly error: string; readonly refused?: true }
  | { readonly loading: string };

const data = workerData as TsWorkerData;
let answers: Promise<Pick<TsAnswers, 'answer'>> | undefined;
/** The config files found: none means every answer is empty. */
let projects = 0;

const loading = (config: string): void => parentPort?.postMessage({ loading: config } satisfies TsWorkerAnswer);

/** No config in the folder: nothing to load, every answer is empty (the parser answers). */
const NOTHING = { answer: (r: TsRequest): unknown => (r.op === 'memory' ? undefined : []) };

async function load(): Promise<Pick<TsAnswers, 'answer'>> {
  const secrets = new SecretGuard(data.secretGlobs);
  // Looked for before the typescript package is loaded: most folders without one never load it.
  const configs = findConfigs(data.root, new GuardedFiles({ root: data.root, secrets, maxFileBytes: 0, maxWalkEntries: 0 }), data.bounds.maxConfigs);
  projects = configs.length;
  if (!configs.length) return NOTHING;
  const ts = (await import('typescript')).default;
  const libDir = data.libDir ?? path.dirname(ts.getDefaultLibFilePath({}));
  const files = new GuardedFiles({ root: data.root, libDir, secrets, maxFileBytes: data.maxFileBytes, maxWalkEntries: data.bounds.maxFiles * 20 });
  return new TsAnswers(ts, new Projects(ts, data.root, configs, files, data.bounds, libDir, loading, data.refusedConfigs), data.root);
}

parentPort?.on('message', (m: TsRequest & { readonly id: number }) => {
  void (async () => {
    try {
      answers ??= load();
      const value = (await answers).answer(m);
      parentPort?.postMessage({ id: m.id, value, heapBytes: getHeapStatistics().used_heap_size, projects } satisfies TsWorkerAnswer);
    } catch (e) {
      // Lookups past the budget outside a project's program build (a file edited meanwhile) refuse it as well.
      const refused = e instanceof ProjectRefused || e instanceof TooManyLookups;
      parentPort?.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e), ...(refused ? { refused: true as const } : {}) } satisfies TsWorkerAnswer);
    }
  })();
});
