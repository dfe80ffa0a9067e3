import { t } from '../l10n';
import { ToolError } from '../protocol/errors';
import { accessPolicy, type Access } from './accessPolicy';
import { MAX_FILE_BYTES } from './safeRead';
import { decodeText, isBinary, type Encoding } from '../workspace/text';
import type { LinkedCheck, Workspace } from '../workspace/workspace';

export interface ProjectText {
  readonly path: Access;
  readonly text: string;
  /** Where the text came from: the editor's unsaved buffer, or the file on disk. */
  readonly source: 'buffer' | 'disk';
  readonly encoding: Encoding;
  /** The bytes on disk the text was decoded from (absent for a buffer). */
  readonly bytes?: Uint8Array;
}

/**
 * The current text of a project file as the developer sees it: the unsaved editor buffer when the
 * file is open and dirty, else the bytes on disk. The path goes through the access policy: outside
 * the project is refused, and so is a secret file unless `allowSecret` (a writing tool whose secret
 * target a person has allowed). `file` is a project path, or one the policy already judged. Missing files, folders,
 * FIFOs and other non-regular files, files over MAX_FILE_BYTES and binary files are refused with
 * errors the agent can act on.
 */
export async function readProjectText(ws: Workspace, file: string | Access, allowSecret = false): Promise<ProjectText> {
  const policy = accessPolicy(ws);
  const path = typeof file === 'string' ? await policy.resolve(file) : file;
  if (path.kind === 'secret' && !allowSecret) throw policy.denial(path);
  if (!allowSecret && (await policy.linksToSecret(path.abs))) throw linkedDenial(path.rel);
  const dirty = ws.dirtyText(path.abs);
  if (dirty !== undefined) {
    return { path, text: dirty, source: 'buffer', encoding: 'utf8' };
  }
  const info = await ws.stat(path.abs);
  if (!info) throw new ToolError('NOT_FOUND', t('File not found: {0}', path.rel));
  if (info.kind === 'directory') {
    throw new ToolError('BAD_REQUEST', t('{0} is a directory, not a file. Use grep_file with relativePath to search inside it.', path.rel));
  }
  // Judged again on the open handle: a hard link may be swapped in after the check above. A secret
  // target a person allowed is read whatever its other names.
  const bytes = await readChecked(ws, path, info.kind === 'file' ? info.size : undefined, allowSecret ? () => true : policy.mayReadLinked);
  if (isBinary(bytes)) {
    throw new ToolError('BAD_REQUEST', t('{0} is a binary file ({1} bytes); only text files can be read.', path.rel, bytes.byteLength));
  }
  const { text, encoding } = decodeText(bytes);
  return { path, text, source: 'disk', encoding, bytes };
}

function linkedDenial(rel: string): ToolError {
  return new ToolError('PERMISSION_DENIED', t('{0} has other names (hard links), and one of them may be a secret file, so Agent Bridge does not show it to the agent.', rel));
}

/** `ws.readBytes` with its refusals (safeRead.ts) turned into errors that name the project path. */
async function readChecked(ws: Workspace, path: Access, size: number | undefined, linked: LinkedCheck): Promise<Uint8Array> {
  try {
    return await ws.readBytes(path.abs, size, linked);
  } catch (e) {
    switch ((e as NodeJS.ErrnoException).code) {
      case 'ENOENT':
        throw new ToolError('NOT_FOUND', t('File not found: {0}', path.rel));
      case 'ENOTREG':
      case 'ELOOP':
        throw new ToolError('BAD_REQUEST', t('{0} is not a regular file (a pipe, socket, device or link); only regular files are read.', path.rel));
      case 'EFBIG':
        throw new ToolError('BAD_REQUEST', t('{0} is larger than {1} MB; Agent Bridge does not load files that large. Search it with grep_file instead.', path.rel, MAX_FILE_BYTES / (1024 * 1024)));
      case 'ELINKED':
        throw linkedDenial(path.rel);
      case 'ESWAPPED':
        throw new ToolError('PERMISSION_DENIED', t('{0} changed into a link to another place while it was being opened; nothing was read.', path.rel));
      default:
        throw e;
    }
  }
}
