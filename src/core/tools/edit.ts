import * as z from 'zod';
import { applyEditsSliced, runEditSliced } from '../edit';
import { planAndWrite, withDiagnostics } from '../write/write';
import { boundedEchoes } from '../write/answerBounds';
import { t } from '../l10n';
import { ToolError } from '../protocol/errors';
import { fileParam, filePathFields, targetOf } from './filePathParam';
import { boolParam } from './params';
import { defineTool, jsonOutput } from './tool';

/** "Edit" (FileEditTool, docs/protocol.md §5.9): one old/new string, unique unless replace_all. */
export const editTool = defineTool({
  name: 'Edit',
  description: 'Replace old_string with new_string in a file (every occurrence with replace_all), after the developer approves the diff.',
  writes: true,
  params: z.object({ ...filePathFields, old_string: z.string(), new_string: z.string(), replace_all: boolParam().optional(), description: z.string().optional() }),
  paths: fileParam,
  async handler(p, ctx) {
    const { requested: target, file } = targetOf(p, ctx.paths.file);
    const out = await planAndWrite(ctx, 'Edit', file, p.description, async (current) => {
      if (!current && p.old_string !== '') throw new ToolError('NOT_FOUND', t('File not found: {0}. To create it, send an empty old_string.', target));
      const edit = { old_string: p.old_string, new_string: p.new_string, replace_all: p.replace_all };
      const r = await runEditSliced(applyEditsSliced(current?.text ?? '', [edit], current?.path.rel ?? target, t), ctx.signal, t);
      const lines = r.edits[0].newRange;
      return { kind: 'write', proposed: r.newText, changedLines: lines, extra: undefined };
    }, p.old_string.length + p.new_string.length);
    const echoes = boundedEchoes({ oldString: p.old_string, newString: p.new_string, originalFile: out.original ?? '' }, out);
    const data = {
      filePath: out.path.abs,
      ...echoes.fields,
      structuredPatch: out.structuredPatch,
      ...echoes.omissions,
    };
    return jsonOutput(withDiagnostics(data, out));
  },
});
