import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** global.gc, also without --expose-gc on the command line (npm test). */
export function gcFunction(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** The heap and what lives beside it: a large text decoded from a file is an external string. */
export function memoryInUse(): number {
  const u = process.memoryUsage();
  return u.heapUsed + u.external;
}
