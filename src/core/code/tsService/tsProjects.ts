import * as path from 'node:path';
import type * as TS from 'typescript';
import { BoundedResolver } from './boundedResolver';
import { judgePaths, judgeSpecs, type PatternBounds } from './configBounds';
import { TooManyLookups, WalkTooLarge, type GuardedFiles } from './guardedFiles';

/**
 * The projects of a workspace as the TypeScript language service sees them (in its worker): one
 * per tsconfig.json or jsconfig.json found in the folder (not in node_modules, not through links,
 * not a secret file), each with its own language service made on its first question. A project
 * larger than the bounds gets none: the reason is kept and given as the answer's error, so the
 * parser answers for it and the log says why. Files are versioned by size and modification time,
 * and a project's file list is read again from its config now and then: edits need no watcher.
 */

export interface ProjectBounds extends PatternBounds {
  /** Source files a project may have (its config's files and what they import). */
  readonly maxFiles: number;
  /** Their bytes together. */
  readonly maxBytes: number;
  /** Config files looked for at most. */
  readonly maxConfigs: number;
  /** Disk lookups (exists, read, realpath) one program build may make: module resolution's work. */
  readonly maxLookups: number;
}

/** A config that stopped the worker before (out of memory or time), as it was then. */
export interface RefusedConfig {
  readonly config: string;
  /** Its size and modification time then (GuardedFiles' `version`): another version is tried again. */
  readonly version: string;
  readonly why: string;
}

/** How often a project's file list is read again from its config (new and deleted files). */
const RELIST_MS = 5_000;

/** The project cannot have a language service; `reason` says why (for the log and the answer's error). */
export class ProjectRefused extends Error {}

const slash = (p: string): string => p.split(path.sep).join('/');

class Project {
  private service: TS.LanguageService | undefined;
  private fileNames: string[] = [];
  private rootSet = new Set<string>();
  private options: TS.CompilerOptions = {};
  private listedAt = 0;
  private refused: string | undefined;
  /** The config's version when it was refused: another version is judged again. */
  private refusedVersion: string | undefined;
  /** Why a config it `extends` was refused, while TypeScript reads them (it takes a read's error as a missing file). */
  private refusedBase: string | undefined;
  private readonly texts = new Map<string, { version: string; snapshot: TS.IScriptSnapshot; bytes: number }>();
  private bytes = 0;
  private readonly resolver: BoundedResolver;
  /**
   * The files' versions as this request found them: TypeScript asks for every file's version at
   * each call into the service, several per request; the disk is asked once a request.
   */
  private readonly versions = new Map<string, string | undefined>();

  constructor(
    private readonly ts: typeof TS,
    readonly config: string,
    private readonly files: GuardedFiles,
    private readonly bounds: ProjectBounds,
    private readonly registry: TS.DocumentRegistry,
    private readonly libDir: string,
    private readonly onLoading: (config: string) => void,
    private readonly refusedBefore: RefusedConfig | undefined,
  ) {
    this.resolver = new BoundedResolver(ts, files, path.dirname(config));
  }

  /** Reads the config again when its list may be stale; throws ProjectRefused over the bounds. */
  private list(): void {
    if (Date.now() - this.listedAt < RELIST_MS) return;
    // The first listing is part of loading: the host's watchdog gives it the load's time, and knows which config it was.
    const before = this.refusedBefore;
    if (before && this.files.version(this.config) === before.version) throw new ProjectRefused(`${this.config} ${before.why} before; the parser answers for it until it changes`);
    if (!this.listedAt) this.onLoading(this.config);
    this.listedAt = Date.now();
    const ts = this.ts;
    this.files.startLookups(this.bounds.maxLookups);
    const text = this.configText(this.config);
    const json = ts.parseConfigFileTextToJson(this.config, text);
    if (json.error) throw new ProjectRefused(`${this.config} is not valid JSON`);
    this.files.startWalk();
    const host: TS.ParseConfigHost = {
      useCaseSensitiveFileNames: ts.sys.useCaseSensitiveFileNames,
      fileExists: this.files.fileExists,
      // A config it `extends` is judged before TypeScript reads its patterns too.
      readFile: (f) => (/\.json$/i.test(f) ? this.baseText(f) : this.files.readFile(f)),
      readDirectory: (dir, extensions, excludes, includes, depth) => this.readDirectory(dir, extensions, excludes, includes, depth),
    };
    let parsed: TS.ParsedCommandLine;
    this.refusedBase = undefined;
    try {
      parsed = ts.parseJsonConfigFileContent(json.config, host, path.dirname(this.config), undefined, this.config);
    } catch (e) {
      if (e instanceof WalkTooLarge) throw new ProjectRefused(`${this.config} lists ${e.message}`);
      if (e instanceof TooManyLookups) throw new ProjectRefused(`${this.config} ${e.message}`);
      throw e;
    }
    if (this.refusedBase) throw new ProjectRefused(`${this.config} extends a config that ${this.refusedBase}`);
    const paths = judgePaths(parsed.options.paths, this.bounds);
    if (paths) throw new ProjectRefused(`${this.config} ${paths}`);
    if (parsed.fileNames.length > this.bounds.maxFiles) throw new ProjectRefused(`${this.config} lists ${parsed.fileNames.length} files, more than the ${this.bounds.maxFiles} the language service loads`);
    // Nothing is emitted, no plugin is loaded and no JavaScript is read from node_modules (a
    // jsconfig's default), whatever the config asks: declarations there are enough for the calls.
    this.options = { ...parsed.options, noEmit: true, plugins: [], maxNodeModuleJsDepth: 0 };
    this.fileNames = parsed.fileNames;
    this.rootSet = new Set(parsed.fileNames);
  }

  /** A config's text, refused when its `include`/`exclude` patterns are past the bounds (configBounds.ts). */
  private configText(file: string): string {
    const text = this.files.readFile(file);
    if (text === undefined) throw new ProjectRefused(`${file} cannot be read`);
    const why = judgeSpecs(this.ts.parseConfigFileTextToJson(file, text).config);
    if (why) throw new ProjectRefused(`${file} ${why}`);
    return text;
  }

  /** A config that the project's `extends`, as configText judges it; a missing one reads as missing (TypeScript says so). */
  private baseText(file: string): string | undefined {
    const text = this.files.readFile(file);
    const why = text === undefined ? undefined : judgeSpecs(this.ts.parseConfigFileTextToJson(file, text).config);
    if (why) this.refusedBase ??= why;
    return why ? undefined : text;
  }

  private readDirectory(dir: string, extensions: readonly string[] | undefined, excludes: readonly string[] | undefined, includes: readonly string[] | undefined, depth?: number): string[] {
    // TypeScript's own matcher (include/exclude as tsc reads them), walking only what the guard lets it see.
    const matchFiles = (this.ts as unknown as { matchFiles: MatchFiles }).matchFiles;
    return matchFiles(dir, extensions, excludes, includes, this.ts.sys.useCaseSensitiveFileNames, path.dirname(this.config), depth, this.files.entries, this.files.realpath);
  }

  /** Reads the config when due; the reason the project has no language service, if it has none. */
  refusal(): string | undefined {
    if (this.refused && this.files.version(this.config) === this.refusedVersion) return this.refused;
    if (this.refused) {
      this.refused = undefined;
      this.listedAt = 0;
    }
    try {
      this.list();
    } catch (e) {
      if (!(e instanceof ProjectRefused)) throw e;
      this.refuse(e.message);
    }
    return this.refused;
  }

  private refuse(why: string): ProjectRefused {
    this.refused = why;
    this.refusedVersion = this.files.version(this.config);
    this.dispose();
    return new ProjectRefused(why);
  }

  /** Whether the config lists `file` (a TypeScript path, `/`-separated). */
  has(file: string): boolean {
    return !this.refusal() && this.rootSet.has(file);
  }

  /** The project's language service; throws ProjectRefused when over the bounds. */
  languageService(): TS.LanguageService {
    if (this.refused) throw new ProjectRefused(this.refused);
    this.list();
    if (!this.service) {
      this.onLoading(this.config);
      this.service = this.ts.createLanguageService(this.host(), this.registry, this.ts.LanguageServiceMode.Semantic);
    }
    this.files.startLookups(this.bounds.maxLookups);
    this.resolver.reset(this.options);
    this.versions.clear();
    let program: TS.Program | undefined;
    try {
      program = this.service.getProgram();
    } catch (e) {
      if (!(e instanceof TooManyLookups)) throw e;
      throw this.refuse(`${this.config} ${e.message}, over the bounds of the language service`);
    }
    const sources = program?.getSourceFiles().filter((f) => !f.fileName.startsWith(`${slash(this.libDir)}/`)) ?? [];
    const why =
      sources.length > this.bounds.maxFiles ? `${sources.length} files with what they import` : this.bytes > this.bounds.maxBytes ? `more than ${this.bounds.maxBytes} bytes of source` : undefined;
    if (why) throw this.refuse(`${this.config} has ${why}, over the bounds of the language service`);
    return this.service;
  }

  private snapshot(file: string): TS.IScriptSnapshot | undefined {
    const version = this.version(file);
    if (version === undefined) return undefined;
    const known = this.texts.get(file);
    if (known?.version === version) return known.snapshot;
    // Past the byte bound nothing more is read: the project is refused once its program is made.
    if (this.bytes > this.bounds.maxBytes) return undefined;
    const text = this.files.readFile(file);
    if (text === undefined) return undefined;
    const snapshot = this.ts.ScriptSnapshot.fromString(text);
    this.bytes += text.length - (known?.bytes ?? 0);
    this.texts.set(file, { version, snapshot, bytes: text.length });
    return snapshot;
  }

  private version(file: string): string | undefined {
    if (this.versions.has(file)) return this.versions.get(file);
    const version = this.files.version(file);
    this.versions.set(file, version);
    return version;
  }

  private host(): TS.LanguageServiceHost {
    const ts = this.ts;
    return {
      getCompilationSettings: () => this.options,
      getScriptFileNames: () => this.fileNames,
      getScriptVersion: (f) => this.version(f) ?? '',
      getScriptSnapshot: (f) => this.snapshot(f),
      getCurrentDirectory: () => path.dirname(this.config),
      getDefaultLibFileName: (o) => slash(path.join(this.libDir, ts.getDefaultLibFileName(o))),
      useCaseSensitiveFileNames: () => ts.sys.useCaseSensitiveFileNames,
      fileExists: this.files.fileExists,
      readFile: this.files.readFile,
      readDirectory: (dir, extensions, excludes, includes, depth) => this.readDirectory(dir, extensions, excludes, includes, depth),
      directoryExists: this.files.directoryExists,
      getDirectories: this.files.getDirectories,
      realpath: this.files.realpath,
      resolveModuleNameLiterals: this.resolver.resolve,
    };
  }

  dispose(): void {
    this.service?.dispose();
    this.service = undefined;
    this.texts.clear();
    this.bytes = 0;
  }
}

type MatchFiles = (
  path: string,
  extensions: readonly string[] | undefined,
  excludes: readonly string[] | undefined,
  includes: readonly string[] | undefined,
  useCaseSensitiveFileNames: boolean,
  currentDirectory: string,
  depth: number | undefined,
  getFileSystemEntries: (path: string) => { files: readonly string[]; directories: readonly string[] },
  realpath: (path: string) => string,
) => string[];

export class Projects {
  private projects: Project[] | undefined;
  private readonly registry: TS.DocumentRegistry;

  constructor(
    private readonly ts: typeof TS,
    root: string,
    /** The config files (findConfigs). */
    private readonly configs: readonly string[],
    private readonly files: GuardedFiles,
    private readonly bounds: ProjectBounds,
    private readonly libDir: string,
    /** Told when a project is about to be loaded (the slow part of a first answer). */
    private readonly onLoading: (config: string) => void,
    /** Configs that stopped a worker before. */
    private readonly refusedBefore: readonly RefusedConfig[] = [],
  ) {
    this.registry = ts.createDocumentRegistry(ts.sys.useCaseSensitiveFileNames, root);
  }

  private all(): Project[] {
    this.projects ??= this.configs.map((c) => new Project(this.ts, c, this.files, this.bounds, this.registry, this.libDir, this.onLoading, this.refusedBefore.find((r) => r.config === c)));
    return this.projects;
  }

  /** The language service of the first project listing `file`; undefined when none does; throws ProjectRefused when that project is too large. */
  serviceFor(file: string): TS.LanguageService | undefined {
    const f = slash(file);
    const owner = this.all().find((p) => p.has(f));
    if (owner) return owner.languageService();
    const refusal = this.all().find((p) => p.refusal() && isInside(f, path.dirname(p.config)))?.refusal();
    if (refusal) throw new ProjectRefused(refusal);
    return undefined;
  }

  /** Every project's language service that can be had (for workspace symbols); the refusals' reasons besides. */
  services(): { services: TS.LanguageService[]; refusals: string[] } {
    const services: TS.LanguageService[] = [];
    const refusals: string[] = [];
    for (const p of this.all()) {
      try {
        const refusal = p.refusal();
        if (refusal) refusals.push(refusal);
        else services.push(p.languageService());
      } catch (e) {
        if (!(e instanceof ProjectRefused)) throw e;
        refusals.push(e.message);
      }
    }
    return { services, refusals };
  }
}

const isInside = (file: string, dir: string): boolean => file.startsWith(`${slash(dir)}/`);
