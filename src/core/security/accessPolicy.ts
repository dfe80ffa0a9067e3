/**
 * The one access policy: every path a tool touches, given by the agent or found by a search or the
 * code index, is judged here. First where it really leads (`..`, absolute paths, symbolic links,
 * case), then by class:
 *
 *  - outside the project: refused (PERMISSION_DENIED), before a byte is read or written;
 *  - secret (`agentBridge.excludeGlobs`): never read, searched, indexed or quoted in any answer or
 *    error; a change to one needs a person's consent before the file is even opened;
 *  - protected (`.git`, `.vscode`, CI and hook configuration, see protectedFiles.ts): readable
 *    unless secret too, but a change always asks, whatever the approval mode;
 *  - normal.
 *
 * A path is judged as given and where it leads, and the stricter class wins: `cfg -> .git/config`
 * is protected, `notes.txt -> .env` is secret.
 */
import { translator } from '../l10n';
import { resolveInProject, toRelative, type ProjectPath } from '../paths';
import { ToolError } from '../protocol/errors';
import type { Workspace } from '../workspace';
import { PROTECTED_GLOBS } from './protectedFiles';
import { EXCLUDE_GLOBS_SETTING, GlobSet, SecretGuard } from './secrets';

export type AccessKind = 'normal' | 'protected' | 'secret';

/** A path inside the project, resolved and classified. */
export interface Access extends ProjectPath {
  readonly kind: AccessKind;
  /** The glob that made the path secret or protected. */
  readonly rule?: string;
  /** The project-relative path (as given, or where it leads) that matched `rule`. */
  readonly matched?: string;
}

const PROTECTED = new GlobSet(PROTECTED_GLOBS);
const DEFAULT_SECRETS = new SecretGuard();

export class AccessPolicy {
  constructor(private readonly ws: Workspace) {}

  /** The secret globs in force now (a setting may change between calls); the defaults when the workspace names none. */
  get secrets(): SecretGuard {
    return this.ws.secretGuard?.() ?? DEFAULT_SECRETS;
  }

  /** The class of a path known by one or more project-relative names (as given, and where it leads). */
  classify(...rels: string[]): Pick<Access, 'kind' | 'rule' | 'matched'> {
    const secrets = this.secrets;
    for (const rel of rels) {
      const rule = secrets.match(rel);
      if (rule !== undefined) return { kind: 'secret', rule, matched: rel };
    }
    for (const rel of rels) {
      const rule = PROTECTED.match(rel);
      if (rule !== undefined) return { kind: 'protected', rule, matched: rel };
    }
    return { kind: 'normal' };
  }

  /** Resolves and classifies a path the agent sent; outside the project is PERMISSION_DENIED. */
  async resolve(requested: string | undefined): Promise<Access> {
    const where = await resolveInProject(this.ws, requested);
    const real = toRelative(this.ws.root, where.abs);
    return { ...where, ...(real === where.rel ? this.classify(real) : this.classify(where.rel, real)) };
  }

  /** Resolves a path for reading: a secret one is refused, naming the glob and the setting. */
  async forRead(requested: string | undefined): Promise<Access> {
    const access = await this.resolve(requested);
    if (access.kind === 'secret') throw this.denial(access);
    return access;
  }

  /**
   * Whether a project-relative path that a search or a listing found must stay out of every answer.
   * Such paths are found by walking the tree, not through the agent's input: only the secret globs
   * apply (a walker that follows symbolic links checks each one with `resolve`).
   */
  hides(rel: string): boolean {
    return this.secrets.isSecret(rel);
  }

  /** The refusal for reading a secret path: names the file, the glob and the setting (never the content). */
  denial(access: Pick<Access, 'rel' | 'rule' | 'matched'>): ToolError {
    const t = translator(this.ws.locale);
    const shown = access.matched && access.matched !== access.rel ? `${access.rel} (→ ${access.matched})` : access.rel;
    return new ToolError(
      'PERMISSION_DENIED',
      t(
        '{0} matches "{1}" in {2}, so Agent Bridge does not show it to the agent. Remove that pattern from {2} to allow it.',
        shown,
        access.rule ?? '?',
        EXCLUDE_GLOBS_SETTING,
      ),
    );
  }
}

const policies = new WeakMap<Workspace, AccessPolicy>();

/** The workspace's access policy: the only door to its files for every tool. */
export function accessPolicy(ws: Workspace): AccessPolicy {
  let policy = policies.get(ws);
  if (!policy) {
    policy = new AccessPolicy(ws);
    policies.set(ws, policy);
  }
  return policy;
}
