import * as path from 'node:path';
import type { SearchProbeLine } from './searchIgnoreProbe';
import { runWatched } from './watchedChild';

/** The in-process search probe (searchIgnoreProbe.ts) run with a 512 MB heap under a watchdog: its one line, and how it ended. */
export async function runSearchProbe(args: readonly string[], watchdogMs: number): Promise<{ line?: SearchProbeLine; killed: boolean; code: number | null; stderr: string }> {
  const run = await runWatched(path.join(__dirname, 'searchIgnoreProbe.ts'), args, { watchdogMs, nodeArgs: ['--max-old-space-size=512'] });
  const first = run.stdout.split('\n').find(Boolean);
  return { line: first ? (JSON.parse(first) as SearchProbeLine) : undefined, killed: run.killed, code: run.code, stderr: run.stderr.slice(-2000) };
}
