import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { realpathLenient } from '../core/realpath';
import type { FileInfo, Workspace } from '../core/workspace';
import { VscodeLanguageIntel } from './languageIntel';

function realpathOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** ripgrep as VS Code ships it (desktop builds keep it unpacked beside the asar archive). */
export function findBundledRipgrep(appRoot: string): string | undefined {
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  for (const modules of ['node_modules', 'node_modules.asar.unpacked']) {
    const candidate = path.join(appRoot, modules, '@vscode', 'ripgrep', 'bin', exe);
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Globs whose value is `true` in files.exclude and search.exclude (conditional `when` entries are left to VS Code). */
function enabledGlobs(setting: unknown): string[] {
  if (!setting || typeof setting !== 'object') return [];
  return Object.entries(setting as Record<string, unknown>)
    .filter(([, on]) => on === true)
    .map(([glob]) => glob);
}

/** The Workspace over a VS Code workspace folder: sees unsaved buffers, reads through `workspace.fs`. */
export class VscodeWorkspace implements Workspace {
  readonly root: string;
  readonly name: string;
  /** VS Code's display language: tool results are written in it. */
  readonly locale = vscode.env.language;
  private readonly rg: string | undefined;

  /** Which workspace folder this is (its URI), to tell whether a cached instance still fits. */
  readonly folderUri: string;
  /** The language servers' symbols and call hierarchy, for read_class / read_method / call_chain. */
  readonly languageIntel: VscodeLanguageIntel;

  constructor(private readonly folder: vscode.WorkspaceFolder) {
    this.folderUri = folder.uri.toString();
    this.root = realpathOrSelf(folder.uri.fsPath);
    this.name = folder.name;
    this.rg = findBundledRipgrep(vscode.env.appRoot);
    const shown = folder.uri.fsPath;
    this.languageIntel = new VscodeLanguageIntel((p) => (shown !== this.root && (p === shown || p.startsWith(shown + path.sep)) ? this.root + p.slice(shown.length) : p));
  }

  dirtyText(absPath: string): string | undefined {
    for (const doc of vscode.workspace.textDocuments) {
      if (!doc.isDirty || doc.uri.scheme !== 'file') continue;
      if (doc.uri.fsPath === absPath || realpathOrSelf(doc.uri.fsPath) === absPath) return doc.getText();
    }
    return undefined;
  }

  async readBytes(absPath: string): Promise<Uint8Array> {
    try {
      return await vscode.workspace.fs.readFile(vscode.Uri.file(absPath));
    } catch (e) {
      if (e instanceof vscode.FileSystemError && e.code === 'FileNotFound') {
        throw Object.assign(new Error(`not found: ${absPath}`), { code: 'ENOENT' });
      }
      throw e;
    }
  }

  async stat(absPath: string): Promise<FileInfo | undefined> {
    try {
      const s = await vscode.workspace.fs.stat(vscode.Uri.file(absPath));
      const kind = s.type & vscode.FileType.File ? 'file' : s.type & vscode.FileType.Directory ? 'directory' : 'other';
      return { kind, size: s.size, mtimeMs: s.mtime };
    } catch {
      return undefined;
    }
  }

  realpath(absPath: string): Promise<string> {
    return realpathLenient(absPath);
  }

  ripgrepPath(): string | undefined {
    return this.rg;
  }

  searchExcludes(): readonly string[] {
    const files = vscode.workspace.getConfiguration('files', this.folder.uri).get('exclude');
    const search = vscode.workspace.getConfiguration('search', this.folder.uri).get('exclude');
    return [...new Set([...enabledGlobs(files), ...enabledGlobs(search)])];
  }
}
