import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Worker threads of the core, started one way: each worker is a TypeScript file bundled on its own
 * beside the extension (esbuild.mjs), and run from its source under tsx in tests and benchmarks.
 */

/** `bundled` (dist/, beside the bundle) or `source` (a .ts file, running from the sources) in `dir`, whichever exists. */
export function findWorkerScript(dir: string, bundled: string, source: string): string | undefined {
  return [path.join(dir, bundled), path.join(dir, source)].find((c) => fs.existsSync(c));
}

/** A worker running `script`. From a .ts source the worker does not inherit tsx's loader hooks: it registers tsx's CommonJS hook itself first. */
export function startWorker(script: string, options: WorkerOptions = {}): Worker {
  if (!script.endsWith('.ts')) return new Worker(script, options);
  const tsx = require.resolve('tsx/cjs');
  return new Worker(`require(${JSON.stringify(tsx)}); require(${JSON.stringify(script)});`, { ...options, eval: true });
}
