import * as vscode from 'vscode';

/** A concept's commands: its ids (those of package.json's contributes.commands) and what each runs. */
type CommandTable = Readonly<Record<string, (...args: never[]) => unknown>>;

/**
 * The one place commands are registered: each concept lists its own (connection/commands.ts,
 * review/, changes/, chat/), and activate() hands the lists here.
 */
export function registerCommands(...tables: readonly CommandTable[]): vscode.Disposable[] {
  return tables.flatMap((table) => Object.entries(table).map(([id, run]) => vscode.commands.registerCommand(id, run)));
}
