import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ToolError } from '../../protocol/errors';
import { LANGUAGE_EXTENSIONS } from '../languageTable';

/**
 * Which files the code index reads: the listing the index build and the cold lookups start from
 * (`listSourceFiles`), and the same rule decided from a path alone (`IndexedPathRule`).
 */

/** Folders never indexed (hidden folders are skipped too). */
const ALWAYS_SKIPPED: ReadonlySet<string> = new Set(['node_modules', '__pycache__', 'bazel-bin', 'bazel-out', 'bazel-testlogs']);
/**
 * Build output folders, skipped only beside a build file or at the root: `com/acme/build/` deep
 * in a source tree is a package, `module/build/` next to `build.gradle` is output.
 */
const OUTPUT_DIRS: ReadonlySet<string> = new Set(['build', 'out', 'target', 'dist', 'bin', 'obj']);
const BUILD_FILES: ReadonlySet<string> = new Set([
  'pom.xml', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts', 'build.xml', 'package.json',
  'BUILD', 'BUILD.bazel', 'Makefile', 'go.mod', 'pyproject.toml', 'setup.py', 'Cargo.toml',
]);

const isBuildFile = (name: string): boolean => BUILD_FILES.has(name) || name.endsWith('.iml') || name.endsWith('.csproj');

const EXTENSIONS: ReadonlySet<string> = new Set(Object.values(LANGUAGE_EXTENSIONS).flat());
/** A file name in a language the index reads (what `languageForPath` finds a language for). */
const isSourceName = (name: string): boolean => EXTENSIONS.has(path.extname(name).toLowerCase());

/** Entries read from a folder at a time while looking for a build file: one round trip per batch. */
const BUILD_FILE_BATCH = 1024;

/**
 * Whether `listSourceFiles` would list a project-relative path (forward slashes), decided from its
 * folders alone: for the files a search turns up, without walking the project. An output folder's
 * parent is looked into for a build file off the thread, once for as long as this object lives (one
 * question): a search can turn up thousands of files under one `build/` beside a huge folder.
 */
export class IndexedPathRule {
  /** Folder (project-relative) → whether it holds a build file, or is unreadable (the walk lists nothing below it). */
  private readonly moduleRoots = new Map<string, Promise<boolean>>();

  constructor(
    private readonly root: string,
    private readonly signal?: AbortSignal,
  ) {}

  async includes(rel: string): Promise<boolean> {
    const parts = rel.split('/');
    if (!isSourceName(rel) || parts.some((p) => p === '' || p === '..')) return false;
    const folders = parts.slice(0, -1);
    if (folders.some((name) => name.startsWith('.') || ALWAYS_SKIPPED.has(name))) return false;
    for (let i = 0; i < folders.length; i++) {
      if (!OUTPUT_DIRS.has(folders[i] as string)) continue;
      if (i === 0 || (await this.isModuleRoot(folders.slice(0, i).join('/')))) return false;
    }
    return true;
  }

  private isModuleRoot(dir: string): Promise<boolean> {
    let known = this.moduleRoots.get(dir);
    if (!known) {
      known = holdsBuildFile(path.join(this.root, dir), this.signal);
      this.moduleRoots.set(dir, known);
    }
    return known;
  }
}

/** Whether the folder holds a build file; true when it cannot be read. Read in batches, stopped at the first build file. */
async function holdsBuildFile(abs: string, signal: AbortSignal | undefined): Promise<boolean> {
  let dir: import('node:fs').Dir;
  try {
    dir = await fs.opendir(abs, { bufferSize: BUILD_FILE_BATCH });
  } catch {
    return true;
  }
  try {
    // leaving the loop early closes the folder
    for await (const entry of dir) {
      if (isBuildFile(entry.name)) return true;
      if (signal?.aborted) throw new ToolError('CANCELLED', 'Cancelled while looking for the files that declare the class.');
    }
  } catch (e) {
    if (e instanceof ToolError) throw e;
    return true;
  }
  return false;
}

/** Folders read at once by `listSourceFiles`: one at a time, 60,000 files took seconds of thread-pool round trips. */
const READDIR_CONCURRENCY = 16;

/** A walk's result: every source file, and those among them that are symbolic links (to files). */
interface SourceTree {
  readonly files: readonly string[];
  readonly links: readonly string[];
}

/** Listings under way, by root: callers at the same moment (the build starting, a cold answer) share one walk. */
const walks = new Map<string, Promise<SourceTree>>();

/**
 * Project-relative paths (forward slashes, sorted) of every source file in a supported language
 * under `root`. Symbolic links to folders are not followed (no cycles, nothing outside the root).
 * A call while a walk of the same root is under way gets that walk's list (each caller its own
 * copy); a call with a signal walks alone, so one caller's cancelling stops no other.
 */
export async function listSourceFiles(root: string, signal?: AbortSignal): Promise<string[]> {
  return [...(await listSourceTree(root, signal)).files];
}

/** `listSourceFiles`, with the files that are symbolic links apart (ripgrep does not follow them). */
export function listSourceTree(root: string, signal?: AbortSignal): Promise<{ files: string[]; links: string[] }> {
  const copy = (t: SourceTree) => ({ files: [...t.files], links: [...t.links] });
  if (signal) return walk(root, signal).then(copy);
  let shared = walks.get(root);
  if (!shared) {
    const started = walk(root);
    walks.set(root, (shared = started));
    const forget = (): void => void (walks.get(root) === started && walks.delete(root));
    started.then(forget, forget);
  }
  return shared.then(copy);
}

interface Folder {
  readonly abs: string;
  /** Project-relative with forward slashes, '' for the root. */
  readonly rel: string;
  readonly isRoot: boolean;
}

const join = (dir: string, name: string): string => (dir.endsWith(path.sep) ? `${dir}${name}` : `${dir}${path.sep}${name}`);

/**
 * The walk. Paths are joined as strings, relative and absolute side by side: going through
 * path.join and path.relative for each of 60,000 files was half of the walk's time.
 */
async function walk(root: string, signal?: AbortSignal): Promise<SourceTree> {
  const out: string[] = [];
  const links: string[] = [];
  const pending: Folder[] = [{ abs: root, rel: '', isRoot: true }];
  const visit = (dir: Folder, entries: import('node:fs').Dirent[]): void => {
    // the root and a folder holding a build file: their output folders are skipped
    const moduleRoot = dir.isRoot || entries.some((e) => isBuildFile(e.name));
    for (const e of entries) {
      const rel = dir.rel ? `${dir.rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        const skip = e.name.startsWith('.') || ALWAYS_SKIPPED.has(e.name) || (moduleRoot && OUTPUT_DIRS.has(e.name));
        if (!skip) pending.push({ abs: join(dir.abs, e.name), rel, isRoot: false });
      } else if ((e.isFile() || e.isSymbolicLink()) && isSourceName(e.name)) {
        out.push(rel);
        if (e.isSymbolicLink()) links.push(rel);
      }
    }
  };
  await new Promise<void>((resolve, reject) => {
    let active = 0;
    let done = false;
    const pump = (): void => {
      if (done) return;
      if (signal?.aborted) {
        done = true;
        reject(new Error('cancelled'));
        return;
      }
      while (active < READDIR_CONCURRENCY && pending.length) {
        const dir = pending.pop() as Folder;
        active++;
        fs.readdir(dir.abs, { withFileTypes: true })
          .then((entries) => visit(dir, entries), () => undefined) // unreadable: skipped
          .finally(() => {
            active--;
            pump();
          });
      }
      if (active === 0 && !pending.length) {
        done = true;
        resolve();
      }
    };
    pump();
  });
  return { files: out.sort(), links };
}
