/**
 * `@` completion for the chat: the project's files (projectFiles.ts) and the types and methods the
 * code index knows, ranked by the fuzzy matcher. The file list is listed once and refreshed in the
 * background when older than FRESH_MS (a keystroke meanwhile ranks the list in hand), and the
 * symbol list is made again only when the index changed, so each keystroke only ranks. On a
 * monorepo that is hundreds of thousands of names: they are ranked, and the symbol list is made,
 * a slice at a time with the event loop turning between slices, and a keystroke's ranking stops
 * as soon as a newer keystroke asks (the chat shows only the newest answer).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CodeIndex } from '../code/index/codeIndex';
import type { FileSymbols } from '../code/model';
import { startCodeIndex } from '../code/intel/intel';
import type { Workspace } from '../workspace/workspace';
import { fuzzyFilterYielding } from './fuzzy';
import { listProjectFiles, MAX_LISTED_FILES } from './projectFiles';

export interface Mention {
  readonly kind: 'file' | 'symbol';
  readonly label: string;
  readonly detail: string;
  readonly path: string;
  readonly startLine?: number;
  readonly endLine?: number;
}

/** A file list older than this is listed again (ripgrep, in the background) at the next keystroke. */
const FRESH_MS = 5_000;
/** The symbol list is made this long at a time, the event loop turning between. */
const SLICE_MS = 8;

/** A file's types and methods as mentions. */
function symbolsOf(rel: string, file: FileSymbols): Mention[] {
  const out: Mention[] = [];
  for (const type of file.types) {
    if (type.kind === 'module') continue;
    out.push({ kind: 'symbol', label: type.name, detail: `${rel}:${type.line}`, path: rel, startLine: type.line, endLine: type.endLine });
    for (const m of type.methods) {
      out.push({ kind: 'symbol', label: `${type.name}.${m.name}`, detail: `${rel}:${m.line}`, path: rel, startLine: m.line, endLine: m.endLine });
    }
  }
  return out;
}

/** The file list of one workspace, kept between keystrokes. */
export class Mentions {
  private files: string[] | undefined;
  private listedAt = 0;
  private listing: Promise<string[]> | undefined;
  /** The symbols of the index at `generation` (the index bumps it at every change). */
  private symbolList: { readonly index: CodeIndex; readonly generation: number; readonly list: Mention[] } | undefined;
  private symbolsMaking: Promise<Mention[]> | undefined;
  /** Each index record's mentions: a change makes the list again, but unpacks only the files it changed. */
  private readonly symbolsOfFile = new WeakMap<object, Mention[]>();
  /** Bumped by every `suggest`: a ranking whose number is no longer this one stops. */
  private latest = 0;

  constructor(private readonly ws: Workspace) {}

  /**
   * The best `limit` files and symbols for `query` (files first when they score alike); undefined
   * when a newer `suggest` came before this one was done.
   */
  async suggest(query: string, limit = 30): Promise<Mention[] | undefined> {
    const mine = ++this.latest;
    const stale = (): boolean => mine !== this.latest;
    const files = await this.fileList();
    const ranked = await fuzzyFilterYielding(query, files, (f) => f, limit, stale);
    if (!ranked) return undefined;
    const fileHits: Mention[] = ranked.map((rel) => {
      const slash = rel.lastIndexOf('/');
      return { kind: 'file', label: rel.slice(slash + 1), detail: slash > 0 ? rel.slice(0, slash) : '', path: rel };
    });
    const symbols = query.trim() ? await this.symbols() : [];
    const symbolHits = await fuzzyFilterYielding(query, symbols, (s) => s.label, Math.ceil(limit / 3), stale);
    if (!symbolHits) return undefined;
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

  /**
   * Types (`Greeter`) and methods (`Greeter.greet`) from the code index, once it is built; none
   * before. Made a slice at a time, once for every keystroke that waits on it (a newer keystroke
   * does not start it again), then kept until the index changes.
   */
  private symbols(): Promise<Mention[]> {
    // The first `@` starts the index (in the background): its symbols come with a later keystroke.
    const intel = startCodeIndex(this.ws);
    if (!intel.index.declarationsIn) return Promise.resolve([]);
    const known = this.symbolList;
    if (known && known.index === intel.index && known.generation === intel.index.generation) return Promise.resolve(known.list);
    this.symbolsMaking ??= this.makeSymbols(intel.index).finally(() => (this.symbolsMaking = undefined));
    return this.symbolsMaking;
  }

  private async makeSymbols(index: CodeIndex): Promise<Mention[]> {
    const generation = index.generation;
    const out: Mention[] = [];
    let turned = Date.now();
    for (const [, mentions] of index.eachFile(this.symbolsOfFile, symbolsOf)) {
      // The index unpacks each file the first time, so files cost unevenly: turns by time, not by count.
      if (Date.now() - turned > SLICE_MS) {
        await nextTurn();
        turned = Date.now();
      }
      for (const m of mentions) out.push(m);
      if (out.length > MAX_LISTED_FILES) break;
    }
    this.symbolList = { index, generation, list: out };
    return out;
  }
}
