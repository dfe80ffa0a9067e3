// Writes the bench's latest figures to docs/benchmarks.md, one block per section. A run of a few
// sections (--only) replaces only their blocks, so the other sections keep the figures of their
// last run, each block saying when and on what machine it was measured.
import * as fs from 'node:fs';
import type { Row } from './lib';

/** The machine a section was measured on, as the bench reads it at the start of a run. */
export interface MachineInfo {
  readonly date: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memory: string;
  readonly node: string;
  readonly rg: string;
  readonly commit: string;
  readonly loadAverageAtStart: string;
  readonly loadAverageAtEnd: string;
}

/** What one section of a run measured (every tree it ran on), and what went wrong. */
export interface SectionResult {
  readonly name: string;
  readonly rows: readonly Row[];
  readonly errors: readonly string[];
  readonly trees: string;
}

/** Each section's heading, in the order the bench runs them; a section not listed here is written last. */
const TITLES: Readonly<Record<string, string>> = {
  grep: 'Search: grep_file against ripgrep',
  read: 'read_file round trip against a bare WebSocket client',
  edit: "apply_change's matching engine",
  javabase: 'Code index and code tools on java.base, in process',
  tree: 'Code index and code answers on whole trees, through the headless host',
  realhost: 'In VS Code (code-server): activation, VSIX size, grep_file',
  soak: 'Soak through the headless host',
  realsoak: "Soak through VS Code's extension host",
};

const HEADER = `# Benchmarks

Written by \`npm run bench\` (\`bench/run.ts\`); do not edit by hand. Each section below is replaced
by the next run that measures it, so sections can come from different runs: each says when, and
on what machine.

\`\`\`sh
npm run bench                                   # every section, both trees (long)
npm run bench -- --trees jdk                    # the JDK tree only
npm run bench -- --only grep,tree --trees x4    # some sections, one tree
npm run bench -- --only edit                    # the one section that needs no JDK sources
\`\`\`

Most sections need \`scripts/setup-jdk.sh\` (the JDK 17 sources, unpacked once into
\`.bench-cache/\`) and the real-host ones \`scripts/setup-test-host.sh\`. The trees: *JDK* is the
JDK 17 sources (about 15,000 Java files); *4×JDK* is four copies of them side by side (about
60,000 files, a monorepo's size); *java.base* is one module of it.

How to read a row: *ours* is Agent Bridge's figure; *comparison* is what it is measured against,
run on the same machine in the same run: \`rg\` with exactly the options \`grep_file\` gives it
(alternating with our runs), a bare \`ws\` client in its own process answering each read_file with
the very bytes our host sent (the floor any WebSocket host pays), or the CPU time behind a wall
time. Medians unless the row says otherwise. The machine is often shared, so the load average is
printed and ratios count more than milliseconds. A miss is a finding, not a failure: the run fails
only when a section cannot run. Every sample of the latest run is in \`bench/results/latest.json\`
(not committed).

The java.base rows run each tool's handler in the build's own process, on the index restored from
its cache (\`bench/indexChild.ts\`). The tree rows are TOOL_CALL → TOOL_RESULT round trips over
loopback to a headless host in its own process: one started with no cache (its first build, which
it reports when asked once the build ended, and its event-loop delay sampled every 10 ms until
then, while a read_class and a call_chain were answered), a second over the same
cache (like VS Code reopened), and a third with none, asked for a fully qualified name. The cold
call_chain answer is checked against the built index's. The soaks run a mix of grep_file,
read_class, read_file, text_search and hostile calls at a steady rate after a warm-up that waits
for the whole index, through the headless host and through the VSIX in code-server (memory there
is the extension host's own: RSS from \`/proc\`, heap after a full GC through the Node inspector).
The real-host rows install the VSIX, packaged from a copy of the working tree, into VS Code
(code-server) and read the activation time VS Code itself shows in *Developer: Show Running
Extensions*.
`;

const blockStart = (name: string): string => `<!-- bench section: ${name} -->`;
const blockEnd = (name: string): string => `<!-- end of bench section: ${name} -->`;

export function table(rows: readonly Row[]): string {
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  const out = ['| figure | ours | comparison | ratio | target | result |', '|---|---|---|---|---|---|'];
  for (const r of rows) {
    const result = r.pass === undefined ? 'reported' : r.pass ? '✅ pass' : '❌ miss';
    out.push(`| ${esc(r.figure)} | ${esc(r.ours)} | ${esc(r.comparison)} | ${esc(r.ratio)} | ${esc(r.target)} | ${result} |`);
  }
  return out.join('\n');
}

function machineLine(m: MachineInfo): string {
  return (
    `Measured ${m.date} on ${m.cores} × ${m.cpu}, ${m.memory} of memory; Node ${m.node}; ${m.rg}; ` +
    `commit ${m.commit}; load average ${m.loadAverageAtStart} at the start of the run, ${m.loadAverageAtEnd} at its end.`
  );
}

/** One section's block: heading, machine, table, the rows' notes and any error. */
function renderSection(section: SectionResult, machine: MachineInfo): string {
  const notes = section.rows.filter((r) => r.note).map((r) => `- ${r.figure}: ${r.note as string}`);
  const errors = section.errors.map((e) => `- ${e.split('\n')[0] as string}`);
  return [
    blockStart(section.name),
    `## ${TITLES[section.name] ?? section.name}`,
    '',
    `${machineLine(machine)} Trees: ${section.trees}.`,
    '',
    section.rows.length ? table(section.rows) : '(no figures: the section did not finish)',
    ...(notes.length ? ['', 'Notes:', '', ...notes] : []),
    ...(errors.length ? ['', 'Errors:', '', ...errors] : []),
    blockEnd(section.name),
  ].join('\n');
}

/** The blocks already in the file, by section name (an unreadable or missing file has none). */
function existingBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const m of text.matchAll(/<!-- bench section: ([\w-]+) -->[\s\S]*?<!-- end of bench section: \1 -->/g)) blocks.set(m[1] as string, m[0]);
  return blocks;
}

/**
 * The whole document after this run: the header, then every section's latest block. A section
 * that failed without a single figure keeps its previous block, so a missing tool does not wipe
 * figures measured before.
 */
function benchmarksDocument(previous: string, sections: readonly SectionResult[], machine: MachineInfo): string {
  const blocks = existingBlocks(previous);
  for (const s of sections) if (s.rows.length > 0 || !blocks.has(s.name)) blocks.set(s.name, renderSection(s, machine));
  const order = Object.keys(TITLES);
  const names = [...blocks.keys()].sort((a, b) => (order.indexOf(a) + 1 || order.length + 1) - (order.indexOf(b) + 1 || order.length + 1));
  return `${HEADER}\n${names.map((n) => blocks.get(n) as string).join('\n\n')}\n`;
}

export function writeBenchmarksDoc(file: string, sections: readonly SectionResult[], machine: MachineInfo): void {
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  fs.writeFileSync(file, benchmarksDocument(previous, sections, machine));
}
