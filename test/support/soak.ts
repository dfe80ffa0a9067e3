// Soak: thousands of mixed tool calls (read_file, grep_file, text_search, read_class, and a few
// hostile ones) at a steady rate against the headless host, over loopback, for a bounded time and count.
// Reports throughput, p50/p99 latency, errors by code, whether every call was answered exactly
// once, and whether the process's memory (heap and RSS after gc) returns near its baseline.
//
// Run it as a benchmark with `node --expose-gc --import tsx bench/soak.ts [--calls 6000] [--rate 50] [--workspace DIR]`.
//
// The host runs in this process (startHeadlessHost), so its memory is this process's memory;
// the baseline is taken after a warm-up (the code index built, caches filled), so what is
// measured is growth per call, not the index. Shared by the benchmark (bench/soak.ts, `benchSoak`),
// the short version in npm test (test/slow/soak.test.ts, `runSoak`), and, as `soakAgainst` with
// another memory probe, the same soak through the real VS Code extension host (bench/realHostSoak.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gcFunction } from './memory';
import { silentLogger } from './silentLogger';
import { startDevBackend, type DevBackend } from '../../src/devBackend/server';
import { peekCodeIntel } from '../../src/core/code/intel/state';
import { startHeadlessHost } from '../../src/node/headless';
import { quantile } from './stats';

export interface SoakOptions {
  /** The project folder (Java sources). */
  readonly workspace: string;
  /** How many calls in all (default 6,000: two minutes at 50 a second). */
  readonly calls?: number;
  /** Calls started per second, open loop (default 50). */
  readonly rate?: number;
  /** Stops starting calls after this long, whatever the count (default 240 s). */
  readonly maxSeconds?: number;
  /** One call in this many is hostile (path escape, unknown tool, missing file): default 20. */
  readonly hostileEvery?: number;
  /** Progress lines (default none). */
  readonly log?: (line: string) => void;
  /** Read tools at once in the host (default 8, the product's default). */
  readonly maxConcurrent?: number;
  /**
   * Resolves once the host's code index has every call site. The warm-up's call_chain answers
   * once the declarations are in (neededCallSites.ts); the baseline must also include the call sites.
   */
  readonly indexBuilt?: () => Promise<void>;
  /**
   * How long the host idles before its memory is read after the calls (default 0). The code
   * index keeps the files answers unpacked for a minute after the last lookup (unpackedFiles.ts):
   * a read after that tells a leak from a cache.
   */
  readonly idleBeforeAfterMs?: number;
}

export interface MemorySample {
  /** NaN when the probe cannot see the heap. */
  readonly heapUsed: number;
  readonly rss: number;
}

/** Where the host's memory is read: this process (the headless host), or another (the extension host). */
export interface MemoryProbe {
  /** After a full garbage collection, once things have settled. */
  settled(): Promise<MemorySample>;
  /** Now, cheaply: for the peak. */
  sample(): Promise<MemorySample>;
}

/** The memory of this very process (the headless host runs in it). */
function processMemory(): MemoryProbe {
  const gc = gcFunction();
  return {
    settled: () => settledMemory(gc),
    sample: async () => {
      const m = process.memoryUsage();
      return { heapUsed: m.heapUsed, rss: m.rss };
    },
  };
}

export interface SoakReport {
  readonly calls: number;
  readonly seconds: number;
  readonly throughput: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** By tool: count, p50, p99. */
  readonly byTool: Record<string, { count: number; p50Ms: number; p99Ms: number }>;
  /** Failed answers by error code (hostile calls included). */
  readonly errors: Record<string, number>;
  /** Failures that were not expected (anything but the hostile calls' codes). */
  readonly unexpected: readonly string[];
  /** Calls whose TOOL_RESULT count was not exactly one, and frames with an id never sent. */
  readonly notExactlyOnce: readonly string[];
  readonly memory: {
    readonly baseline: MemorySample;
    readonly peak: MemorySample;
    /** Read as the calls end; `after` is read `idleBeforeAfterMs` later (the same when 0). */
    readonly rightAfter?: MemorySample;
    readonly after: MemorySample;
    readonly heapGrowth: number;
    readonly rssGrowth: number;
  };
}

async function settledMemory(gc: () => void): Promise<MemorySample> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, rss: m.rss };
}

/** Java files under `root` (relative, forward slashes), at most `max`, in a stable order. */
function javaFiles(root: string, max = 5000): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= max) return;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) walk(abs);
      else if (e.name.endsWith('.java') && !e.name.includes('-info')) out.push(path.relative(root, abs).split(path.sep).join('/'));
    }
  };
  walk(root);
  return out;
}

/** A small deterministic PRNG, so two runs make the same calls. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PATTERNS = ['synchronized', 'TODO', 'throw new IllegalStateException', '@Override', 'hashCode\\(\\)', 'private static final long serialVersionUID'];

/** The hostile calls and the one code each must get. */
const HOSTILE: readonly { tool: string; params: Record<string, unknown>; code: string }[] = [
  { tool: 'read_file', params: { relativePath: '../../../etc/passwd' }, code: 'PERMISSION_DENIED' },
  { tool: 'grep_file', params: { pattern: 'root', relativePath: '/etc' }, code: 'PERMISSION_DENIED' },
  { tool: 'no_such_tool', params: {}, code: 'TOOL_NOT_FOUND' },
  { tool: 'read_file', params: { relativePath: 'does/not/Exist.java' }, code: 'NOT_FOUND' },
  { tool: 'read_file', params: { relativePath: 42 }, code: 'VALIDATION_FAILED' },
];

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const backend = await startDevBackend({ port: 0, toolTimeoutMs: 60_000 });
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: o.workspace, projectKey: 'soak', log: silentLogger, limits: { maxConcurrent: o.maxConcurrent } });
  try {
    await backend.waitForSession((s) => s.projectKey === 'soak', 15_000);
    // The baseline must include the whole index: a build still running would be counted as growth.
    const built = (): void => {
      if (peekCodeIntel(host.workspace)?.index.isReady !== true) throw new Error('the warm-up ended before the code index was built');
    };
    const indexBuilt = async (): Promise<void> => peekCodeIntel(host.workspace)?.index.ready();
    return await soakAgainst(backend, processMemory(), { indexBuilt, ...o }, () => `host load ${JSON.stringify(host.dispatcher.load)}`, built);
  } finally {
    host.stop();
    await backend.close();
  }
}

/**
 * The soak itself, through `backend` to the one IDE connected to it (the headless host or VS
 * Code), with memory read by `memory`. `status` adds a word to the progress lines; `afterWarmUp`
 * may check the host once the warm-up is over (it throws when the host is not warm).
 */
export async function soakAgainst(backend: DevBackend, memory: MemoryProbe, o: SoakOptions, status: () => string = () => '', afterWarmUp: () => void = () => undefined): Promise<SoakReport> {
  const say = o.log ?? (() => undefined);
  const total = o.calls ?? 6000;
  const rate = o.rate ?? 50;
  const maxMs = (o.maxSeconds ?? 240) * 1000;
  const hostileEvery = o.hostileEvery ?? 20;
  const files = javaFiles(o.workspace);
  if (files.length === 0) throw new Error(`no Java files under ${o.workspace}`);
  // read_file ranges stay inside each file (a start past the end is a VALIDATION_FAILED by design).
  const lineCounts = new Map(files.map((f) => [f, fs.readFileSync(path.join(o.workspace, f), 'utf8').split('\n').length]));
  const classes = files.map((f) => path.basename(f, '.java')).filter((c) => /^[A-Z]\w+$/.test(c));
  const random = prng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;

  const frames = new Map<string, number>();
  const off = backend.onMessage((m) => {
    if (m.message?.type !== 'TOOL_RESULT') return;
    const id = String((m.message.data as { toolCallId?: unknown }).toolCallId);
    frames.set(id, (frames.get(id) ?? 0) + 1);
  });
  try {
    const makeCall = (i: number): { tool: string; params: Record<string, unknown>; expect?: string } => {
      if (hostileEvery > 0 && i % hostileEvery === hostileEvery - 1) {
        const h = HOSTILE[(i / hostileEvery) % HOSTILE.length | 0] as (typeof HOSTILE)[number];
        return { tool: h.tool, params: h.params, expect: h.code };
      }
      const r = random();
      if (r < 0.5) {
        const file = pick(files);
        const start = 1 + Math.floor(random() * Math.max(1, (lineCounts.get(file) ?? 1) - 1));
        return { tool: 'read_file', params: { relativePath: file, start_line: start, end_line: start + 60 } };
      }
      if (r < 0.75) {
        const dir = path.posix.dirname(pick(files));
        // text_search is the backend's name for the same project search (docs/protocol.md §5.3): both are exercised.
        return { tool: r < 0.65 ? 'grep_file' : 'text_search', params: { pattern: pick(PATTERNS), relativePath: dir, limit: 20, context_lines: 1 } };
      }
      return { tool: 'read_class', params: { className: pick(classes) } };
    };

    // Warm-up: the code index, the search engine, JIT; then the baseline. A method of a class that
    // exists nowhere needs every declaration: its NOT_FOUND suggests names from every file, so even
    // the cold call_chain (intel/neededFilesIndex.ts, which answers most chains before the index) waits for
    // the first pass; until then it answers TIMEOUT. The call sites follow (`indexBuilt`).
    const t0 = Date.now();
    for (;;) {
      const first = (await backend.callTool('call_chain', { method: 'NoSuchClassAnywhere.none', depth: 1 }, { timeoutMs: 300_000 })).data as { success: boolean; code?: string };
      if (first.code === 'NOT_FOUND') break;
      if (first.success || first.code !== 'TIMEOUT') throw new Error(`warm-up: unexpected answer ${JSON.stringify(first).slice(0, 300)}`);
      if (Date.now() - t0 > 300_000) throw new Error('the code index was not ready within 5 minutes');
    }
    await o.indexBuilt?.();
    for (let i = 0; i < 20; i++) await backend.callTool(makeCall(i).tool, makeCall(i).params);
    say(`warm-up (code index included) ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    afterWarmUp();
    frames.clear();
    const baseline = await memory.settled();
    let peak: MemorySample = baseline;

    const latencies: number[] = [];
    const byTool = new Map<string, number[]>();
    const errors: Record<string, number> = {};
    const unexpected: string[] = [];
    const ids: string[] = [];
    const started = performance.now();
    const inFlight: Promise<void>[] = [];
    let sent = 0;
    const sampler = setInterval(() => {
      void memory.sample().then(
        (m) => (peak = { heapUsed: Math.max(peak.heapUsed, m.heapUsed), rss: Math.max(peak.rss, m.rss) }),
        () => undefined,
      );
    }, 250);
    const progress = setInterval(() => say(`${sent} sent, ${latencies.length} answered ${status()}`), 10_000);
    try {
      while (sent < total && performance.now() - started < maxMs) {
        // Open loop: calls start on schedule whether or not earlier ones have answered.
        const due = started + (sent * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        const c = makeCall(sent++);
        const t = performance.now();
        inFlight.push(
          backend.callTool(c.tool, c.params).then(
            (msg) => {
              const ms = performance.now() - t;
              const data = msg.data as { toolCallId: string; success: boolean; code?: string; error?: string };
              ids.push(data.toolCallId);
              latencies.push(ms);
              const list = byTool.get(c.tool) ?? [];
              list.push(ms);
              byTool.set(c.tool, list);
              if (!data.success) {
                const code = data.code ?? '?';
                errors[code] = (errors[code] ?? 0) + 1;
                if (code !== c.expect) unexpected.push(`${c.tool} ${JSON.stringify(c.params)}: ${code} ${(data.error ?? '').slice(0, 160)}`);
              } else if (c.expect) unexpected.push(`${c.tool} ${JSON.stringify(c.params)}: succeeded, expected ${c.expect}`);
            },
            (e: unknown) => {
              unexpected.push(`${c.tool}: no answer (${e instanceof Error ? e.message : String(e)})`);
              errors.NO_ANSWER = (errors.NO_ANSWER ?? 0) + 1;
            },
          ),
        );
      }
      await Promise.all(inFlight);
    } finally {
      clearInterval(sampler);
      clearInterval(progress);
    }
    const seconds = (performance.now() - started) / 1000;
    // Late duplicates would arrive now, if there were any.
    await new Promise((r) => setTimeout(r, 200));
    const notExactlyOnce = ids.filter((id) => frames.get(id) !== 1).map((id) => `${id}: ${frames.get(id) ?? 0} results`);
    const known = new Set(ids);
    for (const id of frames.keys()) if (!known.has(id)) notExactlyOnce.push(`${id}: a result for a call never made`);
    inFlight.length = 0;
    const rightAfter = await memory.settled();
    if (o.idleBeforeAfterMs) await new Promise((r) => setTimeout(r, o.idleBeforeAfterMs));
    const after = o.idleBeforeAfterMs ? await memory.settled() : rightAfter;
    const tools: SoakReport['byTool'] = {};
    for (const [tool, list] of byTool) tools[tool] = { count: list.length, p50Ms: quantile(list, 0.5), p99Ms: quantile(list, 0.99) };
    return {
      calls: sent,
      seconds,
      throughput: latencies.length / seconds,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
      maxMs: quantile(latencies, 1),
      byTool: tools,
      errors,
      unexpected,
      notExactlyOnce,
      memory: { baseline, peak, rightAfter, after, heapGrowth: after.heapUsed - baseline.heapUsed, rssGrowth: after.rss - baseline.rss },
    };
  } finally {
    off();
  }
}

/** Heap after the soak within this much of the baseline counts as "back to baseline". */
export const HEAP_GROWTH_LIMIT = 32 * 1048576;

/** `12.3 MB`, or `n/a` for a figure the probe could not see. */
export const mbText = (bytes: number): string => (Number.isNaN(bytes) ? 'n/a' : `${(bytes / 1048576).toFixed(1)} MB`);

export function describeSoak(r: SoakReport): string {
  const tools = Object.entries(r.byTool)
    .map(([t, s]) => `${t} ${s.count} (p50 ${s.p50Ms.toFixed(1)} ms, p99 ${s.p99Ms.toFixed(1)} ms)`)
    .join('; ');
  const m = r.memory;
  return [
    `${r.calls} calls in ${r.seconds.toFixed(1)} s: ${r.throughput.toFixed(1)} calls/s; latency p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, max ${r.maxMs.toFixed(0)} ms`,
    `by tool: ${tools}`,
    `errors by code: ${JSON.stringify(r.errors)}; unexpected: ${r.unexpected.length}; not answered exactly once: ${r.notExactlyOnce.length}`,
    `memory after gc: heap ${mbText(m.baseline.heapUsed)} → ${mbText(m.after.heapUsed)} (${m.heapGrowth >= 0 ? '+' : ''}${mbText(m.heapGrowth)}; peak ${mbText(m.peak.heapUsed)}), ` +
      `RSS ${mbText(m.baseline.rss)} → ${mbText(m.after.rss)} (${m.rssGrowth >= 0 ? '+' : ''}${mbText(m.rssGrowth)}; peak ${mbText(m.peak.rss)})`,
  ].join('\n');
}
