import * as vscode from 'vscode';

const PROPOSAL_SCHEME = 'agent-bridge-proposal';
const ORIGINAL_SCHEME = 'agent-bridge-original';

/** Path and query as one unambiguous key (ids are the agent's: `a?b` + `c` must not meet `a` + `b?c`). */
const key = (uri: vscode.Uri) => JSON.stringify([uri.path, uri.query]);

/**
 * Holds the two sides of every pending diff in memory. The proposed side is a writable file system,
 * so the developer can edit the agent's proposal before approving it; the original side is a
 * read-only snapshot of the text the change was computed from.
 */
export class ProposalStore implements vscode.FileSystemProvider, vscode.TextDocumentContentProvider {
  /** Each pending proposal's text; `editable` once the developer chose Edit Proposal (read-only until then). */
  private readonly files = new Map<string, { data: Uint8Array; mtime: number; editable?: boolean }>();
  private readonly originals = new Map<string, string>();
  private readonly scratches = new Map<string, string>();
  private readonly changeEmitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changeEmitter.event;

  static register(store: ProposalStore): vscode.Disposable {
    return vscode.Disposable.from(
      vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, store, { isCaseSensitive: true }),
      vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, store),
    );
  }

  /**
   * URIs keep the file's path, so the diff editor picks the right language and the breadcrumbs
   * read like the real file; the call id rides in the query to keep proposals apart.
   */
  add(id: string, relativePath: string, original: string, proposed: string): { left: vscode.Uri; right: vscode.Uri } {
    const where = { path: `/${relativePath}`, query: id };
    const right = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, ...where });
    const left = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, ...where });
    this.files.set(key(right), { data: Buffer.from(proposed, 'utf8'), mtime: Date.now() });
    this.originals.set(key(left), original);
    return { left, right };
  }

  private scratchCount = 0;

  /**
   * A read-only copy of a text under the file's path, for a formatter to read before the diff is
   * shown. It has a fragment and no query, so no proposal (whose id is its query) can share it.
   */
  scratch(relativePath: string, text: string): { uri: vscode.Uri; dispose(): void } {
    const uri = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: `/${relativePath}`, fragment: `format-${++this.scratchCount}` });
    this.scratches.set(uri.toString(), text);
    return { uri, dispose: () => this.scratches.delete(uri.toString()) };
  }

  remove(right: vscode.Uri): void {
    this.files.delete(key(right));
    this.originals.delete(key(right));
  }

  /** The proposal as it is now: the open editor's text (edits not yet saved included), else what was stored. */
  currentText(right: vscode.Uri): string | undefined {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === right.toString());
    if (doc) return doc.getText();
    const f = this.files.get(key(right));
    return f ? Buffer.from(f.data).toString('utf8') : undefined;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.scratches.get(uri.toString()) ?? this.originals.get(key(uri)) ?? '';
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const f = this.files.get(key(uri));
    if (!f) throw vscode.FileSystemError.FileNotFound(uri);
    // Read-only until the developer asks to edit it: keys typed by mistake (the proposal opened while
    // they were typing elsewhere) cannot change what would be written.
    return { type: vscode.FileType.File, ctime: f.mtime, mtime: f.mtime, size: f.data.byteLength, ...(f.editable ? {} : { permissions: vscode.FilePermission.Readonly }) };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    const f = this.files.get(key(uri));
    if (!f) throw vscode.FileSystemError.FileNotFound(uri);
    return f.data;
  }

  /** Lets the developer edit a proposal (Edit Proposal); false when it is no longer pending. */
  makeEditable(uri: vscode.Uri): boolean {
    const f = this.files.get(key(uri));
    if (!f) return false;
    if (!f.editable) {
      this.files.set(key(uri), { ...f, editable: true, mtime: Date.now() });
      this.changeEmitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
    }
    return true;
  }

  /**
   * Replaces a read-only proposal's text (the developer dropped or kept a hunk): its open editor
   * reloads it. False when it is no longer pending or the developer is editing it by hand.
   */
  replaceText(uri: vscode.Uri, text: string): boolean {
    const f = this.files.get(key(uri));
    if (!f || f.editable) return false;
    this.files.set(key(uri), { data: Buffer.from(text, 'utf8'), mtime: Date.now() });
    this.changeEmitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
    return true;
  }

  isEditable(uri: vscode.Uri): boolean {
    return this.files.get(key(uri))?.editable === true;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    const f = this.files.get(key(uri));
    if (!f) throw vscode.FileSystemError.NoPermissions('Only pending proposals can be edited.');
    if (!f.editable) throw vscode.FileSystemError.NoPermissions('Choose Edit Proposal to change the agent\'s proposal.');
    this.files.set(key(uri), { data: content, mtime: Date.now(), editable: true });
    this.changeEmitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions('Proposals have no folders.');
  }

  delete(): void {
    throw vscode.FileSystemError.NoPermissions('Proposals are removed when decided.');
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions('Proposals cannot be renamed.');
  }
}
