import * as vscode from 'vscode';
import { escapeForLog, type Logger } from '../../core/log';

/**
 * The core's Logger over VS Code's log output channel (which adds timestamps and honours the log
 * level); each message is one line (escapeForLog).
 */
export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    info: (m) => channel.info(escapeForLog(m)),
    warn: (m) => channel.warn(escapeForLog(m)),
    error: (m) => channel.error(escapeForLog(m)),
    debug: (m) => channel.debug(escapeForLog(m)),
    get verbose() {
      return channel.logLevel !== vscode.LogLevel.Off && channel.logLevel <= vscode.LogLevel.Debug;
    },
  };
}
