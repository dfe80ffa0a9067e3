import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTree } from './fixtures';

/** Whether a process with this pid exists (a child not yet reaped still does). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A stand-in for `program` that writes its pid to `pidFile` and then `exec`s it with the caller's
 * arguments and `extraArgs`, so the pid a test reads is the real program's own and can be checked.
 */
export function pidRecordingWrapper(program: string, extraArgs: readonly string[] = []): { readonly command: string; readonly pidFile: string } {
  const dir = makeTree({}, 'ab-pid-');
  const pidFile = path.join(dir, 'program.pid');
  const command = path.join(dir, 'wrapper.sh');
  const extra = extraArgs.map((a) => ` '${a}'`).join('');
  fs.writeFileSync(command, `#!/bin/sh\necho $$ > '${pidFile}'\nexec '${program}' "$@"${extra}\n`, { mode: 0o755 });
  return { command, pidFile };
}
