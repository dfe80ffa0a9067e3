// `npm run bench`: every performance figure in one run, on the JDK 17 sources (~15,000 Java
// files, unpacked once into .bench-cache/jdk17-src), side by side with what it is compared to.
// Each section's table goes to docs/benchmarks.md (bench/report.ts); every row with its samples
// goes to bench/results/latest.json and a timestamped copy beside it (not committed).
//
//   node --expose-gc --import tsx bench/run.ts [--only grep,read,edit,javabase,tree,realhost,soak,realsoak,tsservice] [--trees jdk,x4]
//
// grep and tree run on both trees: the JDK sources and a monorepo-sized copy of four of them.
//
// Bounded: loopback only, fixed counts, children stopped in `finally`. Needs scripts/setup-jdk.sh
// (JDK sources, unzip) for every section but edit, ripgrep on PATH, and
// scripts/setup-test-host.sh for the real-host rows.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { startDevBackend } from '../src/devBackend/server';
import { benchJavaBase, benchWholeTree, memoryExtrapolation } from './code';
import { benchEdit } from './edit';
import { ensureCorpus, ensureCorpusX4, log, repoRoot, startChild, type Row } from './lib';
import { benchGrep, benchReadFile } from './loopback';
import { benchRealHost } from './realHost';
import { table, writeBenchmarksDoc, type MachineInfo, type SectionResult } from './report';

const SECTIONS = ['grep', 'read', 'edit', 'javabase', 'tree', 'realhost', 'soak', 'realsoak', 'tsservice'] as const;
type Section = (typeof SECTIONS)[number];

const { values } = parseArgs({ options: { only: { type: 'string' }, trees: { type: 'string' } } });
/** `jdk`: the JDK sources (~15,000 files); `x4`: four copies of them side by side (~60,000 files). */
const trees = new Set((values.trees ?? 'jdk,x4').split(',').map((s) => s.trim()));
const only = new Set((values.only ?? SECTIONS.join(',')).split(',').map((s) => s.trim()));
const want = (s: Section): boolean => only.has(s);
/** Sections that run on the JDK sources; edit and tsservice work on what they make. */
const needsCorpus = SECTIONS.filter((s) => s !== 'edit' && s !== 'tsservice').some(want);

function machine(): MachineInfo {
  const sh = (cmd: string): string => {
    try {
      return execFileSync('sh', ['-c', cmd], { encoding: 'utf8' }).trim();
    } catch {
      return '?';
    }
  };
  return {
    date: new Date().toISOString(),
    cores: os.availableParallelism(),
    cpu: os.cpus()[0]?.model.trim() ?? '?',
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB (${(os.freemem() / 1024 ** 3).toFixed(1)} GiB free at the start)`,
    loadAverageAtStart: os.loadavg().map((l) => l.toFixed(2)).join(' '),
    loadAverageAtEnd: '?',
    node: process.version,
    rg: sh('rg --version').split('\n')[0] ?? '?',
    commit: sh(`git -C ${JSON.stringify(repoRoot)} rev-parse --short HEAD`),
  };
}

async function main(): Promise<number> {
  const started = Date.now();
  const info = machine();
  log(`machine: ${JSON.stringify(info)}`);
  const corpus = needsCorpus ? ensureCorpus() : undefined;
  if (corpus) log(`corpus: ${corpus.root}, ${corpus.javaFiles} Java files${corpus.unpackMs ? ` (unpacked in ${(corpus.unpackMs / 1000).toFixed(1)} s)` : ''}`);
  const x4 = trees.has('x4') && (want('grep') || want('tree')) ? ensureCorpusX4() : undefined;
  if (x4) log(`corpus ×4: ${x4.root}, ${x4.javaFiles} Java files${x4.unpackMs ? ` (copied in ${(x4.unpackMs / 1000).toFixed(1)} s)` : ''}`);
  const treeList = [...(corpus && trees.has('jdk') ? [{ label: 'JDK', root: corpus.root }] : []), ...(x4 ? [{ label: '4×JDK', root: x4.root }] : [])];
  const jdkFiles = corpus ? `JDK (${corpus.javaFiles.toLocaleString('en')} Java files)` : 'JDK';
  const treeNames = treeList.map((t) => (t.label === 'JDK' ? jdkFiles : `4×JDK (${(x4?.javaFiles ?? 0).toLocaleString('en')} Java files)`)).join(', ') || 'none';
  /** What each section runs on, for its block in docs/benchmarks.md. */
  const sectionTrees: Record<Section, string> = {
    grep: treeNames,
    read: `${jdkFiles}, one 4 KB file`,
    edit: 'none: a 20,000-line file the bench makes',
    javabase: 'java.base of the JDK',
    tree: treeNames,
    realhost: jdkFiles,
    soak: jdkFiles,
    realsoak: jdkFiles,
    tsservice: 'none: 3,000 TypeScript files the bench generates',
  };
  const rows: Row[] = [];
  const bySection = new Map<Section, { rows: Row[]; errors: string[] }>();
  const errors: string[] = [];
  const section = async (name: Section, run: () => Promise<Row[]> | Row[]): Promise<void> => {
    if (!want(name)) return;
    const t0 = Date.now();
    const mine = bySection.get(name) ?? { rows: [], errors: [] };
    bySection.set(name, mine);
    log(`— ${name}`);
    try {
      const got = await run();
      rows.push(...got);
      mine.rows.push(...got);
    } catch (e) {
      const msg = `${name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
      errors.push(msg);
      mine.errors.push(msg);
      log(`FAILED ${msg}`);
    }
    log(`— ${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  };

  const backend = await startDevBackend({ port: 0, toolTimeoutMs: 120_000 });
  try {
    for (const tree of treeList) {
      if (!want('grep') && !(want('read') && tree.root === corpus?.root)) continue;
      const key = `grep-${tree.label === 'JDK' ? 'jdk' : 'x4'}`;
      const host = startChild('hostChild.ts', [backend.wsUrl(), tree.root, key], ['--expose-gc']);
      try {
        await host.ready;
        await backend.waitForSession((s) => s.projectKey === key, 30_000);
        // callTool without a session goes to the only IDE connected: this one
        if (backend.sessions().length !== 1) throw new Error(`expected one IDE, found ${backend.sessions().length}`);
        await section('grep', () => benchGrep(backend, tree.root, tree.label));
        if (tree.root === corpus?.root) await section('read', () => benchReadFile(tree.root));
      } finally {
        await host.stop();
      }
    }
    await section('edit', () => benchEdit());
    // TypeScript's language service beside the parser, on a generated tree (bench/tsService.ts).
    await section('tsservice', async () => (await import('./tsService')).benchTsService(backend));
    if (corpus) {
      await section('javabase', () => benchJavaBase(corpus.root));
      for (const tree of treeList) await section('tree', () => benchWholeTree(backend, tree.root, tree.label));
      const extrapolated = memoryExtrapolation(rows);
      rows.push(...extrapolated);
      bySection.get('tree')?.rows.push(...extrapolated);
      await section('realhost', () => benchRealHost(backend, corpus.root));
      // bench/soak.ts (its own host, in this process); loaded lazily so a problem there is one failed section
      await section('soak', async () => (await import('./soak')).benchSoak(corpus.root));
      // the same soak through VS Code's extension host (code-server), measuring that process's memory
      await section('realsoak', async () => (await import('./realHostSoak')).benchRealHostSoak(corpus.root));
    }
  } finally {
    await backend.close();
  }

  const totalS = (Date.now() - started) / 1000;
  const measured: MachineInfo = { ...info, loadAverageAtEnd: os.loadavg().map((l) => l.toFixed(2)).join(' ') };
  const result = { machine: measured, corpus: { javaFiles: corpus?.javaFiles ?? 0 }, totalSeconds: totalS, rows, errors };
  const dir = path.join(repoRoot, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const json = `${JSON.stringify(result, null, 2)}\n`;
  fs.writeFileSync(path.join(dir, 'latest.json'), json);
  fs.writeFileSync(path.join(dir, `${info.date}.json`.replace(/:/g, '-')), json);
  const md = table(rows);
  fs.writeFileSync(path.join(dir, 'latest.md'), `${md}\n`);
  const sections: SectionResult[] = [...bySection].map(([name, s]) => ({ name, rows: s.rows, errors: s.errors, trees: sectionTrees[name] }));
  const doc = path.join(repoRoot, 'docs', 'benchmarks.md');
  writeBenchmarksDoc(doc, sections, measured);

  const notes = rows.filter((r) => r.note).map((r) => `- ${r.figure}: ${r.note as string}`);
  process.stdout.write(
    `\n## Benchmarks — ${info.date}\n\n` +
      `${info.cores} cores (${info.cpu}), ${info.memory}; load average at start ${info.loadAverageAtStart}, at end ${measured.loadAverageAtEnd}; ` +
      `Node ${info.node}; ${info.rg}; corpus: ${corpus ? `${corpus.javaFiles} Java files of the JDK 17 sources` : 'none'}${x4 ? ` and ${x4.javaFiles} in four copies of them` : ''}; total ${totalS.toFixed(0)} s\n\n` +
      `${md}\n\n${notes.join('\n')}\n` +
      (errors.length ? `\nErrors:\n${errors.map((e) => `- ${e.split('\n')[0] as string}`).join('\n')}\n` : ''),
  );
  const misses = rows.filter((r) => r.pass === false).length;
  process.stdout.write(
    `\nbench: ${rows.filter((r) => r.pass === true).length} pass, ${misses} miss, ${rows.filter((r) => r.pass === undefined).length} reported, ${errors.length} errors ` +
      `(${path.relative(repoRoot, path.join(dir, 'latest.json'))}; sections ${sections.map((s) => s.name).join(', ')} written to ${path.relative(repoRoot, doc)})\n`,
  );
  // Misses are findings, not failures: the run fails only when a section could not run.
  return errors.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
