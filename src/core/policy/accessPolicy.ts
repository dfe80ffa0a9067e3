/**
 * The one access policy: every path a tool touches, given by the agent or found by a search or the
 * code index, is judged here. First where it really leads (`..`, absolute paths, symbolic links,
 * case), then by class:
 *
 *  - outside the project: refused (PERMISSION_DENIED), before a byte is read or written;
 *  - secret (`agentBridge.excludeGlobs`): never read, searched, indexed or quoted in any answer or
 *    error; a change to one needs a person's consent before the file is even opened;
 *  - protected (files that run code: VCS metadata, CI, hooks, editor tasks, see protectedFiles.ts,
 *    plus `agentBridge.protectedGlobs`; and any folder git would take for a repository, see
 *    gitDirectory.ts): readable unless secret too, but a change always asks, whatever the approval
 *    mode;
 *  - normal.
 *
 * A path is judged as given and where it leads, and the stricter class wins: `cfg -> .git/config`
 * is protected, `notes.txt -> .env` is secret. A file both secret and protected (`.yarnrc.yml`) is
 * secret: never read; a change to it asks as a secret's does, and the headless host refuses it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { t } from '../l10n';
import { resolveInProject, toRelative, type ProjectPath } from '../workspace/paths';
import { ToolError } from '../protocol/errors';
import type { LinkedCheck, OpenedFile, Workspace } from '../workspace/workspace';
import { gitDirectoryOf } from './gitDirectory';
import { PROTECTED_GLOBS } from './protectedFiles';
import { SecretFileList } from './secretFiles';
import { ProjectSecretValues, type SecretValues } from './secretValues';
import { DEFAULT_EXCLUDE_GLOBS, EXCLUDE_GLOBS_SETTING } from './secrets';
import { GlobSet, SecretGuard } from '../workspace/globSet';
import { idOf, NOTHING_LED, walkLinkedNames, type LinkedNames } from './linkedNames';

export type AccessKind = 'normal' | 'protected' | 'secret';

/** A file a search reported: its shown path, its name's bytes when not UTF-8, the handle the engine read if it says. */
export interface FoundFile {
  readonly path: string;
  readonly nameBytes?: Buffer;
  readonly opened?: OpenedFile;
}

/** A path inside the project, resolved and classified. */
export interface Access extends ProjectPath {
  readonly kind: AccessKind;
  /** The glob that made the path secret or protected. */
  readonly rule?: string;
  /** The project-relative path (as given, or where it leads) that matched `rule`. */
  readonly matched?: string;
}

const PROTECTED = new GlobSet(PROTECTED_GLOBS);
const DEFAULT_SECRETS = new SecretGuard(DEFAULT_EXCLUDE_GLOBS);

/** How long a list of the secret files' inodes is trusted, and how long making one may take. */
const INODES_FRESH_MS = 30_000;
/** A walk asked for outside the schedule (a name that may be new) starts at most this often. */
const FORCED_WALK_EVERY_MS = 5_000;



/** The file's stat when it is a regular file with more than one name (a hard link); else undefined. */
function multiNamed(abs: string): fs.Stats | undefined {
  try {
    const st = fs.statSync(abs);
    return st.isFile() && st.nlink > 1 ? st : undefined;
  } catch {
    return undefined;
  }
}

export class AccessPolicy {
  private linked: LinkedNames | undefined;
  private forcedAt = 0;
  private scanning: Promise<LinkedNames> | undefined;
  private readonly values: ProjectSecretValues;

  constructor(private readonly ws: Workspace) {
    this.values = new ProjectSecretValues(new SecretFileList(ws.root));
  }

  /** What the project's secret files hold as values now, to cut out of any text a language service wrote (secretValues.ts). */
  secretValues(): Promise<SecretValues> {
    return this.values.current(this.secrets);
  }

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
      const rule = this.protectedRule(rel);
      if (rule !== undefined) return { kind: 'protected', rule, matched: rel };
    }
    return { kind: 'normal' };
  }

  /** The built-in glob, else the user's (`agentBridge.protectedGlobs`), that makes `rel` protected. */
  private protectedRule(rel: string): string | undefined {
    return PROTECTED.match(rel) ?? this.ws.protectedGuard?.()?.match(rel);
  }

  /**
   * The class a write to `target` gets, judged against the disk right before the change is made:
   * stricter than the path's own when another name of the file (a hard link) is protected, or when
   * the file lies in a folder git would take for a repository (gitDirectory.ts).
   */
  async forWrite(target: Access): Promise<Access> {
    if (target.kind !== 'normal') return target;
    if ((await this.linkedKind(target.abs)) === 'protected') {
      return { ...target, kind: 'protected', rule: 'a hard link to a protected file', matched: target.rel };
    }
    const led = await this.ledToKind(target.abs);
    if (led !== 'normal') return { ...target, kind: led, rule: `a symbolic link with a ${led} name leads here`, matched: target.rel };
    const gitDir = await gitDirectoryOf(this.ws.root, target.abs);
    if (gitDir !== undefined) {
      const folder = toRelative(this.ws.root, gitDir) || '.';
      return { ...target, kind: 'protected', rule: `inside ${folder}, a git directory (HEAD beside objects/, refs/ or commondir)`, matched: target.rel };
    }
    return target;
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
   * A regular file with more than one name (a hard link) is as strict as its strictest name: one
   * name may be `.env` or `.git/config` while the agent asks for `notes.txt`. It is 'secret' (not
   * shown) unless every one of its names was found in the project (not in node_modules, whose
   * package managers link files from stores outside it) and none is secret; 'protected' when one
   * is protected. Files with one name, nearly all, cost one stat.
   */
  async linkedKind(abs: string): Promise<AccessKind> {
    const st = multiNamed(abs);
    if (!st) return 'normal';
    const known = await this.linkedNames();
    const kind = this.judgeLinked(known, st);
    // A name made since the last walk (not a secret one): walk again once before refusing.
    const names = known.byId.get(idOf(st));
    if (kind === 'secret' && !names?.secret && Date.now() - known.at > 1000 && Date.now() - this.forcedAt > FORCED_WALK_EVERY_MS) {
      // At most once every few seconds: a file whose other name is outside the project is never cleared, and each read would walk again.
      this.forcedAt = Date.now();
      return this.judgeLinked(await this.linkedNames(true), st);
    }
    return kind;
  }

  async linksToSecret(abs: string): Promise<boolean> {
    return (await this.linkedKind(abs)) === 'secret';
  }

  /**
   * Whether a file a search found must stay out of its answer: a secret name; a file judged by the
   * handle the engine read (`opened`) or else by its name on disk (`nameBytes` when not UTF-8), that
   * is a hard link not cleared by a fresh walk (one is started); or one that cannot be judged at all
   * (gone, no longer a regular file): a result is shown only when the policy could clear it.
   */
  hidesFound(found: FoundFile): boolean {
    if (this.hides(found.path)) return true;
    const st = found.opened ?? this.regularFileAt(found);
    if (!st) return true;
    return !this.mayReadLinked(st);
  }

  private regularFileAt(found: FoundFile): OpenedFile | undefined {
    const abs = found.nameBytes ? Buffer.concat([Buffer.from(this.ws.root + path.sep), found.nameBytes]) : path.join(this.ws.root, found.path);
    try {
      const st = fs.lstatSync(abs, { throwIfNoEntry: false });
      return st?.isFile() ? st : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The check on an open handle (safeRead's LinkedCheck): a file with more than one name is read
   * only when a fresh walk found all its names and none is secret. The name checked before the open
   * may have had one name: a hard link swapped in meanwhile is refused here (a walk is started).
   */
  readonly mayReadLinked: LinkedCheck = (opened) => {
    const known = this.linked;
    // One name now, but the inode of a secret (a link swapped away between the open and the
    // check): refused while that secret's own name still leads to this inode (inodes are reused).
    if (opened.nlink <= 1) {
      const seen = known?.byId.get(idOf(opened));
      if (!seen?.secretAt) return true;
      const now = fs.lstatSync(path.join(this.ws.root, seen.secretAt), { throwIfNoEntry: false });
      return !(now && idOf(now) === idOf(opened));
    }
    if (!known || known.guard !== this.secrets || Date.now() - known.at > INODES_FRESH_MS) {
      void this.linkedNames();
      return false;
    }
    return this.judgeLinked(known, opened) !== 'secret';
  };

  private judgeLinked(known: LinkedNames, st: OpenedFile): AccessKind {
    const names = known.byId.get(idOf(st));
    if (!known.complete || !names || names.names < st.nlink || names.secret) return 'secret';
    return names.protected ? 'protected' : 'normal';
  }

  private linkedNames(fresh = false): Promise<LinkedNames> {
    const guard = this.secrets;
    const known = this.linked;
    if (!fresh && known && known.guard === guard && Date.now() - known.at <= INODES_FRESH_MS) return Promise.resolve(known);
    this.scanning ??= walkLinkedNames(this.ws.root, guard, (rel) => this.protectedRule(rel) !== undefined).then(
      (r) => {
        this.linked = r;
        this.scanning = undefined;
        return r;
      },
      () => {
        this.scanning = undefined;
        return { guard, at: Date.now(), byId: new Map(), complete: false, ledTo: NOTHING_LED };
      },
    );
    return this.scanning;
  }

  /** Walks the project (not node_modules, not through links), noting every file with more than one name. */

  /**
   * The class a file (or a file to be created) has through symbolic links with a secret or protected
   * name that lead to it or to a folder above it: `scripts/pre-commit.sh` is protected when
   * `.git/hooks/pre-commit` leads there. Asked before a write (it may wait for the project walk);
   * a link the walk has not reached (a project over its limits) is not known.
   */
  async ledToKind(abs: string): Promise<AccessKind> {
    const { ledTo } = await this.linkedNames();
    if (ledTo.files.size === 0 && ledTo.folders.length === 0) return 'normal';
    let secret = false;
    let isProtected = false;
    const st = fs.statSync(abs, { throwIfNoEntry: false });
    const byFile = st?.isFile() ? ledTo.files.get(idOf(st)) : undefined;
    if (byFile) ({ secret, protected: isProtected } = byFile);
    for (const f of ledTo.folders) {
      if (!abs.startsWith(f.real + path.sep)) continue;
      secret ||= f.secret;
      isProtected ||= f.protected;
    }
    return secret ? 'secret' : isProtected ? 'protected' : 'normal';
  }


  /** The refusal for reading a secret path: names the file, the glob and the setting (never the content). */
  denial(access: Pick<Access, 'rel' | 'rule' | 'matched'>): ToolError {
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

// Already one object per workspace, living as long as it; the Workspace knows nothing of the policy, so a WeakMap is the plain home.
const policies = new WeakMap<Workspace, AccessPolicy>();

/**
 * The workspace's access policy: the only door to its files for every tool. It also holds all the
 * policy remembers of the project (hard links, secret files, their values), which so lives as long
 * as the workspace does.
 */
export function accessPolicy(ws: Workspace): AccessPolicy {
  let policy = policies.get(ws);
  if (!policy) {
    policy = new AccessPolicy(ws);
    policies.set(ws, policy);
  }
  return policy;
}
