import * as vscode from 'vscode';
import type { Logger } from '../core/log';

/** The core's Logger over VS Code's log output channel (which adds timestamps and honours the log level). */
export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    info: (m) => channel.info(m),
    warn: (m) => channel.warn(m),
    error: (m) => channel.error(m),
    debug: (m) => channel.debug(m),
    get verbose() {
      return channel.logLevel !== vscode.LogLevel.Off && channel.logLevel <= vscode.LogLevel.Debug;
    },
  };
}
