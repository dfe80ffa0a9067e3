import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/**
 * A host that ends while it writes its cache (the window closed) leaves `<file>.<pid>.tmp`
 * behind, hundreds of megabytes on a large project; the next save removes those whose process
 * is gone (another window over the same folder may be writing its own right now).
 */
export async function removeStaleTemps(file: string): Promise<void> {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const stale = names.filter((n) => {
    const pid = /^(\d+)\.tmp$/.exec(n.startsWith(prefix) ? n.slice(prefix.length) : '')?.[1];
    return pid !== undefined && Number(pid) !== process.pid && !running(Number(pid));
  });
  // Best effort: a name that cannot be removed (a folder of that name, a file held open) must not stop the save.
  await Promise.all(stale.map((n) => fs.rm(path.join(dir, n), { force: true }).catch(() => undefined)));
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // someone else's process: alive
  }
}
