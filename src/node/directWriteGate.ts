import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { ChangeGate, CommittedChange, ProposedChange } from '../core/edit/gate';
import { ToolError } from '../core/protocol/errors';
import { decodeText, encodeText } from '../core/text';

async function readIfExists(abs: string): Promise<string | undefined> {
  try {
    return decodeText(await fs.readFile(abs)).text;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * The headless host's gate, used only with --auto-approve: nobody is asked, so a change to a
 * protected file (`.git`, `.vscode`, CI configuration, …) is refused, and a secret one never gets
 * here (this gate has no `allowSecretChange`). The file is checked against the text the change was
 * computed from, then replaced atomically (write beside, rename), so a crash never leaves half a file.
 */
export class DirectWriteGate implements ChangeGate {
  async commit(change: ProposedChange, signal: AbortSignal): Promise<CommittedChange> {
    if (signal.aborted) throw new ToolError('CANCELLED', 'The call was cancelled before the change was written.');
    if (change.path.kind !== 'normal') {
      throw new ToolError(
        'PERMISSION_DENIED',
        `${change.path.rel} is a ${change.path.kind} file (it matches "${change.path.rule}"${change.path.matched !== change.path.rel ? ` as ${change.path.matched}` : ''}): a change to it always needs a person's decision, and this host has nobody to ask. Nothing was written.`,
      );
    }
    const now = await readIfExists(change.path.abs);
    if (now !== change.original) {
      throw new ToolError('CONFLICT', `${change.path.rel} changed while the change was being prepared; nothing was written. Read it again and retry.`);
    }
    await fs.mkdir(path.dirname(change.path.abs), { recursive: true });
    const tmp = path.join(path.dirname(change.path.abs), `.${path.basename(change.path.abs)}.agent-bridge-${process.pid}-${Date.now()}.tmp`);
    const mode = await fs.stat(change.path.abs).then((s) => s.mode, () => undefined);
    try {
      await fs.writeFile(tmp, encodeText(change.proposed, change.encoding), mode === undefined ? {} : { mode });
      await fs.rename(tmp, change.path.abs);
    } catch (e) {
      await fs.rm(tmp, { force: true });
      throw e;
    }
    return { finalText: change.proposed, modifiedByUser: false, formatted: false, saved: true };
  }
}
