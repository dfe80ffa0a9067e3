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
import * as fs from 'node:fs';
import * as path from 'node:path';
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

/** How long a list of the secret files' inodes is trusted, and how long making one may take. */
const INODES_FRESH_MS = 30_000;
const INODES_SCAN_MS = 2_000;
const INODES_SCAN_ENTRIES = 200_000;

/** The inodes of the project's secret files (dev:ino), to see a hard link to one under another name. */
interface SecretInodes {
  readonly guard: SecretGuard;
  readonly at: number;
  readonly ids: ReadonlySet<string>;
  /** False when the scan ran out of time or entries: a hard-linked file cannot be cleared then. */
  readonly complete: boolean;
}

const idOf = (st: fs.Stats): string => `${st.dev}:${st.ino}`;

export class AccessPolicy {
  private inodes: SecretInodes | undefined;
  private scanning: Promise<SecretInodes> | undefined;

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

  /**
   * A regular file with more than one name may be a hard link to a secret file (`notes.txt` and
   * `.env` one inode): such a file is secret unless the project's secret files are known not to
   * share its inode. Files with one link (nearly all) cost one stat.
   */
  async linksToSecret(abs: string): Promise<boolean> {
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch {
      return false;
    }
    if (!st.isFile() || st.nlink <= 1) return false;
    const inodes = await this.secretInodes();
    return !inodes.complete || inodes.ids.has(idOf(st));
  }

  /** Synchronous form for search results: a hard-linked file is hidden unless a fresh scan clears it (one is started). */
  hidesLinked(rel: string): boolean {
    let st: fs.Stats;
    try {
      st = fs.statSync(path.join(this.ws.root, rel));
    } catch {
      return false;
    }
    if (!st.isFile() || st.nlink <= 1) return false;
    const inodes = this.inodes;
    if (!inodes || inodes.guard !== this.secrets || Date.now() - inodes.at > INODES_FRESH_MS) {
      void this.secretInodes();
      return true;
    }
    return !inodes.complete || inodes.ids.has(idOf(st));
  }

  private secretInodes(): Promise<SecretInodes> {
    const guard = this.secrets;
    const known = this.inodes;
    if (known && known.guard === guard && Date.now() - known.at <= INODES_FRESH_MS) return Promise.resolve(known);
    this.scanning ??= this.scanSecretInodes(guard).then(
      (r) => {
        this.inodes = r;
        this.scanning = undefined;
        return r;
      },
      () => {
        this.scanning = undefined;
        return { guard, at: Date.now(), ids: new Set<string>(), complete: false };
      },
    );
    return this.scanning;
  }

  /** Walks the project (not node_modules, not through links) for files the secret globs match. */
  private async scanSecretInodes(guard: SecretGuard): Promise<SecretInodes> {
    const root = this.ws.root;
    const ids = new Set<string>();
    const deadline = Date.now() + INODES_SCAN_MS;
    let entries = 0;
    const pending: string[] = [''];
    while (pending.length) {
      if (Date.now() > deadline || entries > INODES_SCAN_ENTRIES) return { guard, at: Date.now(), ids, complete: false };
      const dir = pending.pop() as string;
      let list: fs.Dirent[];
      try {
        list = await fs.promises.readdir(path.join(root, dir), { withFileTypes: true });
      } catch {
        continue;
      }
      entries += list.length;
      for (const e of list) {
        const rel = dir ? `${dir}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (e.name !== 'node_modules') pending.push(rel);
        } else if (e.isFile() && guard.isSecret(rel)) {
          try {
            ids.add(idOf(fs.statSync(path.join(root, rel))));
          } catch {
            // gone meanwhile
          }
        }
      }
    }
    return { guard, at: Date.now(), ids, complete: true };
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
