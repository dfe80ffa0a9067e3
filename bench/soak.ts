// The soak benchmark: the soak engine (test/support/soak.ts) over the JDK corpus, as bench rows.
//
//   node --expose-gc --import tsx bench/soak.ts [--calls 6000] [--rate 50] [--workspace DIR]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { UNPACKED_LIMITS } from '../src/core/code/index/unpackedFiles';
import { describeSoak, HEAP_GROWTH_LIMIT, mbText, runSoak, type SoakOptions, type SoakReport } from '../test/support/soak';
import { ensureCorpus, type Row } from './lib';

/** Rows in bench/run.ts's table shape. */
export type SoakRow = Row;

/** The row of a soak's calls: throughput and latency; a pass when every call was answered once, with the code it had to get. */
export function soakCallsRow(r: SoakReport, where: string, data: Record<string, unknown>): Row {
  const hostile = Object.values(r.errors).reduce((a, b) => a + b, 0);
  return {
    figure: `${where}: ${r.calls} mixed calls (${Object.keys(r.byTool).filter((t) => t !== 'no_such_tool').sort().join(', ')}, hostile) at a steady rate`,
    ours: `${r.throughput.toFixed(1)} calls/s, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms`,
    comparison: `${hostile} expected refusals ${JSON.stringify(r.errors)}`,
    ratio: '',
    target: 'every call answered exactly once, no unexpected error',
    pass: r.unexpected.length === 0 && r.notExactlyOnce.length === 0,
    note: r.unexpected.slice(0, 3).join(' | ') || undefined,
    data,
  };
}

/** For bench/run.ts: the soak over `<corpus>/java.base` (~3,000 Java files), as table rows. */
export async function benchSoak(corpusRoot: string, options: Partial<SoakOptions> = {}): Promise<SoakRow[]> {
  const workspace = fs.existsSync(path.join(corpusRoot, 'java.base')) ? path.join(corpusRoot, 'java.base') : corpusRoot;
  const log = (line: string): void => void process.stderr.write(`[soak] ${line}\n`);
  // memory read again once the code answers' unpacked files are let go (a minute idle)
  const r = await runSoak({ workspace, log, idleBeforeAfterMs: UNPACKED_LIMITS.idleMs + 5_000, ...options });
  log(describeSoak(r));
  for (const u of r.unexpected.slice(0, 10)) log(`unexpected: ${u}`);
  return [
    soakCallsRow(r, 'soak', { ...r }),
    {
      figure: 'soak: memory after gc, before → after a minute idle (the code answers\' unpacked files let go)',
      ours: `heap ${mbText(r.memory.baseline.heapUsed)} → ${mbText(r.memory.after.heapUsed)}, RSS ${mbText(r.memory.baseline.rss)} → ${mbText(r.memory.after.rss)}`,
      comparison: `peak heap ${mbText(r.memory.peak.heapUsed)}, peak RSS ${mbText(r.memory.peak.rss)}; as the calls ended: heap ${mbText(r.memory.rightAfter?.heapUsed ?? Number.NaN)}`,
      ratio: '',
      target: `heap back within ${mbText(HEAP_GROWTH_LIMIT)} of its baseline`,
      pass: r.memory.heapGrowth < HEAP_GROWTH_LIMIT,
    },
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { calls: { type: 'string' }, rate: { type: 'string' }, seconds: { type: 'string' }, workspace: { type: 'string' } } });
  let root = values.workspace;
  if (!root) {
    root = ensureCorpus().root;
  }
  const rows = await benchSoak(root, {
    calls: values.calls ? Number(values.calls) : undefined,
    rate: values.rate ? Number(values.rate) : undefined,
    maxSeconds: values.seconds ? Number(values.seconds) : undefined,
  });
  for (const row of rows) process.stdout.write(`${row.pass === false ? '❌' : '✅'} ${row.figure}: ${row.ours} (${row.comparison})\n`);
  process.exitCode = rows.some((r) => r.pass === false) ? 1 : 0;
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
