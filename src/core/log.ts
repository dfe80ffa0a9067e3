/** Minimal logging sink: the extension writes to an OutputChannel, the headless host to stderr. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
  /** False when debug lines are dropped: callers then need not build them (undefined: they may be kept). */
  readonly verbose?: boolean;
}

export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  verbose: false,
};

/** A logger that writes timestamped lines to a function (stderr, an output channel). */
export function lineLogger(write: (line: string) => void, verbose = false): Logger {
  const emit = (level: string) => (message: string) => write(`${new Date().toISOString()} [${level}] ${message}`);
  return {
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    debug: verbose ? emit('debug') : () => undefined,
    verbose,
  };
}

/** What a redacted secret is replaced with in log lines. */
export const REDACTED = '[redacted]';

/**
 * A logger that never writes the given secrets (the auth token): every occurrence in a line is
 * replaced before the line reaches the sink. Secrets shorter than 4 characters are not searched
 * for (they would blank out ordinary words), but such a token is not logged anywhere either.
 */
export function redactingLogger(inner: Logger, secrets: () => readonly (string | undefined)[]): Logger {
  const scrub = (message: string): string => {
    let out = message;
    for (const s of secrets()) if (s && s.length >= 4) out = out.split(s).join(REDACTED);
    return out;
  };
  return {
    info: (m) => inner.info(scrub(m)),
    warn: (m) => inner.warn(scrub(m)),
    error: (m) => inner.error(scrub(m)),
    debug: (m) => inner.debug(scrub(m)),
    get verbose() {
      return inner.verbose;
    },
  };
}
