import * as z from 'zod';
import { planAndWrite, withDiagnostics } from '../write/write';
import { splitLines } from '../workspace/text';
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
    const out = await planAndWrite(ctx, 'Replace', file, p.description, (current) =>
      current?.text === p.content
        ? { kind: 'unchanged', extra: undefined }
        : { kind: 'write', proposed: p.content, changedLines: { startLine: 1, endLine: Math.max(1, splitLines(p.content).length) }, extra: undefined },
      p.content.length,
    );
    const data = {
      type: out.original === undefined ? ('create' as const) : ('update' as const),
      filePath: out.path.abs,
      content: out.finalText,
      structuredPatch: out.original === undefined ? [] : out.structuredPatch,
    };
    return jsonOutput(withDiagnostics(data, out));
  },
});
