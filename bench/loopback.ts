// Loopback figures through the dev backend and the headless host (a child process, as the IDE
// would be): grep_file against `rg` run directly, read_file round trips against a bare `ws` floor.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { DevBackend } from '../src/devBackend/server';
import { findOnPath } from '../src/node/nodeWorkspace';
import { grepFileRgArgs, log, median, ms, now, quantile, startChild, type Child, type Row } from './lib';

type Json = Record<string, unknown>;

export interface GrepCase {
  readonly name: string;
  readonly pattern: string;
  readonly regex: boolean;
}

export const GREP_CASES: readonly GrepCase[] = [
  { name: 'literal', pattern: 'synchronized', regex: false },
  { name: 'regex', pattern: 'new \\w+Exception\\(', regex: true },
];
const GREP_RUNS = 11;

/** `rg` with exactly the options grep_file gives it (ripgrepArgs of the same request), stdout drained. */
async function runRg(rg: string, root: string, c: GrepCase): Promise<{ ms: number; matches: number; bytes: number }> {
  const args = await grepFileRgArgs(root, c.pattern, c.regex);
  const t0 = now();
  return new Promise((resolve, reject) => {
    // A pipe, never /dev/null: rg stops at the first match when it sees its output is /dev/null.
    const child = spawn(rg, args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    let bytes = 0;
    let tail = '';
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      tail = (tail + chunk.toString('latin1')).slice(-4096); // the summary line is last
    });
    child.on('error', reject);
    child.on('close', () => {
      const elapsed = now() - t0;
      const all = [...tail.matchAll(/"matched_lines":(\d+)/g)]; // the last one is the summary's
      const last = all[all.length - 1];
      resolve({ ms: elapsed, matches: last ? Number(last[1]) : Number.NaN, bytes });
    });
  });
}

function totalOf(r: Json): number | undefined {
  const data = r.data as Json | undefined;
  const structured = data?.structured as Json | undefined;
  if (typeof structured?.totalMatches === 'number') return structured.totalMatches;
  const m = /(\d[\d,]*) match(?:es|ing lines)?/i.exec(String(data?.result ?? ''));
  return m ? Number((m[1] as string).replace(/,/g, '')) : undefined;
}

/** grep_file ≤ this × rg (issue #15). */
const GREP_TARGET = 1.2;

export async function benchGrep(backend: DevBackend, root: string, tree = 'JDK', limits: readonly number[] = [20, 1000]): Promise<Row[]> {
  const rg = findOnPath('rg');
  if (!rg) throw new Error('rg is not on PATH (apt-get install ripgrep)');
  const rows: Row[] = [];
  for (const c of GREP_CASES) for (const limit of limits) {
    const params = { pattern: c.pattern, regex: c.regex, limit };
    // warm the page cache and both paths once
    const first = await backend.callTool('grep_file', params, { timeoutMs: 120_000 });
    const firstData = first.data as Json;
    if (firstData.success !== true) throw new Error(`grep_file ${c.name} failed: ${String(firstData.error)}`);
    const rgFirst = await runRg(rg, root, c);
    const ours: number[] = [];
    const theirs: number[] = [];
    const exec: number[] = [];
    for (let i = 0; i < GREP_RUNS; i++) {
      // alternate, so a burst of load on the machine hits both sides alike
      const t0 = now();
      const r = await backend.callTool('grep_file', params, { timeoutMs: 120_000 });
      ours.push(now() - t0);
      const d = r.data as Json;
      if (d.success !== true) throw new Error(`grep_file ${c.name} failed`);
      if (typeof d.executionTime === 'number') exec.push(d.executionTime);
      theirs.push((await runRg(rg, root, c)).ms);
    }
    const o = median(ours);
    const t = median(theirs);
    const ratio = o / t;
    const total = totalOf(first);
    log(`grep ${c.name} limit ${limit} (${tree}): ours ${ours.map((x) => x.toFixed(0)).join(' ')} | rg ${theirs.map((x) => x.toFixed(0)).join(' ')}`);
    rows.push({
      figure: `grep_file ${c.name} \`${c.pattern}\`, limit ${limit}, ${tree} tree (TOOL_CALL → TOOL_RESULT)`,
      ours: ms(o),
      comparison: `rg ${ms(t)}`,
      ratio: `${ratio.toFixed(2)}×`,
      target: `≤ ${GREP_TARGET}× rg`,
      pass: ratio <= GREP_TARGET,
      note: `median of ${GREP_RUNS}, alternating; the tool's own executionTime ${exec.length ? ms(median(exec)) : '?'} (the rest is the two WebSocket hops); ${rgFirst.matches} matching lines (tool reports ${String(total ?? '?')}), rg --json output ${Math.round(rgFirst.bytes / 1024)} KB`,
      data: { oursMs: ours, rgMs: theirs, executionTimeMs: exec, rgMatches: rgFirst.matches, toolTotal: total, rgJsonBytes: rgFirst.bytes },
    });
  }
  return rows;
}

/** The Java file whose size is closest to 4 KB (deterministic: ties broken by path). */
function pick4kFile(root: string): { rel: string; size: number } {
  let best: { rel: string; size: number } | undefined;
  for (const rel of fs.readdirSync(path.join(root, 'java.base', 'java', 'util'), { recursive: true, encoding: 'utf8' }).sort()) {
    if (!rel.endsWith('.java')) continue;
    const size = fs.statSync(path.join(root, 'java.base', 'java', 'util', rel)).size;
    if (!best || Math.abs(size - 4096) < Math.abs(best.size - 4096)) best = { rel: `java.base/java/util/${rel}`, size };
  }
  if (!best) throw new Error('no Java file found for the read_file benchmark');
  return best;
}

const READ_CALLS = 2000;
const READ_IN_FLIGHT = 50;
const READ_ROUNDS = 3;
const SERIAL_CALLS = 500;

/** `total` calls with `inFlight` outstanding at all times; per-call latencies in ms. */
async function closedLoop(call: () => Promise<void>, total: number, inFlight: number): Promise<{ lat: number[]; wallMs: number }> {
  const lat: number[] = [];
  let started = 0;
  const t0 = now();
  const worker = async (): Promise<void> => {
    while (started < total) {
      started++;
      const s = now();
      await call();
      lat.push(now() - s);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { lat, wallMs: now() - t0 };
}


/** An IDE process connected to a bare `ws` server of ours, and the backend's side of the calls. */
interface Ide {
  readonly child: Child;
  /** Sends a TOOL_CALL, resolves with the TOOL_RESULT frame as received. */
  callRaw(toolName: string, params: Record<string, unknown>): Promise<{ id: string; text: string }>;
  close(): Promise<void>;
}

async function startIde(spawnIde: (url: string) => Child): Promise<Ide> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const port = (wss.address() as { port: number }).port;
  const socket = new Promise<WebSocket>((r) => wss.once('connection', r));
  const child = spawnIde(`ws://127.0.0.1:${port}/ws/agent/chat`);
  await child.ready;
  const ws = await socket;
  const pending = new Map<string, (text: string) => void>();
  ws.on('message', (data: Buffer) => {
    const text = data.toString('utf8');
    const msg = JSON.parse(text) as { type?: string; data?: { toolCallId?: string } };
    if (msg.type !== 'TOOL_RESULT') return;
    const id = msg.data?.toolCallId ?? '';
    pending.get(id)?.(text);
    pending.delete(id);
  });
  let seq = 0;
  return {
    child,
    callRaw: (toolName, params) =>
      new Promise((resolve) => {
        const id = `${toolName}-${(seq++).toString(36).padStart(8, '0')}-${Date.now()}`;
        pending.set(id, (text) => resolve({ id, text }));
        ws.send(JSON.stringify({ type: 'TOOL_CALL', toolCallId: id, toolName, params: { ...params, webSocketSessionId: 'bench' }, webSocketSessionId: 'bench' }));
      }),
    close: async () => {
      ws.close();
      await child.stop();
      await new Promise<void>((r) => wss.close(() => r()));
    },
  };
}

/**
 * read_file round trips against the protocol floor. Both are driven by the same bare `ws` server
 * here (the backend's part: send a TOOL_CALL, match the TOOL_RESULT by its id), so the only
 * difference is the IDE process at the other end: our headless host, or an echo of the very bytes
 * our host answered with.
 */
export async function benchReadFile(root: string): Promise<Row[]> {
  const target = pick4kFile(root);
  const params = { relativePath: target.rel };
  const ours = await startIde((url) => startChild('hostChild.ts', [url, root, 'jdk'], ['--expose-gc']));
  try {
    // capture one real TOOL_RESULT frame: the floor sends the same bytes back
    const { id, text } = await ours.callRaw('read_file', params);
    const first = JSON.parse(text) as { data?: Json };
    if (first.data?.success !== true) throw new Error(`read_file failed: ${String(first.data?.error)}`);
    if (!text.includes(id)) throw new Error('could not capture the TOOL_RESULT frame');
    const template = text.split(id).join('@@TOOL_CALL_ID@@');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-bench-floor-')), 'template.json');
    fs.writeFileSync(file, template);
    const floor = await startIde((url) => startChild('echoChild.ts', [url, file]));
    try {
      return await measureReads(ours, floor, params, target, Buffer.byteLength(template));
    } finally {
      await floor.close();
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  } finally {
    await ours.close();
  }
}

async function measureReads(ours: Ide, floor: Ide, params: { relativePath: string }, target: { rel: string; size: number }, resultBytes: number): Promise<Row[]> {
  const oursCall = async (): Promise<void> => {
    const { text } = await ours.callRaw('read_file', params);
    if (!text.includes('"success":true')) throw new Error(`read_file failed: ${text.slice(0, 300)}`);
  };
  const floorCall = async (): Promise<void> => {
    await floor.callRaw('read_file', params);
  };
  // warm up both (JIT, socket buffers)
  await closedLoop(oursCall, 300, READ_IN_FLIGHT);
  await closedLoop(floorCall, 300, READ_IN_FLIGHT);
  const rounds: { ours: { p50: number; p99: number; wall: number }; floor: { p50: number; p99: number; wall: number } }[] = [];
  // the host's own CPU time per call, measured over the rounds: what throughput it can give
  const cpuBefore = await ours.child.ask('SIGUSR2');
  const floorCpuBefore = await floor.child.ask('SIGUSR2');
  for (let i = 0; i < READ_ROUNDS; i++) {
    const o = await closedLoop(oursCall, READ_CALLS, READ_IN_FLIGHT);
    const f = await closedLoop(floorCall, READ_CALLS, READ_IN_FLIGHT);
    rounds.push({
      ours: { p50: quantile(o.lat, 0.5), p99: quantile(o.lat, 0.99), wall: o.wallMs },
      floor: { p50: quantile(f.lat, 0.5), p99: quantile(f.lat, 0.99), wall: f.wallMs },
    });
    log(`read_file round ${i + 1}: ours p50 ${o.lat.length && quantile(o.lat, 0.5).toFixed(2)} p99 ${quantile(o.lat, 0.99).toFixed(2)} (${o.wallMs.toFixed(0)} ms) | floor p50 ${quantile(f.lat, 0.5).toFixed(2)} p99 ${quantile(f.lat, 0.99).toFixed(2)} (${f.wallMs.toFixed(0)} ms)`);
  }
  // diagnostic: one call at a time, the latency without queueing
  const cpuMs = (r: Record<string, unknown>): number => Number(r.cpuUserMs) + Number(r.cpuSystemMs);
  const perCallUs = (before: Record<string, unknown>, after: Record<string, unknown>): number => ((cpuMs(after) - cpuMs(before)) * 1000) / (READ_ROUNDS * READ_CALLS);
  const hostCpuPerCallUs = perCallUs(cpuBefore, await ours.child.ask('SIGUSR2'));
  const echoCpuPerCallUs = perCallUs(floorCpuBefore, await floor.child.ask('SIGUSR2'));
  const serial = { ours: await closedLoop(oursCall, SERIAL_CALLS, 1), floor: await closedLoop(floorCall, SERIAL_CALLS, 1) };
  const m = (sel: (r: (typeof rounds)[number]) => number) => median(rounds.map(sel));
  const oP50 = m((r) => r.ours.p50);
  const oP99 = m((r) => r.ours.p99);
  const fP50 = m((r) => r.floor.p50);
  const fP99 = m((r) => r.floor.p99);
  const note = `${target.rel} (${target.size} B; TOOL_RESULT ${resultBytes} B), ${READ_CALLS} calls, ${READ_IN_FLIGHT} in flight, median of ${READ_ROUNDS} rounds; throughput ours ${Math.round((READ_CALLS / m((r) => r.ours.wall)) * 1000)}/s, floor ${Math.round((READ_CALLS / m((r) => r.floor.wall)) * 1000)}/s; CPU time per call: the host ${hostCpuPerCallUs.toFixed(0)} µs (parse, check, read, format, serialize, send), the echo ${echoCpuPerCallUs.toFixed(0)} µs`;
  return [
    {
      figure: 'read_file 4 KB round trip, p50',
      ours: ms(oP50),
      comparison: `bare ws ${ms(fP50)}`,
      ratio: `+${(oP50 - fP50).toFixed(2)} ms`,
      target: '≤ floor + 2 ms',
      pass: oP50 <= fP50 + 2,
      note,
      data: { rounds, file: target, resultBytes, hostCpuPerCallUs, echoCpuPerCallUs },
    },
    {
      figure: 'read_file 4 KB round trip, p99',
      ours: ms(oP99),
      comparison: `bare ws ${ms(fP99)}`,
      ratio: `+${(oP99 - fP99).toFixed(2)} ms`,
      target: '≤ floor + 10 ms',
      pass: oP99 <= fP99 + 10,
    },
    {
      figure: 'read_file 4 KB round trip, one call at a time (diagnostic), p50',
      ours: ms(quantile(serial.ours.lat, 0.5)),
      comparison: `bare ws ${ms(quantile(serial.floor.lat, 0.5))}`,
      ratio: `+${(quantile(serial.ours.lat, 0.5) - quantile(serial.floor.lat, 0.5)).toFixed(2)} ms`,
      target: 'reported',
      pass: undefined,
      note: `${SERIAL_CALLS} sequential calls; p99 ours ${ms(quantile(serial.ours.lat, 0.99))}, floor ${ms(quantile(serial.floor.lat, 0.99))}. With 50 in flight the latency is queueing: 50 ÷ throughput`,
      data: { ours: serial.ours.lat, floor: serial.floor.lat },
    },
  ];
}
