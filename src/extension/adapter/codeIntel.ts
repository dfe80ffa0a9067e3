import * as path from 'node:path';
import * as vscode from 'vscode';
// Only the extension list and the index registry: the parser and the extractors load on first use.
import { SOURCE_EXTENSIONS } from '../../core/code/languageTable';
import { configureCodeIndexes, peekCodeIntel } from '../../core/code/intel/state';
import type { Logger } from '../../core/log';
import type { Workspace } from '../../core/workspace/workspace';

/**
 * The code index behind read_class / read_method / call_chain, in VS Code: its cache lives in the
 * extension's workspace storage (so a reload does not reparse), its first build shows progress in
 * the status bar, and saved, created or deleted source files keep it current.
 */
export function registerCodeIntel(context: vscode.ExtensionContext, log: Logger, current: () => Workspace | undefined): vscode.Disposable {
  const storage = (context.storageUri ?? context.globalStorageUri).fsPath;
  configureCodeIndexes({
    cacheDir: () => storage,
    log,
    onBuildStart: (_ws, index) => {
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Agent Bridge: indexing code' }, async (progress) => {
        await vscode.workspace.fs.createDirectory(vscode.Uri.file(storage));
        // The declarations first (read_class and read_method answer from them), then the call sites (call_chain).
        await index
          .ready((p) => {
            // Each pass counts the files it parses: the second only those the first outlined.
            if (p.phase === 'parsing' && p.total) progress.report({ message: `declarations, ${p.done}/${p.total} files` });
            if (p.phase === 'calls' && p.total) progress.report({ message: `call sites, ${p.done}/${p.total} files` });
          })
          .catch(() => undefined);
      });
    },
  });
  const watcher = vscode.workspace.createFileSystemWatcher(`**/*.{${SOURCE_EXTENSIONS.join(',')}}`);
  const relative = (uri: vscode.Uri, ws: Workspace) => path.relative(ws.root, uri.fsPath).split(path.sep).join('/');
  // During the build too: a file the build read before a save or a delete keeps what happened after (indexStore.ts).
  const onChange = (uri: vscode.Uri) => {
    const ws = current();
    const intel = ws && peekCodeIntel(ws);
    if (ws && intel) void intel.index.update(relative(uri, ws)).catch((e: unknown) => log.warn(`code index: ${String(e)}`));
  };
  return vscode.Disposable.from(
    watcher,
    watcher.onDidChange(onChange),
    watcher.onDidCreate(onChange),
    watcher.onDidDelete((uri) => {
      const ws = current();
      const intel = ws && peekCodeIntel(ws);
      if (ws && intel) intel.index.remove(relative(uri, ws));
    }),
  );
}
