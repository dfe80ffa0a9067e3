import { randomBytes } from 'node:crypto';
import { applyEdits, findNodeAtLocation, modify, parseTree, visit, type FormattingOptions } from 'jsonc-parser';
import { english, type Translate } from '../l10n';
import { ToolError } from '../protocol/errors';
import type { NotebookCellEdit } from './types';

/** The parts of an .ipynb (nbformat 4) this tool reads and writes; everything else is kept as is. */
interface Cell {
  cell_type: string;
  source: string | string[];
  metadata?: unknown;
  outputs?: unknown[];
  execution_count?: number | null;
  [key: string]: unknown;
}
interface Notebook {
  cells: Cell[];
  metadata?: { language_info?: { name?: string }; kernelspec?: { language?: string } };
  [key: string]: unknown;
}

/**
 * The largest notebook NotebookEditCell edits, in bytes. Notebooks with plots and tables as outputs
 * are commonly a few MB; 20 MB leaves room for heavy ones, and one this size is still parsed and
 * edited quickly, off the host's thread (notebookOffThread.ts).
 */
export const MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024;

export interface NotebookEditRequest {
  readonly mode: 'replace' | 'insert' | 'delete';
  readonly index: number;
  readonly source: string;
  readonly cellType?: 'code' | 'markdown';
}

/** Jupyter stores source as lines that keep their newline, the last one without. */
function toSourceLines(source: string): string[] {
  const parts = source.split(/(?<=\n)/);
  return parts.length === 1 && parts[0] === '' ? [] : parts;
}

/** Thrown inside the visitor to stop the scan at the first duplicate key. */
class DuplicateKey {
  constructor(readonly line: number) {}
}

/**
 * JSON.parse keeps the last of two equal keys and jsonc-parser edits the first: a notebook with two
 * "cells" (or two "source" in a cell) would show one cell in the diff and change another. Any key
 * twice in one object is refused. The key is not quoted: the notebook may be a secret file.
 */
function refuseDuplicateKeys(text: string, path: string, t: Translate): void {
  const open: Set<string>[] = [];
  try {
    visit(text, {
      onObjectBegin: () => void open.push(new Set()),
      onObjectEnd: () => void open.pop(),
      onObjectProperty: (name, _offset, _length, startLine) => {
        const keys = open[open.length - 1];
        if (keys.has(name)) throw new DuplicateKey(startLine + 1);
        keys.add(name);
      },
    });
  } catch (e) {
    if (!(e instanceof DuplicateKey)) throw e;
    throw new ToolError('BAD_REQUEST', t('{0} has the same key twice in one JSON object (line {1}). Readers disagree on which one counts, so Agent Bridge does not edit it. Nothing was written.', path, e.line));
  }
}

/** Where a JSON scan first fails (a character offset), when it does. */
function firstSyntaxError(text: string): number | undefined {
  let at: number | undefined;
  visit(text, { onError: (_error, offset) => void (at ??= offset) }, { disallowComments: true, allowTrailingComma: false });
  return at;
}

function parse(text: string, path: string, t: Translate): Notebook {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_NOTEBOOK_BYTES) throw tooLarge(path, bytes, t);
  let nb: unknown;
  try {
    nb = JSON.parse(text);
  } catch (e) {
    // V8's message quotes the text around the fault, and the notebook may be a secret file: only where.
    const at = /\bposition (\d+)/.exec((e as Error).message)?.[1] ?? firstSyntaxError(text);
    throw new ToolError('BAD_REQUEST', at === undefined ? t('{0} is not valid notebook JSON.', path) : t('{0} is not valid notebook JSON (at character {1}).', path, at));
  }
  if (typeof nb !== 'object' || nb === null || !Array.isArray((nb as Notebook).cells)) {
    throw new ToolError('BAD_REQUEST', t('{0} is not a Jupyter notebook (no "cells" array).', path));
  }
  // nbformat 3 keeps its cells under "worksheets": a top-level "cells" there is a decoy Jupyter never reads.
  const format = (nb as { nbformat?: unknown }).nbformat;
  if ((typeof format === 'number' && format < 4) || 'worksheets' in nb) {
    throw new ToolError('BAD_REQUEST', t('{0} is an nbformat 3 notebook; NotebookEditCell edits nbformat 4 notebooks only. Nothing was written.', path));
  }
  refuseDuplicateKeys(text, path, t);
  return nb as Notebook;
}

/** The refusal of a notebook over MAX_NOTEBOOK_BYTES (`bytes` its size). */
export function tooLarge(path: string, bytes: number, t: Translate): ToolError {
  const mb = (n: number) => (n / (1024 * 1024)).toFixed(1);
  return new ToolError('BAD_REQUEST', t('{0} is {1} MB; NotebookEditCell edits notebooks of at most {2} MB. Nothing was written. Clearing its outputs (e.g. jupyter nbconvert --clear-output) makes it smaller.', path, mb(bytes), mb(MAX_NOTEBOOK_BYTES)));
}

/**
 * The file's own layout, so a new or changed cell is written as the rest (Jupyter writes one space,
 * LF); undefined for a notebook on one line, whose edit is then written compact too (formatting it
 * would lay out the rest of the line anew).
 */
function formatting(text: string): FormattingOptions | undefined {
  const m = /^\{\r?\n([ \t]+)"/.exec(text);
  if (!m) return undefined;
  const indent = m[1];
  return { insertSpaces: !indent.includes('\t'), tabSize: indent.includes('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/**
 * nbformat 4.5 and later give every cell an "id". A cell written without one is given one by
 * VS Code's notebook support when it reloads the file, which then saves the whole notebook anew.
 */
function needsCellIds(nb: Notebook): boolean {
  const major = typeof nb.nbformat === 'number' ? nb.nbformat : 0;
  const minor = typeof nb.nbformat_minor === 'number' ? nb.nbformat_minor : 0;
  return major > 4 || (major === 4 && minor >= 5);
}

/** A cell id no other cell of the notebook has (8 hex digits, as Jupyter makes them). */
function newCellId(nb: Notebook): string {
  const taken = new Set(nb.cells.map((c) => c.id));
  for (;;) {
    const id = randomBytes(4).toString('hex');
    if (!taken.has(id)) return id;
  }
}

/**
 * Applies a cell edit to a notebook's JSON text. Cell numbers are 0-based (docs/protocol.md §5.11); an insert
 * goes before `index` (== cell count appends). Only the target cell's text changes in the file:
 * the edit is made on the raw JSON (jsonc-parser), so other cells keep their bytes, big integers,
 * `1.0`, escapes and line endings. Returns the new text and the edit in a form a notebook API can
 * apply to an open notebook.
 */
export function editNotebookText(text: string, req: NotebookEditRequest, path: string, t: Translate = english): { text: string; edit: NotebookCellEdit } {
  const nb = parse(text, path, t);
  const count = nb.cells.length;
  const language = nb.metadata?.language_info?.name ?? nb.metadata?.kernelspec?.language ?? 'python';
  const max = req.mode === 'insert' ? count : count - 1;
  if (req.index < 0 || req.index > max) {
    throw new ToolError('VALIDATION_FAILED', t('cell_number: {0} is out of bounds. Notebook has {1} cells.', req.index, count));
  }
  const existing = nb.cells[req.index] as Cell | undefined;
  const cellType = req.cellType ?? (req.mode === 'insert' ? 'code' : (existing?.cell_type === 'markdown' ? 'markdown' : 'code'));
  const ids = needsCellIds(nb);
  const idOf = (cell: Cell | undefined) => (typeof cell?.id === 'string' ? { id: cell.id } : ids ? { id: newCellId(nb) } : {});
  // Keys in Jupyter's (sorted) order.
  const fresh = (metadata: unknown, id: { id?: string }): Cell =>
    cellType === 'code'
      ? { cell_type: 'code', execution_count: null, ...id, metadata, outputs: [], source: toSourceLines(req.source) }
      : { cell_type: 'markdown', ...id, metadata, source: toSourceLines(req.source) };
  const formattingOptions = formatting(text);
  const at = ['cells', req.index];
  let out = text;
  const set = (path: (string | number)[], value: unknown, isArrayInsertion = false): void => {
    out = applyEdits(out, modify(out, path, value, { ...(formattingOptions ? { formattingOptions } : {}), isArrayInsertion }));
  };
  if (req.mode === 'delete') {
    out = withoutCell(text, req.index);
  } else if (req.mode === 'insert') {
    set(at, fresh({}, idOf(undefined)), true);
  } else if (existing && existing.cell_type === cellType) {
    set([...at, 'source'], toSourceLines(req.source));
    if (ids && existing.id === undefined) set([...at, 'id'], newCellId(nb));
    if (cellType === 'code') {
      // The old outputs belong to the old source.
      set([...at, 'outputs'], []);
      set([...at, 'execution_count'], null);
    }
  } else {
    set(at, fresh(existing?.metadata ?? {}, idOf(existing)));
  }
  // Whatever the raw edit did, the result must be a notebook with one cell more, fewer or as many.
  const after = parse(out, path, t);
  if (after.cells.length !== count + (req.mode === 'insert' ? 1 : req.mode === 'delete' ? -1 : 0)) {
    throw new ToolError('INTERNAL_ERROR', t('The edit of {0} did not give the notebook it should; nothing was written.', path));
  }
  return {
    text: out,
    edit: { mode: req.mode, index: req.index, source: req.mode === 'delete' ? '' : req.source, cellType, language },
  };
}

/**
 * The text without cell `index`, every other byte kept: the cell goes with the comma and spacing
 * before it (after it, for the first cell). jsonc-parser's own removal left a brace too many in a
 * notebook written without line breaks between cells.
 */
function withoutCell(text: string, index: number): string {
  const cells = findNodeAtLocation(parseTree(text) ?? { type: 'null', offset: 0, length: 0 }, ['cells']);
  const cell = cells?.children?.[index];
  if (!cells?.children || !cell) throw new ToolError('INTERNAL_ERROR', 'The notebook cell to delete was not found in its text.');
  const before = cells.children[index - 1];
  const next = cells.children[index + 1];
  const [from, to] = before ? [before.offset + before.length, cell.offset + cell.length] : next ? [cell.offset, next.offset] : [cell.offset, cell.offset + cell.length];
  return text.slice(0, from) + text.slice(to);
}
