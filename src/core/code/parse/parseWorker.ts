import { parentPort, workerData } from 'node:worker_threads';
import { extractPacked } from '../languages/registry';
import { configureGrammarDirectory } from './parser';

/**
 * A code-index parse worker (see parsePool.ts): loads web-tree-sitter and the grammars in its own
 * thread and answers `{ id, rel, text }` with the file's symbols packed (packedSymbols.ts: what the
 * main thread would have stored), or with the error. Bundled on its own as dist/codeWorker.js.
 */

interface Job {
  readonly id: number;
  readonly rel: string;
  readonly text: string;
}

const data = workerData as { grammarDir?: string } | undefined;
if (data?.grammarDir) configureGrammarDirectory(data.grammarDir);

parentPort?.on('message', (job: Job) => {
  extractPacked(job.rel, job.text).then(
    (packed) => {
      // the deflated calls are moved, not copied (a Buffer of their own, never a slice of a pool)
      const calls = packed?.calls && new Uint8Array(packed.calls);
      parentPort?.postMessage({ id: job.id, packed: packed && { ...packed, calls } }, calls ? [calls.buffer] : []);
    },
    (e: unknown) => parentPort?.postMessage({ id: job.id, error: String(e) }),
  );
});
