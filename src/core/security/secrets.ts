/**
 * The secrets guard: files the agent must never see (keys, `.env`, the `.git` folder). One list of
 * globs (the `agentBridge.excludeGlobs` setting, or the headless host's defaults) decides three
 * things: read tools refuse such a file, searches skip it, and a change to it always needs a person.
 */
import { Minimatch } from 'minimatch';
import type { ChangeGate, CommittedChange, ProposedChange } from '../edit/gate';
import { resolveInProject, toRelative, type ProjectPath } from '../paths';
import { ToolError } from '../protocol/errors';
import type { Workspace } from '../workspace';

/** The setting that holds the globs (named in every refusal, so the developer knows what to change). */
export const EXCLUDE_GLOBS_SETTING = 'agentBridge.excludeGlobs';

/** Secret-looking files, matched against project-relative paths (case-insensitively). */
export const DEFAULT_EXCLUDE_GLOBS: readonly string[] = [
  '**/.env',
  '**/.env.*',
  '**/*.pem',
  '**/*.key',
  '**/*.p12',
  '**/*.pfx',
  '**/*.jks',
  '**/*.keystore',
  '**/id_rsa*',
  '**/id_dsa*',
  '**/id_ecdsa*',
  '**/id_ed25519*',
  '**/.ssh/**',
  '**/.aws/credentials',
  '**/.netrc',
  '**/.npmrc',
  '**/.pypirc',
  '**/.git-credentials',
  '**/.git/**',
];

const OPTIONS = { dot: true, nocase: true } as const;

/** Matches project-relative paths (forward slashes) against the secret globs. */
/** Paths whose answer `SecretGuard.match` remembers; the memo starts over when full. */
const MATCH_MEMO_SIZE = 10_000;
const NO_MATCH = '';

export class SecretGuard {
  readonly globs: readonly string[];
  /** Compiled once: this runs on every tool call, and compiling a glob costs far more than matching it. */
  private readonly matchers: readonly { glob: string; m: Minimatch }[];
  /** Answers so far, by path: a path is matched against every glob twice, and agents read the same files again and again. */
  private readonly seen = new Map<string, string>();

  constructor(globs: readonly string[] = DEFAULT_EXCLUDE_GLOBS) {
    this.globs = globs.map((g) => g.trim()).filter((g) => g !== '' && !g.startsWith('#'));
    this.matchers = this.globs.map((glob) => ({ glob, m: new Minimatch(glob, OPTIONS) }));
  }

  /** The first glob that matches `rel`, or undefined. A folder matches when its contents would (`.git`). */
  match(rel: string): string | undefined {
    const known = this.seen.get(rel);
    if (known !== undefined) return known === NO_MATCH ? undefined : known;
    const clean = rel.replace(/\\/g, '/').replace(/^\.\/+/, '').replace(/\/+$/, '');
    const glob = clean === '' || clean === '.' ? undefined : this.matchers.find(({ m }) => m.match(clean) || m.match(`${clean}/x`))?.glob;
    if (this.seen.size >= MATCH_MEMO_SIZE) this.seen.clear();
    this.seen.set(rel, glob ?? NO_MATCH);
    return glob;
  }

  isSecret(rel: string): boolean {
    return this.match(rel) !== undefined;
  }

  /** The refusal for reading a secret file: names the file, the glob and the setting. */
  denial(rel: string, glob = this.match(rel) ?? '?'): ToolError {
    return new ToolError(
      'PERMISSION_DENIED',
      `${rel} matches "${glob}" in ${EXCLUDE_GLOBS_SETTING}, so Agent Bridge does not show it to the agent. ` +
        `Remove that pattern from ${EXCLUDE_GLOBS_SETTING} to allow it.`,
    );
  }
}

/** `*.pem` becomes `*.[pP][eE][mM]`: search globs are case-sensitive, secrets are matched without case. */
export function caseless(glob: string): string {
  if (/[[\]{}\\]/.test(glob)) return glob;
  return glob.replace(/[a-z]/gi, (c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`));
}

/** Search exclusions plus the secret globs, without duplicates: what a Workspace's `searchExcludes()` returns. */
export function withSecretExcludes(excludes: readonly string[], guard: SecretGuard | undefined): readonly string[] {
  return guard ? [...new Set([...excludes, ...guard.globs.map(caseless)])] : excludes;
}

/**
 * The predicate an approving gate asks: true when this change must be shown to a person even in
 * auto-approve mode (the file is a secret).
 */
export function needsApproval(change: Pick<ProposedChange, 'path'>, guard: SecretGuard): boolean {
  return guard.isSecret(change.path.rel) || guard.isSecret(change.path.abs.split(/[\\/]/).pop() ?? '');
}

/** For gates with nobody to ask (the headless host): a change to a secret file is refused. */
export function refuseSecretWrites(inner: ChangeGate, guard: () => SecretGuard | undefined): ChangeGate {
  return {
    commit(change: ProposedChange, signal: AbortSignal): Promise<CommittedChange> {
      const g = guard();
      const glob = g?.match(change.path.rel);
      if (g && glob !== undefined) {
        return Promise.reject(
          new ToolError(
            'PERMISSION_DENIED',
            `${change.path.rel} matches "${glob}" in ${EXCLUDE_GLOBS_SETTING}: a change to it needs a person's approval, and this host has nobody to ask. Nothing was written.`,
          ),
        );
      }
      return inner.commit(change, signal);
    },
  };
}

/** The params a tool names its file or folder with. */
const PATH_PARAMS = ['relativePath', 'file_path', 'notebook_path', 'path'] as const;

/**
 * The refusal for a read tool pointed at a secret file or folder, or undefined. Checks the path
 * as given and where it really leads (a symlink named `notes.txt` to `.env` is still `.env`).
 * Paths that do not resolve are left to the tool, which explains them better. Each path resolved
 * is put in `resolved` (by the value given), so the tool reads exactly the file that was checked
 * without resolving it again.
 */
export async function secretReadRefusal(ws: Workspace, guard: SecretGuard, params: unknown, resolved?: Map<string, ProjectPath>): Promise<ToolError | undefined> {
  if (typeof params !== 'object' || params === null) return undefined;
  const record = params as Record<string, unknown>;
  for (const key of PATH_PARAMS) {
    const value = record[key];
    if (typeof value !== 'string' || value.trim() === '') continue;
    let where: ProjectPath;
    try {
      where = await resolveInProject(ws, value);
    } catch {
      continue;
    }
    const real = toRelative(ws.root, where.abs);
    for (const rel of real === where.rel ? [real] : [where.rel, real]) {
      const glob = guard.match(rel);
      if (glob !== undefined) return guard.denial(rel, glob);
    }
    resolved?.set(value, where);
  }
  return undefined;
}
