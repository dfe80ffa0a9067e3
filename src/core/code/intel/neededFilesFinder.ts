/**
 * Where a cold Java call chain finds the files it needs (neededFilesIndex.ts): the project's source
 * files listed once a minute, and the files that can declare a type, a package or a call name.
 */
import { ripgrepPaths, runRipgrepText } from '../../search/ripgrep';
import type { Workspace } from '../../workspace/workspace';
import { LANGUAGES } from '../languages/registry';
import { IndexedPathRule, listSourceFiles } from '../languages/sourceFiles';
import { filesDeclaring } from './quickLookup';
import { codeStateOf, type SourceListing } from './state';

/** The bounds of one cold answer (tests lower them). */
export const NEEDED_FILES_LIMITS = { maxFiles: 1200, budgetMs: 10_000 };
/** The listing is shared by the questions of the first minute. */
const LISTING_TTL_MS = 60_000;

/** Thrown where a cold answer cannot be bounded: the tool waits for the index instead. */
export class GiveUp extends Error {}

export function listing(ws: Workspace): Promise<SourceListing> {
  const state = codeStateOf(ws);
  const cached = state.listing;
  const fresh = cached?.then((l) => (Date.now() - l.at < LISTING_TTL_MS ? l : undefined));
  const make = async (): Promise<SourceListing> => {
    const files = await listSourceFiles(ws.root);
    const byDir = new Map<string, string[]>();
    for (const rel of files) {
      const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
      const list = byDir.get(dir);
      if (list) list.push(rel);
      else byDir.set(dir, [rel]);
    }
    return { files: new Set(files), byDir, at: Date.now() };
  };
  const next = (fresh ?? Promise.resolve(undefined)).then((l) => l ?? make());
  state.listing = next;
  next.catch(() => {
    state.listing = undefined;
  });
  return next;
}

const JAVA_GLOBS = LANGUAGES.filter((l) => l.id === 'java').flatMap((l) => l.extensions.flatMap((e) => ['--iglob', `*${e}`]));
const WORD = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

/** Finds the files that can answer what the small index was asked. */
export class Finder {
  /** Package → type name → files in its folders whose text declares a type of that name (any nesting). */
  private readonly declared = new Map<string, Map<string, string[]>>();
  private readonly callsDone = new Set<string>();
  /** Which found files the index reads, its folders looked into once for the whole question. */
  private readonly indexed: IndexedPathRule;

  /** Set once the listing is in (the first searches run beside it). */
  list: SourceListing | undefined;

  constructor(
    private readonly ws: Workspace,
    private readonly signal: AbortSignal,
  ) {
    this.indexed = new IndexedPathRule(ws.root, signal);
  }

  private get files(): SourceListing {
    if (!this.list) throw new GiveUp();
    return this.list;
  }

  private dirsOf(pkg: string): string[] {
    const tail = pkg.split('.').join('/');
    return [...this.files.byDir.keys()].filter((d) => d === tail || d.endsWith(`/${tail}`));
  }

  /** The names declared in each package's folders (not their subfolders), for packages not seen yet. */
  async scanPackages(pkgs: Iterable<string>): Promise<void> {
    const todo = [...new Set(pkgs)].filter((p) => p && !this.declared.has(p));
    if (!todo.length) return;
    const byDir = new Map<string, string>();
    for (const pkg of todo) {
      this.declared.set(pkg, new Map());
      for (const d of this.dirsOf(pkg)) byDir.set(d, pkg);
    }
    if (!byDir.size) return;
    const out = await this.rg([
      '-o', '-N', '--with-filename', '--max-depth', '1',
      '-e', '^\\s*package\\s+[\\p{L}\\p{N}_$.]+',
      '-e', '\\b(?:class|interface|enum|record)\\s+[\\p{L}_$][\\p{L}\\p{N}_$]*',
      '--', ...[...byDir.keys()].map((d) => d || '.'),
    ]);
    // A file counts for the package its `package` line names (a folder `…/util` is not package `util`).
    const fileOf = new Map<string, { pkg: string; names: string[] }>();
    for (const line of out.split('\n')) {
      const m = /^(.*?):\s*(package|class|interface|enum|record)\s+(\S+)$/u.exec(line);
      if (!m) continue;
      const rel = normal(m[1] as string);
      let f = fileOf.get(rel);
      if (!f) fileOf.set(rel, (f = { pkg: '', names: [] }));
      if (m[2] === 'package') f.pkg = m[3] as string;
      else f.names.push(m[3] as string);
    }
    for (const [rel, f] of fileOf) {
      const names = this.declared.get(f.pkg);
      if (!names || !this.files.files.has(rel) || byDir.get(rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '') !== f.pkg) continue;
      for (const name of f.names) {
        const files = names.get(name);
        if (!files) names.set(name, [rel]);
        else if (!files.includes(rel)) files.push(rel);
      }
    }
  }

  /** Does the package have a folder whose files declare a type? (The index knows a package by its types.) */
  packageExists(pkg: string): boolean {
    return (this.declared.get(pkg)?.size ?? 0) > 0;
  }

  /** Files of `pkg` declaring `name`. */
  declaring(pkg: string, name: string): readonly string[] {
    return this.declared.get(pkg)?.get(name) ?? [];
  }

  /** `a.b.C.D`: every split into a package and a first type name. */
  static splits(fqn: string): Array<{ pkg: string; top: string }> {
    const segs = fqn.split('.');
    const out: Array<{ pkg: string; top: string }> = [];
    for (let k = 1; k < segs.length; k++) out.push({ pkg: segs.slice(0, k).join('.'), top: segs[k] as string });
    return out;
  }

  /** Files whose text has any of the call names as a word; undefined past `maxFiles`. */
  async calling(keys: Iterable<string>, list?: Promise<SourceListing>): Promise<string[] | undefined> {
    const words = [...keys].filter((k) => WORD.test(k) && !this.callsDone.has(k));
    if (!words.length) return [];
    for (const w of words) this.callsDone.add(w);
    const out = await this.rg(['--files-with-matches', '--null', '-w', ...words.flatMap((w) => ['-e', w.replace(/\$/g, '\\$')]), '--', '.']);
    const known = list ? (await list).files : this.list?.files;
    if (!known) throw new GiveUp();
    const files = ripgrepPaths(out).filter((rel) => known.has(rel));
    return files.length > NEEDED_FILES_LIMITS.maxFiles ? undefined : files;
  }

  async declaringAnywhere(simple: string, list?: Promise<SourceListing>): Promise<string[]> {
    const found = await filesDeclaring(this.ws, simple, this.signal, this.indexed);
    // no search, or more files than a cold answer looks at: the index answers
    if (!found) throw new GiveUp();
    const known = list ? (await list).files : this.files.files;
    return found.filter((rel) => known.has(rel));
  }

  private async rg(args: readonly string[]): Promise<string> {
    const rg = this.ws.ripgrepPath();
    if (!rg) throw new GiveUp();
    const out = await runRipgrepText(rg, ['--no-config', '--no-messages', '--no-ignore', ...JAVA_GLOBS, ...args], {
      cwd: this.ws.root,
      // the whole lookup's budget: a cold disk cache makes the first search the slow one
      timeoutMs: NEEDED_FILES_LIMITS.budgetMs,
      maxBytes: 16 * 1024 * 1024,
      signal: this.signal,
    });
    if (out === undefined) throw new GiveUp();
    return out;
  }
}

const normal = (p: string): string => p.replace(/\\/g, '/').replace(/^\.\//, '');
