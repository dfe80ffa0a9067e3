import { parentPort, workerData } from 'node:worker_threads';
import { extractFileJson } from '../languages/registry';
import { configureGrammarDirectory } from './parser';

/**
 * A code-index parse worker (see parsePool.ts): loads web-tree-sitter and the grammars in its own
 * thread and answers `{ id, rel, text }` with the file's symbols as JSON text (what the main
 * thread would have stored), or with the error. Bundled on its own as dist/codeWorker.js.
 */

interface Job {
  readonly id: number;
  readonly rel: string;
  readonly text: string;
}

const data = workerData as { grammarDir?: string } | undefined;
if (data?.grammarDir) configureGrammarDirectory(data.grammarDir);

parentPort?.on('message', (job: Job) => {
  extractFileJson(job.rel, job.text).then(
    (json) => parentPort?.postMessage({ id: job.id, json }),
    (e: unknown) => parentPort?.postMessage({ id: job.id, error: String(e) }),
  );
});
