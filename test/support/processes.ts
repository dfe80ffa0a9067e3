/** Whether a process with this pid exists (a child not yet reaped still does). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

