import type { Logger } from '../../src/core/log';

/** A logger that drops every line: tests and benches that do not look at the log. */
export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  verbose: false,
};

/** A silent logger that keeps its warnings in `warnings`, for tests that assert on them. */
export function warningsLogger(warnings: string[]): Logger {
  return { ...silentLogger, warn: (message) => void warnings.push(message) };
}
