import * as os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { t, useMessageBundle, type MessageBundle } from '../l10n';
import { ToolError } from '../protocol/errors';
import { editNotebookText, type NotebookEditRequest } from './notebook';

/**
 * The notebook edit worker (notebookOffThread.ts): one job, a notebook's text and the cell edit,
 * answered with editNotebookText's result or its refusal. Bundled on its own as
 * dist/notebookWorker.js.
 */

export interface NotebookJob {
  readonly text: string;
  readonly request: NotebookEditRequest;
  readonly path: string;
  /** The message bundle of the host's thread: a worker starts with none loaded. */
  readonly bundle: MessageBundle;
}

export type NotebookAnswer =
  | { readonly ok: ReturnType<typeof editNotebookText> }
  | { readonly refused: { readonly code: ToolError['code']; readonly message: string } }
  | { readonly failed: string };

// Below the host's thread, as the code index's parse workers: a long edit must not take the CPU
// from the link and the other calls. On Linux this lowers only this thread.
if (process.platform === 'linux') {
  try {
    os.setPriority(0, 10);
  } catch {
    // not permitted here: the worker runs at the host's priority
  }
}

parentPort?.once('message', (job: NotebookJob) => {
  let answer: NotebookAnswer;
  try {
    useMessageBundle(job.bundle);
    answer = { ok: editNotebookText(job.text, job.request, job.path, t) };
  } catch (e) {
    answer = e instanceof ToolError ? { refused: { code: e.code, message: e.message } } : { failed: e instanceof Error ? e.message : String(e) };
  }
  parentPort?.postMessage(answer);
});
