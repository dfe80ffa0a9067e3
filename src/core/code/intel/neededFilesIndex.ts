import { ToolError } from '../../protocol/errors';
import type { Workspace } from '../../workspace/workspace';
import { CallGraph } from '../index/callGraph';
import { CodeIndex, type CallRef, type PackageTypes, type TypeEntry, type TypeRef } from '../index/codeIndex';
import { runSliced, STALE, type Sliced } from '../index/slices';
import type { ExtractMode } from '../languages/registry';
import { unpackJson, type PackedJson } from '../packedSymbols';
import { NotParsedHere, packedAlone } from './coldParse';
import { codeStateOf } from './state';
import { Finder, GiveUp, listing, NEEDED_FILES_LIMITS } from './neededFilesFinder';

export { NEEDED_FILES_LIMITS };

/**
 * Java call chains before the workspace index is built (on a large project the first build takes
 * minutes, and "try again later" is no answer). An index over only the files the
 * question needs is grown until asking it again needs no new file:
 *
 *  1. the files that declare the class (ripgrep), parsed;
 *  2. the question is run on that small index, which notes every name it was asked: fully
 *     qualified types, packages (and which names in them), call names (for callers);
 *  3. the files that can answer those names are found — a type `a.b.C[.D]` in the files of the
 *     package folders `…/a/b/` that declare `C` (Java keeps a package in folders named after it),
 *     callers of `m` in the files whose text has the word `m` (ripgrep) — and parsed;
 *  4. again from 2, until a round adds no file. Every name asked was then answered from every
 *     file that could declare it, so the answer is the one the full index gives (tests compare).
 *
 * Anything this cannot bound gives up, and the tool waits for the whole index: a language
 * other than Java (its resolver asks for every file), a name asked of the whole project, more
 * than `maxFiles` files to parse, or the time budget spent.
 */

const MAX_ROUNDS = 16;

interface Asked {
  readonly fqns: Set<string>;
  /** Package → the names asked of it (`has`/`get`). */
  readonly pkgs: Map<string, Set<string>>;
  readonly names: Set<string>;
  readonly calls: Set<string>;
  all: boolean;
}

const noneAsked = (): Asked => ({ fqns: new Set(), pkgs: new Map(), names: new Set(), calls: new Set(), all: false });

/** A CodeIndex over the files added to it, noting every lookup made of it. */
class NeededFilesIndex extends CodeIndex {
  asked = noneAsked();
  /** Names whose declaring files were added: an empty answer for one of them is the full index's answer too. */
  readonly namesDone = new Set<string>();
  /** Packages that exist by their folders (see `Finder.packageExists`). */
  readonly packagesKnown = new Map<string, boolean>();

  constructor(
    ws: Workspace,
    private readonly signal: AbortSignal,
  ) {
    super(ws, { workers: 0 });
  }

  /**
   * Parsed off the host's thread unless small (coldParse.ts), packed as the full index stores it. A
   * file that cannot be parsed within those bounds, or a cancel, gives the question up.
   */
  protected override async store(rel: string, text: string, mtimeMs: number, size: number, _mode: ExtractMode = 'full', stillWanted?: () => boolean): Promise<void> {
    let packed: PackedJson | undefined;
    try {
      packed = await packedAlone(rel, text, 'full', this.signal);
    } catch (e) {
      if (e instanceof NotParsedHere || e instanceof ToolError) throw new GiveUp();
      return; // the extraction failed: the full index leaves the file out too
    }
    if (packed === undefined || (stillWanted && !stillWanted())) return;
    this.put(rel, mtimeMs, size, unpackJson(packed));
  }

  override typesByFqn(fqn: string): readonly TypeEntry[] {
    this.asked.fqns.add(fqn);
    return super.typesByFqn(fqn);
  }

  override hasType(fqn: string): boolean {
    this.asked.fqns.add(fqn);
    return super.hasType(fqn);
  }

  override packageTypes(pkg: string): PackageTypes | undefined {
    let names = this.asked.pkgs.get(pkg);
    if (!names) this.asked.pkgs.set(pkg, (names = new Set()));
    const map = super.packageTypes(pkg);
    // Whether the package exists is told by its folders; its names are noted as they are asked.
    if (!map && !this.packagesKnown.get(pkg)) return undefined;
    const asked = names;
    return {
      has: (name: string) => (asked.add(name), map?.has(name) ?? false),
      get: (name: string) => (asked.add(name), map?.get(name)),
      values: wholeProject,
    };
  }

  override findTypes(name: string): TypeEntry[] {
    this.asked.names.add(name);
    const found = super.findTypes(name);
    // None declared under that name: the full index would look for it in other letter cases, everywhere.
    if (!found.length && this.namesDone.has(name)) this.asked.all = true;
    return found;
  }

  override *callSitesNamedSliced(key: string): Sliced<readonly CallRef[]> {
    this.asked.calls.add(key);
    return yield* super.callSitesNamedSliced(key);
  }

  override typeHeads(): Iterable<TypeRef> {
    this.asked.all = true;
    return super.typeHeads();
  }

  override typesDeclaring(name: string, maxFiles?: number): { readonly types: TypeEntry[] } | { readonly files: number } {
    this.asked.all = true;
    return super.typesDeclaring(name, maxFiles);
  }

  override *eachFile<T>(cache: WeakMap<object, T>, make: (rel: string, file: import('../model').FileSymbols) => T): Iterable<[string, T]> {
    this.asked.all = true;
    yield* super.eachFile(cache, make);
  }

  override *allFiles(): Iterable<[string, import('../model').FileSymbols]> {
    this.asked.all = true;
    yield* super.allFiles();
  }

  override *paths(): Iterable<string> {
    this.asked.all = true;
    yield* super.paths();
  }

  has(rel: string): boolean {
    return this.files.has(rel);
  }

  /** Parses the files, then keeps the records in path order: the order the full index lists them in. */
  async add(rels: readonly string[]): Promise<void> {
    for (const rel of rels) {
      if (this.signal.aborted) throw new GiveUp();
      await this.update(rel);
    }
    const sorted = [...this.files].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.files.clear();
    for (const [rel, rec] of sorted) this.files.set(rel, rec);
  }
}

/** A package's iteration means every type in it: not bounded here (the Java resolver only asks `has`). */
function wholeProject(): never {
  throw new GiveUp();
}


/**
 * call_chain's answer before the index has every call site: `question` asked of an index of the
 * files it needs alone, ready to be run; undefined when that index cannot be had within the
 * bounds (the caller then asks the workspace's index).
 */
export async function answerFromNeededFiles<T>(ws: Workspace, q: CallQuestion, question: (graph: CallGraph) => Sliced<T>, signal: AbortSignal): Promise<(() => Promise<T>) | undefined> {
  const needed = await codeStateOf(ws).foreground.run(() => buildNeededFilesIndex(ws, q, (graph) => lookupsOf(question(graph), signal), signal));
  return needed && (() => runToEnd(question(needed.graph), signal));
}

/** The question run in slices (the needed-files index is the question's own: nothing else changes it meanwhile). */
async function runToEnd<T>(work: Sliced<T>, signal: AbortSignal): Promise<T> {
  const outcome = await runSliced(work, { signal });
  // runSliced gives STALE only when asked to check for changes, which this run is not
  if (outcome === STALE) throw new Error('a cold call chain was stopped as stale');
  return outcome;
}

/** Every lookup the answer makes, without the answer (the needed-files index notes them), in slices. */
async function lookupsOf(work: Sliced<unknown>, signal: AbortSignal): Promise<void> {
  try {
    await runToEnd(work, signal);
  } catch (e) {
    // the lookups made before a not-found or ambiguous answer are what that answer needs
    if (!(e instanceof ToolError)) throw e;
  }
}

export interface CallQuestion {
  readonly className: string;
  readonly methodName: string;
  readonly callers: boolean;
}
type NeededFiles = { index: CodeIndex; graph: CallGraph };

/**
 * A small index and call graph that answer `question` as the full index would, or undefined when
 * that cannot be had within the bounds (the caller then waits for the full index).
 */
async function buildNeededFilesIndex(ws: Workspace, q: CallQuestion, question: (graph: CallGraph) => Promise<void>, signal: AbortSignal): Promise<NeededFiles | undefined> {
  const className = q.className;
  if (!ws.ripgrepPath() || !className) return undefined;
  const started = Date.now();
  try {
    const finder = new Finder(ws, signal);
    // The listing, the files declaring the class and (for callers) the files naming the method, side by side.
    const listed = listing(ws);
    const simple = className.replace(/<.*$/s, '').split(/[.$/\\]/).pop() ?? '';
    const [list, declaring, calling] = await Promise.all([listed, finder.declaringAnywhere(simple, listed), q.callers ? finder.calling([q.methodName], listed) : []]);
    finder.list = list;
    if (!calling) return undefined;
    const index = new NeededFilesIndex(ws, signal);
    const graph = new CallGraph(index);
    let parsed = 0;
    const add = async (files: Iterable<string>): Promise<number> => {
      const fresh = [...new Set(files)].filter((f) => !index.has(f));
      parsed += fresh.length;
      if (parsed > NEEDED_FILES_LIMITS.maxFiles) throw new GiveUp();
      if (fresh.some((f) => !f.endsWith('.java'))) throw new GiveUp();
      await index.add(fresh);
      return fresh.length;
    };
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (signal.aborted || Date.now() - started > NEEDED_FILES_LIMITS.budgetMs) return undefined;
      index.asked = noneAsked();
      if (round > 0) await question(graph);
      else {
        index.asked.names.add(className);
        index.namesDone.add(className);
        for (const s of Finder.splits(className)) index.asked.pkgs.set(s.pkg, new Set());
      }
      const a = index.asked;
      if (a.all) return undefined;
      const want: string[] = round === 0 ? [...declaring, ...calling] : [];
      for (const name of a.names) {
        if (index.namesDone.has(name)) continue;
        index.namesDone.add(name);
        const simple = name.replace(/<.*$/s, '').split(/[.$/\\]/).pop() ?? '';
        want.push(...(await finder.declaringAnywhere(simple)));
        for (const s of Finder.splits(name)) a.pkgs.set(s.pkg, a.pkgs.get(s.pkg) ?? new Set());
      }
      const splits = [...a.fqns].flatMap(Finder.splits);
      await finder.scanPackages([...a.pkgs.keys(), ...splits.map((s) => s.pkg)]);
      let changed = false;
      for (const pkg of a.pkgs.keys()) {
        const exists = finder.packageExists(pkg);
        if (index.packagesKnown.get(pkg) !== exists) changed = true;
        index.packagesKnown.set(pkg, exists);
      }
      for (const s of splits) want.push(...finder.declaring(s.pkg, s.top));
      for (const [pkg, names] of a.pkgs) for (const n of names) want.push(...finder.declaring(pkg, n));
      const callers = await finder.calling(a.calls);
      if (!callers) return undefined;
      want.push(...callers);
      // Done: nothing new to parse and no package newly known (its names are asked only once it is).
      if ((await add(want)) === 0 && !changed && round > 0) return { index, graph };
    }
    return undefined;
  } catch (e) {
    if (e instanceof GiveUp) return undefined;
    throw e;
  }
}
