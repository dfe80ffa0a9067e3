import type { Logger } from '../../log';
import type { Workspace } from '../../workspace/workspace';
import { explainFallback, viaLanguageServer } from '../lsp/attempt';
import type { LspSession } from '../lsp/lspLookup';
import { codeIntelFor, pinnedAnswer, readyCodeIntel } from './intel';

/**
 * The one way read_class, read_method and call_chain answer: each source in turn, the first
 * answer wins.
 *
 *  1. The editor's language server, when the workspace has one and it knows the name, within
 *     LSP_BUDGET_MS (lsp/attempt.ts); past it, or when it fails, the next step answers.
 *  2. While the index lacks what the question needs, the files the question names, parsed alone
 *     (quickLookup.ts; neededFilesIndex.ts, within NEEDED_FILES_LIMITS); the index build is
 *     started for the next calls.
 *  3. The workspace's index, waited for as long as `readyCodeIntel` allows.
 *
 * Steps 2 and 3 run with the files they unpack pinned (`pinnedAnswer`), and their NOT_FOUND says
 * so when the language server gave up (`explainFallback`).
 */

type AnsweredBy = 'language-server' | 'files-alone' | 'index';

export interface CodeQuestion<Found, Answer> {
  /** The tool's name, for the log. */
  readonly tool: string;
  /** What the index must hold to answer: every file's declarations, or their call sites too. */
  readonly needs: 'declarations' | 'calls';
  /** Step 1: what the language server finds (undefined: it does not know the name), then the answer from it. */
  readonly languageServer: {
    find(session: LspSession): Promise<Found | undefined>;
    answer(found: Found): Promise<Answer>;
  };
  /** Step 2: the answer from the files the question names, ready to be written; undefined: ask the index. */
  readonly fromFilesAlone: () => Promise<(() => Promise<Answer>) | undefined>;
  /** Step 3: the answer from the index. */
  readonly fromIndex: () => Promise<Answer>;
}

export interface Answered<Answer> {
  readonly answer: Answer;
  readonly answeredBy: AnsweredBy;
}

type Context = { readonly workspace: Workspace; readonly signal: AbortSignal; readonly log: Logger };

export async function answerCodeQuestion<Found, Answer>(ctx: Context, q: CodeQuestion<Found, Answer>): Promise<Answered<Answer>> {
  const lsp = await viaLanguageServer(ctx, q.tool, (s) => q.languageServer.find(s));
  if (lsp.value !== undefined) return { answer: await q.languageServer.answer(lsp.value), answeredBy: 'language-server' };
  return pinnedAnswer(ctx, async (): Promise<Answered<Answer>> => {
    try {
      const { index } = codeIntelFor(ctx.workspace);
      if (!(q.needs === 'calls' ? index.isReady : index.declarationsIn)) {
        const write = await q.fromFilesAlone();
        if (write) {
          // Answered without the index; it is still built, for the next calls.
          void readyCodeIntel(ctx, q.needs).catch(() => undefined);
          return { answer: await write(), answeredBy: 'files-alone' };
        }
      }
      return { answer: await q.fromIndex(), answeredBy: 'index' };
    } catch (e) {
      throw explainFallback(e, lsp.note);
    }
  });
}
