import * as z from 'zod';
import { applyChangeNames, applySearchReplaceSliced, planCreate, runEditSliced } from '../edit';
import { planAndWrite, withDiagnostics } from '../write/write';
import { boundedEchoes } from '../write/answerBounds';
import { t, type Translate } from '../l10n';
import { ToolError } from '../protocol/errors';
import { lineCountInSlices } from '../edit/lines';
import { defineTool, jsonOutput } from './tool';
import { pathParam } from './params';

const params = z.object({
  relativePath: pathParam(),
  /** Absent or empty: create the file with replaceContent. */
  searchContent: z.string().optional(),
  replaceContent: z.string(),
  description: z.string().optional(),
});

interface Extra {
  readonly strategy: 'create' | 'exact' | 'whitespace' | 'indentation';
  readonly alreadyApplied: boolean;
  readonly changedLines?: { readonly start: number; readonly end: number };
}

export const applyChangeTool = defineTool({
  name: 'apply_change',
  description: 'Replace searchContent with replaceContent in a file (or create it), after the developer approves the diff; then format and save.',
  writes: true,
  params,
  paths: (p) => ({ file: p.relativePath }),
  async handler(p, ctx) {
    const creating = !p.searchContent;
    const out = await planAndWrite<Extra>(ctx, 'apply_change', ctx.paths.file, p.description, async (current) => {
      const names = applyChangeNames(current?.path.rel ?? p.relativePath);
      if (creating) {
        if (planCreate(current?.text, p.replaceContent, names, t) === 'unchanged') {
          return { kind: 'unchanged', extra: { strategy: 'create', alreadyApplied: true } };
        }
        const lines = await lineCountInSlices(p.replaceContent, ctx.signal);
        return { kind: 'write', proposed: p.replaceContent, changedLines: { startLine: 1, endLine: lines }, extra: { strategy: 'create', alreadyApplied: false, changedLines: { start: 1, end: lines } } };
      }
      const text = current?.text ?? missing(p.relativePath, t);
      const applied = await runEditSliced(applySearchReplaceSliced(text, p.searchContent ?? '', p.replaceContent, names, t), ctx.signal, t);
      if (applied.kind === 'already-applied') {
        return { kind: 'unchanged', extra: { strategy: applied.strategy, alreadyApplied: true, changedLines: { start: applied.range.startLine, end: applied.range.endLine } } };
      }
      return {
        kind: 'write',
        proposed: applied.newText,
        changedLines: applied.newRange,
        extra: { strategy: applied.strategy, alreadyApplied: false, changedLines: { start: applied.newRange.startLine, end: applied.newRange.endLine } },
      };
    }, (p.searchContent?.length ?? 0) + p.replaceContent.length + (p.description?.length ?? 0));
    const echoes = boundedEchoes({ description: p.description }, out);
    const structured = {
      path: out.path.rel,
      created: out.created && out.written,
      alreadyApplied: out.extra.alreadyApplied,
      strategy: out.extra.strategy,
      changedLines: out.extra.changedLines,
      formatted: out.committed?.formatted ?? false,
      modifiedByUser: out.committed?.modifiedByUser ?? false,
      ...(out.committed?.droppedHunks ? { droppedHunks: out.committed.droppedHunks } : {}),
      saved: out.committed?.saved ?? false,
      ...echoes.fields,
      added: out.added,
      removed: out.removed,
      structuredPatch: out.structuredPatch,
      ...echoes.omissions,
    };
    return jsonOutput(withDiagnostics(structured, out));
  },
});

function missing(path: string, t: Translate): never {
  throw new ToolError('NOT_FOUND', t('File not found: {0}. To create it, send an empty searchContent.', path));
}
