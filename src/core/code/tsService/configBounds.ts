/**
 * Bounds on what a tsconfig.json or jsconfig.json may ask of the language service, judged before
 * TypeScript acts on it. TypeScript turns `include`/`exclude` patterns into backtracking regular
 * expressions (several `*` in one name take time that grows with a power of the name's length),
 * and tries every import against every `paths` substitution, keeping each failed lookup: a small
 * hostile config can so hold a core or fill the heap.
 */

export interface PatternBounds {
  /** `paths` keys a config may have. */
  readonly maxPathKeys: number;
  /** Substitutions one `paths` key may list. */
  readonly maxPathSubstitutions: number;
}

/** `include` and `exclude` patterns together, and the length of one. */
const MAX_SPECS = 256;
const MAX_SPEC_CHARS = 1024;
/** `*` in one name of a pattern (a name of 255 characters costs TypeScript ~0.3 ms with two, ~20 ms with three, ~1.3 s with four). */
const MAX_STARS_PER_NAME = 2;
/** `**` names in one pattern (each lets the match try every depth again). */
const MAX_DEEP_WILDCARDS = 4;

/** Why the `include`/`exclude` patterns of a parsed config's JSON are refused; undefined when they are not. */
export function judgeSpecs(config: unknown): string | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  // `files` are names, not patterns: TypeScript makes no expression of them.
  const specs = (['include', 'exclude'] as const).flatMap((key) => {
    const list = (config as Record<string, unknown>)[key];
    return Array.isArray(list) ? (list as unknown[]) : [];
  });
  if (specs.length > MAX_SPECS) return `has ${specs.length} "include"/"exclude" patterns, more than ${MAX_SPECS}`;
  for (const spec of specs) {
    if (typeof spec !== 'string') continue;
    if (spec.length > MAX_SPEC_CHARS) return `has an "include"/"exclude" pattern longer than ${MAX_SPEC_CHARS} characters`;
    const names = spec.split(/[/\\]/);
    const deep = names.filter((n) => n === '**').length;
    if (deep > MAX_DEEP_WILDCARDS) return `has an "include"/"exclude" pattern with ${deep} "**", more than ${MAX_DEEP_WILDCARDS}`;
    const stars = Math.max(0, ...names.filter((n) => n !== '**').map((n) => n.split('*').length - 1));
    if (stars > MAX_STARS_PER_NAME) return `has an "include"/"exclude" pattern with ${stars} "*" in one name, more than ${MAX_STARS_PER_NAME}`;
  }
  return undefined;
}

/** Why a config's `paths` (after `extends`) are refused; undefined when they are not. */
export function judgePaths(paths: Readonly<Record<string, readonly string[]>> | undefined, bounds: PatternBounds): string | undefined {
  if (!paths) return undefined;
  const keys = Object.keys(paths);
  if (keys.length > bounds.maxPathKeys) return `has ${keys.length} "paths" patterns, more than the ${bounds.maxPathKeys} the language service takes`;
  for (const key of keys) {
    const n = paths[key]?.length ?? 0;
    if (n > bounds.maxPathSubstitutions) return `has ${n} substitutions for the "paths" pattern ${JSON.stringify(key.slice(0, 40))}, more than the ${bounds.maxPathSubstitutions} the language service takes`;
  }
  return undefined;
}
