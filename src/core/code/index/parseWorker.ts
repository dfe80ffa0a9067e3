import * as os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { ReadRefusal, readRegularFileSync, type CheckedFile } from '../../policy/safeRead';
import { decodeText, isBinary } from '../../workspace/text';
import { extractPacked, type ExtractMode } from '../languages/registry';
import type { PackedJson } from '../packedSymbols';
import { configureGrammarDirectory } from '../parse/parser';

/**
 * A code-index parse worker (see parsePool.ts): loads web-tree-sitter and the grammars in its own
 * thread and answers a job with the file's symbols packed (packedSymbols.ts: what the main thread
 * would have stored), or with the error. A job brings the file's text, or only its checked
 * absolute path: the worker then reads it itself, through the same checks as every read
 * (safeRead.ts: a regular file, where the policy looked, bounded), so the main thread neither
 * reads nor copies the text. Bundled on its own as dist/codeWorker.js.
 */

type Job = { readonly id: number; readonly rel: string; readonly mode: ExtractMode } & (
  | { readonly text: string }
  | { readonly abs: string; readonly maxBytes: number; readonly checked: CheckedFile }
);

/**
 * What a job answers: the packed symbols, `unreadable` (gone, not a regular file, too large,
 * binary), `changed` (not the file the main thread checked: it checks and reads it again), or the error.
 */
export interface WorkerAnswer {
  readonly id: number;
  readonly packed?: PackedJson;
  readonly unreadable?: true;
  readonly changed?: true;
  readonly error?: string;
}

/**
 * Below the main thread: the build must not take the CPU from the host's event loop (tool calls,
 * the link's heartbeat). On Linux a thread's nice value is its own (setpriority on "process" 0
 * is the calling thread), so only this worker is lowered; elsewhere it would lower the whole
 * extension host, so it is left alone there (parsePool.ts then keeps a core free instead).
 */
const WORKER_NICE = 10;
if (process.platform === 'linux') {
  try {
    os.setPriority(0, WORKER_NICE);
  } catch {
    // not permitted here: the worker runs at the host's priority
  }
}

const data = workerData as { grammarDir?: string } | undefined;
if (data?.grammarDir) configureGrammarDirectory(data.grammarDir);

/** A file that is not the one the main thread checked (replaced, another link): it checks and reads it again. */
const CHANGED = Symbol('changed');

/**
 * The file's text; undefined when it is not a readable text file (the main thread drops its
 * record), CHANGED when it is not the file the main thread checked.
 */
function textOf(job: Job): string | undefined | typeof CHANGED {
  if ('text' in job) return job.text;
  try {
    // Synchronous: this thread does nothing else meanwhile, and a page-cache read takes microseconds.
    const bytes = readRegularFileSync(job.abs, job.maxBytes, job.checked);
    return isBinary(bytes) ? undefined : decodeText(bytes).text;
  } catch (e) {
    return e instanceof ReadRefusal && e.code === 'ECHANGED' ? CHANGED : undefined; // no file's bytes take the worker down
  }
}

const answer = (a: WorkerAnswer, transfer: ArrayBuffer[] = []): void => parentPort?.postMessage(a, transfer);

// Loaded: from now on the pool takes this worker's death as the doing of the file it was parsing.
parentPort?.postMessage({ ready: true });

parentPort?.on('message', (job: Job) => {
  const text = textOf(job);
  if (text === undefined) return answer({ id: job.id, unreadable: true });
  if (text === CHANGED) return answer({ id: job.id, changed: true });
  extractPacked(job.rel, text, job.mode).then(
    (packed) => {
      if (!packed) return answer({ id: job.id });
      // the deflated bytes are moved, not copied (buffers of their own, never slices of a pool)
      const decl = new Uint8Array(packed.decl);
      const calls = packed.calls && new Uint8Array(packed.calls);
      answer({ id: job.id, packed: { ...packed, decl, calls } }, calls ? [decl.buffer as ArrayBuffer, calls.buffer as ArrayBuffer] : [decl.buffer as ArrayBuffer]);
    },
    (e: unknown) => answer({ id: job.id, error: String(e) }),
  );
});
