import * as path from 'node:path';
import { t } from '../l10n';
import { ToolError } from '../protocol/errors';
import { LinkLoopError } from './realpath';
import type { Workspace } from './workspace';

export interface ProjectPath {
  /** Absolute, symlink-resolved path: what to read and write. */
  readonly abs: string;
  /** Project-relative path with forward slashes: what to show the agent. */
  readonly rel: string;
}

/** Forward-slash segments, none empty, `.` or `..`, no backslash or NUL, not starting with `/`. */
const PLAIN_RELATIVE = /^(?!\.\.?(?:\/|$))[^/\\\0]+(?:\/(?!\.\.?(?:\/|$))[^/\\\0]+)*$/;

function isInside(root: string, candidate: string): boolean {
  // Both are normalized absolute paths here: a prefix test says the same as path.relative, cheaper.
  if (candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep)) return true;
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Project-relative display form of an absolute path inside the root. */
export function toRelative(root: string, abs: string): string {
  const rel = path.relative(root, abs);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

/**
 * Resolves a path the agent sent against the project root. Relative paths, `..` segments, absolute
 * paths and symlinks are all followed to where they really lead; anything outside the root is
 * refused with PERMISSION_DENIED before a single byte is read or written (docs/protocol.md §6.1).
 */
/** Longer or deeper paths are refused before anything is resolved (PATH_MAX on Linux is 4,096 bytes). */
export const MAX_PATH_CHARS = 4096;
const MAX_PATH_DEPTH = 256;

export async function resolveInProject(ws: Workspace, requested: string | undefined): Promise<ProjectPath> {
  const input = (requested ?? '').trim();
  if (input.includes('\0')) {
    throw new ToolError('VALIDATION_FAILED', 'relativePath: must not contain a NUL character');
  }
  // Resolving walks a path a folder at a time: an unbounded one held the host for seconds.
  if (input.length > MAX_PATH_CHARS || input.split(/[\\/]/).length > MAX_PATH_DEPTH) {
    throw new ToolError('VALIDATION_FAILED', `relativePath: at most ${MAX_PATH_CHARS} characters and ${MAX_PATH_DEPTH} folders deep`);
  }
  // The usual request, `a/b/C.java`, needs no path.resolve: no `.`/`..` segment, no backslash, not absolute.
  const plain = path.sep === '/' && PLAIN_RELATIVE.test(input);
  const lexical = plain ? `${ws.root}/${input}` : path.resolve(ws.root, input === '' ? '.' : input);
  if (!isInside(ws.root, lexical)) {
    throw new ToolError('PERMISSION_DENIED', t('Path is outside the project: {0}', input));
  }
  const outside = (): ToolError => new ToolError('PERMISSION_DENIED', t('Path leads outside the project through a symbolic link: {0}', input));
  let real: string;
  try {
    real = await ws.realpath(lexical);
  } catch (e) {
    // A loop that passes outside answers as any link out does: else it tells what lies out there.
    if (e instanceof LinkLoopError && e.visited.some((p) => !isInside(ws.root, p))) throw outside();
    // A loop inside the project: a clear refusal naming the path as sent, not a crash quoting absolute paths.
    if (e instanceof LinkLoopError) throw new ToolError('BAD_REQUEST', t('{0} leads into a loop of symbolic links.', input));
    throw e;
  }
  if (!isInside(ws.root, real)) throw outside();
  return { abs: real, rel: plain ? input : toRelative(ws.root, lexical) };
}
