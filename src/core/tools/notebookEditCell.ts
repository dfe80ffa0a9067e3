import * as z from 'zod';
import { MAX_NOTEBOOK_BYTES, tooLarge } from '../edit/notebook';
import { editNotebookOffThread } from '../edit/notebookOffThread';
import { planAndWrite, withDiagnostics } from '../write/write';
import { boundedEchoes } from '../write/answerBounds';
import { t } from '../l10n';
import { ToolError } from '../protocol/errors';
import { intParam } from './params';
import { defineTool, jsonOutput } from './tool';

/** "NotebookEditCell" (docs/protocol.md §5.11): replace, insert or delete one cell of a Jupyter notebook. */
export const notebookEditCellTool = defineTool({
  name: 'NotebookEditCell',
  description: 'Replace, insert or delete a cell (0-based cell_number) of an .ipynb notebook, after the developer approves the diff.',
  writes: true,
  params: z.object({
    notebook_path: z.string().min(1).optional(),
    relativePath: z.string().min(1).optional(),
    cell_number: intParam().pipe(z.number().min(0)),
    new_source: z.string().default(''),
    cell_type: z.enum(['code', 'markdown']).optional(),
    edit_mode: z.enum(['replace', 'insert', 'delete']).default('replace'),
    description: z.string().optional(),
  }),
  paths: (p) => ({ notebook: p.notebook_path ?? p.relativePath }),
  async handler(p, ctx) {
    const target = p.notebook_path ?? p.relativePath;
    const access = ctx.paths.notebook;
    if (!target || !access) throw new ToolError('VALIDATION_FAILED', t('notebook_path: is required'));
    if (!/\.ipynb$/i.test(target)) throw new ToolError('VALIDATION_FAILED', t('notebook_path: {0} is not an .ipynb file', target));
    // Refused before it is read, so a huge notebook costs nothing (the edit checks its text again).
    // Not a secret one: its size is not told before a person allows the change.
    if (access.kind !== 'secret' && ctx.workspace.dirtyText(access.abs) === undefined) {
      const info = await ctx.workspace.stat(access.abs);
      if (info?.kind === 'file' && info.size > MAX_NOTEBOOK_BYTES) throw tooLarge(access.rel, info.size, t);
    }
    const out = await planAndWrite(ctx, 'NotebookEditCell', access, p.description, async (current) => {
      if (!current) throw new ToolError('NOT_FOUND', t('Notebook not found: {0}', target));
      const request = { mode: p.edit_mode, index: p.cell_number, source: p.new_source, cellType: p.cell_type };
      const r = await editNotebookOffThread(current.text, request, current.path.rel, ctx.signal);
      return { kind: 'write', proposed: r.text, notebookEdit: r.edit, extra: r.edit };
    }, p.new_source.length);
    // Its answer has no structuredPatch, so only the echoed source can be left out.
    const echoes = boundedEchoes({ new_source: out.extra.source }, { linesOmitted: false, added: 0, removed: 0 });
    const data = {
      cell_number: p.cell_number,
      ...echoes.fields,
      cell_type: out.extra.cellType,
      language: out.extra.language,
      edit_mode: p.edit_mode,
      ...echoes.omissions,
    };
    return jsonOutput(withDiagnostics(data, out));
  },
});
