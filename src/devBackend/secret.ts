import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares a presented token with the expected one in constant time (digests: lengths leak nothing either). */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

