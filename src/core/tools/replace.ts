import * as z from 'zod';
import { planAndWrite, withDiagnostics } from '../write/write';
import { boundedEchoes } from '../write/answerBounds';
import { lineCountInSlices } from '../edit/lines';
import { fileParam, filePathFields, targetOf } from './filePathParam';
import { defineTool, jsonOutput } from './tool';

/** "Replace" (FileWriteTool, docs/protocol.md §5.8): create a file or overwrite it whole. */
export const replaceTool = defineTool({
  name: 'Replace',
  description: 'Create a file, or replace its whole content, after the developer approves the diff.',
  writes: true,
  params: z.object({ ...filePathFields, content: z.string(), description: z.string().optional() }),
  paths: fileParam,
  async handler(p, ctx) {
    const { file } = targetOf(p, ctx.paths.file);
    const out = await planAndWrite(
      ctx,
      'Replace',
      file,
      p.description,
      async (current) =>
        current?.text === p.content
          ? { kind: 'unchanged', extra: undefined }
          : { kind: 'write', proposed: p.content, changedLines: { startLine: 1, endLine: await lineCountInSlices(p.content, ctx.signal) }, extra: undefined },
      p.content.length,
    );
    const created = out.original === undefined;
    // A create has no patch to show (the content is the whole change).
    const echoes = boundedEchoes({ content: out.finalText }, created ? { linesOmitted: false, added: 0, removed: 0 } : out);
    const data = {
      type: created ? ('create' as const) : ('update' as const),
      filePath: out.path.abs,
      ...echoes.fields,
      structuredPatch: created ? [] : out.structuredPatch,
      ...echoes.omissions,
    };
    return jsonOutput(withDiagnostics(data, out));
  },
});
