import { resolveInProject, type ProjectPath } from './paths';
import { translator } from './l10n';
import { ToolError } from './protocol/errors';
import { decodeText, isBinary, type Encoding } from './text';
import type { Workspace } from './workspace';

export interface ProjectText {
  readonly path: ProjectPath;
  readonly text: string;
  /** Where the text came from: the editor's unsaved buffer, or the file on disk. */
  readonly source: 'buffer' | 'disk';
  readonly encoding: Encoding;
}

/**
 * The current text of a project file as the developer sees it: the unsaved editor buffer when the
 * file is open and dirty, else the bytes on disk. Missing files, folders and binary files are
 * refused with errors the agent can act on. `resolved` is the path already resolved for this call
 * (see `ToolContext.resolved`), when there is one.
 */
export async function readProjectText(ws: Workspace, relativePath: string, resolved?: ProjectPath): Promise<ProjectText> {
  const t = translator(ws.locale);
  const path = resolved ?? (await resolveInProject(ws, relativePath));
  const dirty = ws.dirtyText(path.abs);
  if (dirty !== undefined) {
    return { path, text: dirty, source: 'buffer', encoding: 'utf8' };
  }
  const info = await ws.stat(path.abs);
  if (!info) throw new ToolError('NOT_FOUND', t('File not found: {0}', path.rel));
  if (info.kind === 'directory') {
    throw new ToolError('BAD_REQUEST', t('{0} is a directory, not a file. Use grep_file with relativePath to search inside it.', path.rel));
  }
  const bytes = await ws.readBytes(path.abs, info.size);
  if (isBinary(bytes)) {
    throw new ToolError('BAD_REQUEST', t('{0} is a binary file ({1} bytes); only text files can be read.', path.rel, bytes.byteLength));
  }
  const { text, encoding } = decodeText(bytes);
  return { path, text, source: 'disk', encoding };
}
