import * as path from 'node:path';
import { readProjectText } from '../../files';
import { ToolError } from '../../protocol/errors';
import type { Workspace } from '../../workspace';
import type { TypeEntry } from '../index';
import { languageForPath, listSourceFiles } from '../languages';
import type { FileSymbols } from '../model';
import { withTree } from '../parser';

/**
 * Before the workspace index is built, a fully qualified class name (or a file given as
 * relativePath) names one file: parse just that one and answer, instead of making the first
 * read_class of a session wait for the whole project. Simple names still need the index.
 */
export async function quickType(ws: Workspace, className: string, relativePath?: string): Promise<TypeEntry | undefined> {
  const fqn = className.replace(/\$/g, '.').replace(/\.(java|kt)$/, '');
  const parts = fqn.split('.');
  let files: string[];
  if (relativePath && languageForPath(relativePath)) {
    files = [relativePath];
  } else {
    if (parts.length < 2) return undefined;
    // a.b.C or a.b.C.Inner: the file is a.b/C.java or a/b/C.java — try each split from the end.
    const wanted = new Set<string>();
    for (let i = parts.length; i >= 2; i--) for (const ext of ['java', 'kt']) wanted.add(`${parts.slice(0, i).join('/')}.${ext}`);
    const all = await listSourceFiles(ws.root);
    files = all.filter((rel) => [...wanted].some((w) => rel === w || rel.endsWith(`/${w}`)));
  }
  const hits: TypeEntry[] = [];
  for (const rel of files) {
    const lang = languageForPath(rel);
    if (!lang) continue;
    let text: string;
    try {
      text = (await readProjectText(ws, rel)).text;
    } catch (e) {
      if (e instanceof ToolError && e.code === 'NOT_FOUND') continue;
      throw e;
    }
    let lineCount = text === '' || text.endsWith('\n') ? 0 : 1;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineCount++;
    const file = (await withTree(lang.id, text, (tree) => lang.extract(tree, lineCount, rel))) as FileSymbols;
    const simple = parts[parts.length - 1];
    const type = file.types.find((t) => t.fqn === fqn) ?? (relativePath ? file.types.find((t) => t.name === simple) : undefined);
    if (type) hits.push({ path: rel.split(path.sep).join('/'), file, type });
  }
  return hits.length === 1 ? hits[0] : undefined;
}
