import type * as TS from 'typescript';
import type { GuardedFiles } from './guardedFiles';

/**
 * Module resolution for a project's language service, counted. TypeScript tries every import
 * against every `paths` substitution and extension and keeps each place it looked in vain, often
 * without asking the disk (a folder known to be missing): those places are counted into the
 * lookup budget of GuardedFiles, so a resolution that explodes is refused (TooManyLookups) before
 * it fills the heap. The cache lives for one request: a file created since is found.
 */
export class BoundedResolver {
  private cache: TS.ModuleResolutionCache | undefined;
  private counted = new WeakSet<object>();

  constructor(
    private readonly ts: typeof TS,
    private readonly files: GuardedFiles,
    private readonly dir: string,
  ) {}

  /** Forgets what was resolved (before each request's program build). */
  reset(options: TS.CompilerOptions): void {
    const caseSensitive = this.ts.sys.useCaseSensitiveFileNames;
    this.cache = this.ts.createModuleResolutionCache(this.dir, (s) => (caseSensitive ? s : s.toLowerCase()), options);
    this.counted = new WeakSet();
  }

  /** LanguageServiceHost.resolveModuleNameLiterals, as TypeScript's own, with the count. */
  resolve = (literals: readonly TS.StringLiteralLike[], containingFile: string, redirected: TS.ResolvedProjectReference | undefined, options: TS.CompilerOptions, containing: TS.SourceFile): TS.ResolvedModuleWithFailedLookupLocations[] =>
    literals.map((literal) => {
      const mode = this.ts.getModeForUsageLocation(containing, literal, options);
      const r = this.ts.resolveModuleName(literal.text, containingFile, options, this.files, this.cache, redirected, mode);
      // A result from the cache is the same object: counted once.
      if (!this.counted.has(r)) {
        this.counted.add(r);
        // Not in TypeScript's published types, but on every result (its watchers use it).
        this.files.looked(1 + ((r as { failedLookupLocations?: readonly string[] }).failedLookupLocations?.length ?? 0));
      }
      return r;
    });
}
