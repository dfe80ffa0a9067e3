import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { realpathLenient } from '../../core/workspace/realpath';
import { readRegularFile } from '../../core/policy/safeRead';
import type { GlobSet, SecretGuard } from '../../core/workspace/globSet';
import type { DiagnosticInfo, FileInfo, LinkedCheck, Workspace } from '../../core/workspace/workspace';
import { editorDiagnostics } from './diagnostics';
import { VscodeLanguageIntel } from './languageIntel';
import { readProtectedGuard, readSecretGuard } from './settings';

function realpathOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** ripgrep as VS Code ships it (desktop builds keep it unpacked beside the asar archive). */
function findBundledRipgrep(appRoot: string): string | undefined {
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

/** The Workspace over a VS Code workspace folder: sees unsaved buffers, reads checked handles on disk. */
export class VscodeWorkspace implements Workspace {
  readonly root: string;
  readonly name: string;
  /** `readBytes` reads this host's disk through safeRead.ts (see below). */
  readonly readsLocalFiles = true;
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
    this.languageIntel = new VscodeLanguageIntel((p) => this.toRoot(p));
  }

  /** A path as VS Code shows it (under the folder as opened) to one under the real project root. */
  private toRoot(p: string): string {
    const shown = this.folder.uri.fsPath;
    return shown !== this.root && (p === shown || p.startsWith(shown + path.sep)) ? this.root + p.slice(shown.length) : p;
  }

  /** The other way: a path under the real root to the one VS Code knows the document by. */
  private toShown(p: string): string {
    const shown = this.folder.uri.fsPath;
    return shown !== this.root && (p === this.root || p.startsWith(this.root + path.sep)) ? shown + p.slice(this.root.length) : p;
  }

  diagnostics(absPaths: readonly string[] | undefined, opts: { readonly settleMs?: number; readonly signal?: AbortSignal } = {}): Promise<DiagnosticInfo[]> {
    return editorDiagnostics(absPaths, opts, (p) => this.toShown(p), (p) => this.toRoot(p));
  }

  dirtyPaths(): string[] {
    return vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file').map((d) => realpathOrSelf(d.uri.fsPath));
  }

  dirtyText(absPath: string): string | undefined {
    for (const doc of vscode.workspace.textDocuments) {
      if (!doc.isDirty || doc.uri.scheme !== 'file') continue;
      if (doc.uri.fsPath === absPath || realpathOrSelf(doc.uri.fsPath) === absPath) return doc.getText();
    }
    return undefined;
  }

  /**
   * Read with Node on the open handle (security/safeRead.ts), not `workspace.fs`: the folder is on
   * this host's disk (file: scheme only), and only a handle can be checked for being a regular
   * file that is where the access policy looked (a FIFO would hang the extension host).
   */
  async readBytes(absPath: string, _size?: number, linked?: LinkedCheck): Promise<Uint8Array> {
    return readRegularFile(absPath, undefined, linked);
  }

  async stat(absPath: string): Promise<FileInfo | undefined> {
    try {
      const s = await vscode.workspace.fs.stat(vscode.Uri.file(absPath));
      const kind = s.type & vscode.FileType.File ? 'file' : s.type & vscode.FileType.Directory ? 'directory' : 'other';
      return { kind, size: s.size, mtimeMs: s.mtime, readonly: ((s.permissions ?? 0) & vscode.FilePermission.Readonly) !== 0 };
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

  /** `agentBridge.excludeGlobs`, from user settings only (see settings.ts). */
  secretGuard(): SecretGuard {
    return readSecretGuard();
  }

  /** `agentBridge.protectedGlobs`, from user settings only (see settings.ts). */
  protectedGuard(): GlobSet {
    return readProtectedGuard();
  }

  /** files.exclude and search.exclude, and the secret globs (the access policy filters results again). */
  searchExcludes(): readonly string[] {
    const files = vscode.workspace.getConfiguration('files', this.folder.uri).get('exclude');
    const search = vscode.workspace.getConfiguration('search', this.folder.uri).get('exclude');
    // The user's exclusions only: searches add the secret globs themselves (core/search).
    return [...new Set([...enabledGlobs(files), ...enabledGlobs(search)])];
  }
}
