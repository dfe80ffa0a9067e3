import { messageBundle, t } from '../l10n';
import { ToolError } from '../protocol/errors';
import { findWorkerScript, startWorker } from '../workers';
import type { NotebookCellEdit } from './types';
import { editNotebookText, type NotebookEditRequest } from './notebook';
import type { NotebookAnswer, NotebookJob } from './notebookWorker';

/**
 * Up to this many characters a notebook is edited on the calling thread: parsing, the duplicate-key
 * scan and the edit stay short even for pathological JSON (tens of thousands of tiny values).
 */
const INLINE_MAX_CHARS = 64 * 1024;
/** A larger one is edited in a worker, which is stopped past this time or heap (a hostile file's doing). */
const WORKER_TIME_MS = 30_000;
const WORKER_HEAP_MB = 1024;

/** dist/notebookWorker.js beside the bundle, or notebookWorker.ts when running from sources (tsx). */
function workerScript(): string | undefined {
  if (typeof __dirname !== 'string') return undefined;
  return findWorkerScript(__dirname, 'notebookWorker.js', 'notebookWorker.ts');
}

/**
 * editNotebookText without holding the event loop: a notebook of megabytes takes hundreds of
 * milliseconds to parse and edit, and a hostile one far more, so all but small ones are edited in
 * a worker thread, bounded in time and heap; one at a time. Cancelling the call stops the worker.
 */
export async function editNotebookOffThread(text: string, request: NotebookEditRequest, rel: string, signal: AbortSignal): Promise<{ text: string; edit: NotebookCellEdit }> {
  if (text.length <= INLINE_MAX_CHARS) return editNotebookText(text, request, rel, t);
  // One worker at a time: its heap bound is then the bound for all notebook edits together.
  const turn = queue.then(() => editInWorker(text, request, rel, signal));
  queue = turn.catch(() => undefined);
  return turn;
}

let queue: Promise<unknown> = Promise.resolve();

async function editInWorker(text: string, request: NotebookEditRequest, rel: string, signal: AbortSignal): Promise<{ text: string; edit: NotebookCellEdit }> {
  const script = workerScript();
  if (!script) throw new ToolError('INTERNAL_ERROR', t('The notebook worker (notebookWorker.js) is missing from this installation, so {0} cannot be edited without stalling the host. Nothing was written.', rel));
  if (signal.aborted) throw new ToolError('CANCELLED', t('The call was cancelled; nothing was written.'));
  const worker = startWorker(script, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  try {
    const answer = await new Promise<NotebookAnswer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new ToolError('BAD_REQUEST', t('{0} took longer than {1} s to parse and edit; Agent Bridge stopped. Nothing was written.', rel, WORKER_TIME_MS / 1000))), WORKER_TIME_MS);
      const onAbort = () => reject(new ToolError('CANCELLED', t('The call was cancelled; nothing was written.')));
      signal.addEventListener('abort', onAbort, { once: true });
      const settle = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      worker.once('message', (a: NotebookAnswer) => (settle(), resolve(a)));
      worker.once('error', (e: Error & { code?: string }) => {
        settle();
        reject(
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new ToolError('BAD_REQUEST', t('{0} needs more than {1} MB of memory to parse (its JSON is unusually dense); Agent Bridge stopped. Nothing was written.', rel, WORKER_HEAP_MB))
            : new ToolError('INTERNAL_ERROR', t('The notebook worker failed on {0}: {1}. Nothing was written.', rel, e.message)),
        );
      });
      worker.once('exit', (code) => (settle(), reject(new ToolError('INTERNAL_ERROR', t('The notebook worker stopped (exit code {0}) before answering; nothing was written.', code)))));
      worker.postMessage({ text, request, path: rel, bundle: messageBundle() } satisfies NotebookJob);
    });
    if ('ok' in answer) return answer.ok;
    if ('refused' in answer) throw new ToolError(answer.refused.code, answer.refused.message);
    throw new ToolError('INTERNAL_ERROR', t('The notebook worker failed on {0}: {1}. Nothing was written.', rel, answer.failed));
  } finally {
    void worker.terminate();
  }
}
