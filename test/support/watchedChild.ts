import { spawn } from 'node:child_process';

/** How a child process run under a watchdog ended, and what it printed. */
export interface WatchedRun {
  readonly stdout: string;
  readonly stderr: string;
  /** The watchdog killed it. */
  readonly killed: boolean;
  readonly code: number | null;
}

/**
 * Runs a TypeScript file in its own Node process (under tsx), `stdin` written to it when given,
 * killed after `watchdogMs`: a probe that may hold its own event loop cannot hold the test's.
 */
export function runWatched(script: string, args: readonly string[], o: { watchdogMs: number; stdin?: string; nodeArgs?: readonly string[] }): Promise<WatchedRun> {
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), '--import', 'tsx', script, ...args], { stdio: [o.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  let killed = false;
  const watchdog = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, o.watchdogMs);
  if (o.stdin !== undefined) child.stdin?.end(o.stdin);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(watchdog);
      resolve({ stdout, stderr, killed, code });
    });
  });
}
