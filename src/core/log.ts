/** Minimal logging sink: the extension writes to an OutputChannel, the headless host to stderr. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
};

/** A logger that writes timestamped lines to a function (stderr, an output channel). */
export function lineLogger(write: (line: string) => void, verbose = false): Logger {
  const emit = (level: string) => (message: string) => write(`${new Date().toISOString()} [${level}] ${message}`);
  return {
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    debug: verbose ? emit('debug') : () => undefined,
  };
}
