/** The questions asked before a secret file is even read, listed with the waiting changes until answered. */
import type { Logger } from '../../core/log';
import { ToolError } from '../../core/protocol/errors';
import type { SecretChangeRequest } from '../../core/write/gate';
import type { PendingChangeView } from './changeQueue';
import { askSecretChange } from './prompts';

type Answer = 'allowed' | 'refused' | 'withdrawn';

/**
 * A question lives in Pending Changes and on the chat's cards until answered, like a change (Approve
 * allows, Reject refuses); the notification only points there, since later ones can push it out of sight.
 */
export class SecretQuestions {
  private readonly waiting = new Map<string, { readonly view: PendingChangeView; readonly answer: (a: Answer) => void }>();

  constructor(
    private readonly log: Logger,
    /** Called whenever the list of questions changes. */
    private readonly changed: () => void,
  ) {}

  get views(): PendingChangeView[] {
    return [...this.waiting.values()].map((q) => q.view);
  }

  get size(): number {
    return this.waiting.size;
  }

  oldest(): string | undefined {
    return this.waiting.keys().next().value;
  }

  /** Resolves once the developer allows the change to be prepared; throws USER_REJECTED or CANCELLED otherwise. */
  async ask(request: SecretChangeRequest, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw new ToolError('CANCELLED', 'The call was cancelled before the developer was asked.');
    const view: PendingChangeView = {
      id: request.id,
      toolName: request.toolName,
      relativePath: request.path.rel,
      description: request.description,
      created: false,
      guarded: { kind: 'secret', rule: request.path.rule ?? '?' },
      added: 0,
      removed: 0,
      consent: true,
      askedAt: Date.now(),
    };
    this.log.warn(`${request.toolName} ${request.id}: asks to change the secret file ${request.path.rel}`);
    const answer = new Promise<Answer>((resolve) => this.waiting.set(request.id, { view, answer: resolve }));
    const onAbort = () => this.answer(request.id, 'withdrawn');
    signal.addEventListener('abort', onAbort, { once: true });
    this.changed();
    askSecretChange(view, answer);
    try {
      const picked = await answer;
      if (picked === 'withdrawn') throw new ToolError('CANCELLED', 'The call was withdrawn before the developer decided; nothing was read or written.');
      if (picked === 'refused') throw new ToolError('USER_REJECTED', `The developer did not allow a change to ${request.path.rel}.`);
      this.log.info(`${request.id}: the developer allowed a change to the secret file ${request.path.rel} to be prepared`);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Answers question `id`; false when no such question waits (then `id` may be a change). */
  answer(id: string, answer: Answer): boolean {
    const q = this.waiting.get(id);
    if (!q) return false;
    this.waiting.delete(id);
    this.changed();
    q.answer(answer);
    return true;
  }

  withdrawAll(): void {
    for (const id of [...this.waiting.keys()]) this.answer(id, 'withdrawn');
  }
}
