/**
 * `@` completion for the chat: the project's files (projectFiles.ts) and the types and methods the
 * code index knows, ranked by the fuzzy matcher. The file list is listed once and refreshed in the
 * background when older than FRESH_MS, so each keystroke only ranks.
 */
import { peekCodeIntel } from '../code/intel/state';
import type { Workspace } from '../workspace/workspace';
import { fuzzyFilter } from './fuzzy';
import { listProjectFiles, MAX_LISTED_FILES } from './projectFiles';

export interface Mention {
  readonly kind: 'file' | 'symbol';
  readonly label: string;
  readonly detail: string;
  readonly path: string;
  readonly startLine?: number;
  readonly endLine?: number;
}

const FRESH_MS = 30_000;

/** The file list of one workspace, kept between keystrokes. */
export class Mentions {
  private files: string[] | undefined;
  private listedAt = 0;
  private listing: Promise<string[]> | undefined;
  private symbolList: { readonly at: number; readonly list: Mention[] } | undefined;

  constructor(private readonly ws: Workspace) {}

  /** The best `limit` files and symbols for `query` (files first when they score alike). */
  async suggest(query: string, limit = 30): Promise<Mention[]> {
    const files = await this.fileList();
    const fileHits: Mention[] = fuzzyFilter(query, files, (f) => f, limit).map((rel) => {
      const slash = rel.lastIndexOf('/');
      return { kind: 'file', label: rel.slice(slash + 1), detail: slash > 0 ? rel.slice(0, slash) : '', path: rel };
    });
    const symbolHits = query.trim() ? fuzzyFilter(query, this.symbols(), (s) => s.label, Math.ceil(limit / 3)) : [];
    // A query that names a symbol exactly ranks it first; otherwise files lead.
    const exact = symbolHits.filter((s) => s.label.toLowerCase() === query.trim().toLowerCase() || s.label.toLowerCase().endsWith(`.${query.trim().toLowerCase()}`));
    return [...exact, ...fileHits, ...symbolHits.filter((s) => !exact.includes(s))].slice(0, limit);
  }

  private async fileList(): Promise<string[]> {
    const stale = Date.now() - this.listedAt > FRESH_MS;
    if (stale && !this.listing) {
      this.listing = listProjectFiles(this.ws).then(
        (files) => {
          this.files = files;
          this.listedAt = Date.now();
          this.listing = undefined;
          return files;
        },
        () => {
          this.listing = undefined;
          return this.files ?? [];
        },
      );
    }
    // A stale list answers at once while the new one is made; only the first keystroke waits.
    return this.files ?? (await (this.listing as Promise<string[]>));
  }

  /** Types (`Greeter`) and methods (`Greeter.greet`) from the code index, once it is built; none before. */
  private symbols(): Mention[] {
    const intel = peekCodeIntel(this.ws);
    if (!intel?.index.declarationsIn) return [];
    if (this.symbolList && Date.now() - this.symbolList.at < FRESH_MS) return this.symbolList.list;
    const out: Mention[] = [];
    for (const [rel, file] of intel.index.allFiles()) {
      for (const type of file.types) {
        if (type.kind === 'module') continue;
        out.push({ kind: 'symbol', label: type.name, detail: `${rel}:${type.line}`, path: rel, startLine: type.line, endLine: type.endLine });
        for (const m of type.methods) {
          out.push({ kind: 'symbol', label: `${type.name}.${m.name}`, detail: `${rel}:${m.line}`, path: rel, startLine: m.line, endLine: m.endLine });
        }
      }
      if (out.length > MAX_LISTED_FILES) break;
    }
    this.symbolList = { at: Date.now(), list: out };
    return out;
  }
}
