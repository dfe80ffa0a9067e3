import * as z from 'zod';
import { applyEditsSliced, EDIT_LIMITS, runEditSliced } from '../edit';
import { planAndWrite, withDiagnostics } from '../write/write';
import { boundedEchoes } from '../write/answerBounds';
import { t } from '../l10n';
import { ToolError } from '../protocol/errors';
import { fileParam, filePathFields, targetOf } from './filePathParam';
import { boolParam } from './params';
import { defineTool, jsonOutput } from './tool';

const edit = z.object({ old_string: z.string(), new_string: z.string(), replace_all: boolParam().optional() });
const cut = (s: string) => (s.length > 100 ? s.slice(0, 100) : s);

/** "MultiEdit" (docs/protocol.md §5.10): several edits on one file, in order, all or nothing. */
export const multiEditTool = defineTool({
  name: 'MultiEdit',
  description: 'Apply several old/new string edits to one file in order, all or nothing, after the developer approves the diff.',
  writes: true,
  params: z.object({ ...filePathFields, edits: z.array(edit).min(1, 'at least one edit is required').max(EDIT_LIMITS.maxEdits, `at most ${EDIT_LIMITS.maxEdits} edits per call; split the change into several calls`), description: z.string().optional() }),
  paths: fileParam,
  async handler(p, ctx) {
    const { requested: target, file } = targetOf(p, ctx.paths.file);
    const out = await planAndWrite(ctx, 'MultiEdit', file, p.description, async (current) => {
      if (!current && p.edits[0].old_string !== '') {
        throw new ToolError('NOT_FOUND', t("File not found: {0}. To create it, make the first edit's old_string empty.", target));
      }
      const r = await runEditSliced(applyEditsSliced(current?.text ?? '', p.edits, current?.path.rel ?? target, t), ctx.signal, t);
      const first = Math.min(...r.edits.map((e) => e.newRange.startLine));
      const last = Math.max(...r.edits.map((e) => e.newRange.endLine));
      return { kind: 'write', proposed: r.newText, changedLines: { startLine: first, endLine: last }, extra: r.edits };
    }, p.edits.reduce((n, e) => n + e.old_string.length + e.new_string.length, 0));
    const name = out.path.rel.split('/').pop();
    const data = {
      filePath: out.path.abs,
      wasNewFile: out.original === undefined,
      editsApplied: out.extra.map((e, i) => ({
        editIndex: e.editIndex,
        success: true,
        old_string: cut(p.edits[i].old_string),
        new_string: cut(p.edits[i].new_string),
        occurrences: e.occurrences,
      })),
      totalEdits: p.edits.length,
      summary: `Successfully applied ${p.edits.length} edit${p.edits.length === 1 ? '' : 's'} to ${name}`,
      structuredPatch: out.structuredPatch,
      ...boundedEchoes({}, out).omissions,
    };
    return jsonOutput(withDiagnostics(data, out));
  },
});
