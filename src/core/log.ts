/** Minimal logging sink: the extension writes to an OutputChannel, the headless host to stderr. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
  /** False when debug lines are dropped: callers then need not build them (undefined: they may be kept). */
  readonly verbose?: boolean;
}

/** Characters that could end a log line, start a forged one or drive a terminal. */
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_LOG = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A message as one inert line: line breaks (CR, LF, U+2028/2029), every other C0 and C1 control
 * (ESC included, so no ANSI sequence), DEL and the bidirectional marks are written as escapes
 * (`\n`, `\u001b`). Log messages quote values from outside (call ids, tool names, paths, errors),
 * and none may forge a line or restyle a terminal. Applying it twice changes nothing more.
 */
export function escapeForLog(message: string): string {
  return message.replace(UNSAFE_IN_LOG, (c) => NAMED_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A logger that writes timestamped lines to a function (stderr, an output channel); each message is one line (escapeForLog). */
export function lineLogger(write: (line: string) => void, verbose = false): Logger {
  const emit = (level: string) => (message: string) => write(`${new Date().toISOString()} [${level}] ${escapeForLog(message)}`);
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
 * Messages are also escaped (escapeForLog): the hosts wrap every sink they are given in this one,
 * so a sink that does not escape still gets one line per message.
 */
export function redactingLogger(inner: Logger, secrets: () => readonly (string | undefined)[]): Logger {
  const scrub = (message: string): string => {
    let out = message;
    for (const s of secrets()) if (s && s.length >= 4) out = out.split(s).join(REDACTED);
    return escapeForLog(out);
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
