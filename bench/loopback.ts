// Loopback figures through the dev backend and the headless host (a child process, as the IDE
// would be): grep_file against `rg` run directly, read_file round trips against a bare `ws` floor.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { DevBackend } from '../src/devBackend/server';
import { findOnPath } from '../src/node/nodeWorkspace';
import { grepFileRgArgs, log, median, ms, now, quantile, startChild, type Row } from './lib';

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

export async function benchGrep(backend: DevBackend, root: string): Promise<Row[]> {
  const rg = findOnPath('rg');
  if (!rg) throw new Error('rg is not on PATH (apt-get install ripgrep)');
  const rows: Row[] = [];
  for (const c of GREP_CASES) {
    const params = { pattern: c.pattern, regex: c.regex };
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
    log(`grep ${c.name}: ours ${ours.map((x) => x.toFixed(0)).join(' ')} | rg ${theirs.map((x) => x.toFixed(0)).join(' ')}`);
    rows.push({
      figure: `grep_file ${c.name} \`${c.pattern}\`, whole tree (TOOL_CALL → TOOL_RESULT)`,
      ours: ms(o),
      comparison: `rg ${ms(t)}`,
      ratio: `${ratio.toFixed(2)}×`,
      target: '≤ 1.3× rg',
      pass: ratio <= 1.3,
      note: `median of ${GREP_RUNS}, alternating; the tool's own executionTime ${exec.length ? ms(median(exec)) : '?'} (the rest is the two WebSocket hops); ${rgFirst.matches} matching lines (tool reports ${String(total ?? '?')}), rg --json output ${Math.round(rgFirst.bytes / 1024)} KB`,
      data: { oursMs: ours, rgMs: theirs, executionTimeMs: exec, rgMatches: rgFirst.matches, toolTotal: total, rgJsonBytes: rgFirst.bytes },
    });
  }
  return rows;
}

/** The Java file whose size is closest to 4 KB (deterministic: ties broken by path). */
export function pick4kFile(root: string): { rel: string; size: number } {
  let best: { rel: string; size: number } | undefined;
  for (const rel of fs.readdirSync(path.join(root, 'java.base', 'java', 'util'), { recursive: true, encoding: 'utf8' }).sort()) {
    if (!rel.endsWith('.java')) continue;
    const size = fs.statSync(path.join(root, 'java.base', 'java', 'util', rel)).size;
    if (!best || Math.abs(size - 4096) < Math.abs(best.size - 4096)) best = { rel: `java.base/java/util/${rel}`, size };
  }
  if (!best) throw new Error('no Java file found for the read_file benchmark');
  return best;
}

export const READ_CALLS = 2000;
export const READ_IN_FLIGHT = 50;
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

interface Floor {
  call(): Promise<void>;
  close(): Promise<void>;
}

/** A bare `ws` server here, the echo child there, TOOL_CALLs of the dev backend's shape. */
async function startFloor(template: string, relativePath: string): Promise<Floor> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const port = (wss.address() as { port: number }).port;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-bench-floor-')), 'template.json');
  fs.writeFileSync(file, template);
  const socket = new Promise<WebSocket>((r) => wss.once('connection', r));
  const child = startChild('echoChild.ts', [`ws://127.0.0.1:${port}/`, file]);
  await child.ready;
  const ws = await socket;
  const pending = new Map<string, () => void>();
  ws.on('message', (data: Buffer) => {
    const msg = JSON.parse(data.toString('utf8')) as { data?: { toolCallId?: string } };
    const id = msg.data?.toolCallId ?? '';
    pending.get(id)?.();
    pending.delete(id);
  });
  let seq = 0;
  return {
    call: () =>
      new Promise<void>((resolve) => {
        const id = `read_file-${(seq++).toString(36).padStart(8, '0')}-${Date.now()}`;
        pending.set(id, resolve);
        ws.send(JSON.stringify({ type: 'TOOL_CALL', toolCallId: id, toolName: 'read_file', params: { relativePath, webSocketSessionId: 'bench' }, webSocketSessionId: 'bench' }));
      }),
    close: async () => {
      ws.close();
      await child.stop();
      await new Promise<void>((r) => wss.close(() => r()));
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    },
  };
}

export async function benchReadFile(backend: DevBackend, root: string): Promise<Row[]> {
  const target = pick4kFile(root);
  const params = { relativePath: target.rel };
  // capture one real TOOL_RESULT frame: the floor sends the same bytes back
  let template = '';
  const off = backend.onMessage((e) => {
    if (!template && e.message?.type === 'TOOL_RESULT') template = e.text;
  });
  const first = await backend.callTool('read_file', params);
  off();
  const firstData = first.data as Json;
  if (firstData.success !== true) throw new Error(`read_file failed: ${String(firstData.error)}`);
  const id = String(firstData.toolCallId ?? first.toolCallId ?? '');
  if (!template || !id || !template.includes(id)) throw new Error('could not capture the TOOL_RESULT frame');
  template = template.split(id).join('@@TOOL_CALL_ID@@');
  const resultBytes = Buffer.byteLength(template);

  const floor = await startFloor(template, target.rel);
  try {
    return await measureReads(backend, floor, params, target, resultBytes);
  } finally {
    await floor.close();
  }
}

async function measureReads(backend: DevBackend, floor: Floor, params: { relativePath: string }, target: { rel: string; size: number }, resultBytes: number): Promise<Row[]> {
  const oursCall = async (): Promise<void> => {
    const r = await backend.callTool('read_file', params);
    if ((r.data as Json).success !== true) throw new Error('read_file failed');
  };
  // warm up both (JIT, socket buffers)
  await closedLoop(oursCall, 300, READ_IN_FLIGHT);
  await closedLoop(floor.call, 300, READ_IN_FLIGHT);
  const rounds: { ours: { p50: number; p99: number; wall: number }; floor: { p50: number; p99: number; wall: number } }[] = [];
  for (let i = 0; i < READ_ROUNDS; i++) {
    const o = await closedLoop(oursCall, READ_CALLS, READ_IN_FLIGHT);
    const f = await closedLoop(floor.call, READ_CALLS, READ_IN_FLIGHT);
    rounds.push({
      ours: { p50: quantile(o.lat, 0.5), p99: quantile(o.lat, 0.99), wall: o.wallMs },
      floor: { p50: quantile(f.lat, 0.5), p99: quantile(f.lat, 0.99), wall: f.wallMs },
    });
    log(`read_file round ${i + 1}: ours p50 ${o.lat.length && quantile(o.lat, 0.5).toFixed(2)} p99 ${quantile(o.lat, 0.99).toFixed(2)} (${o.wallMs.toFixed(0)} ms) | floor p50 ${quantile(f.lat, 0.5).toFixed(2)} p99 ${quantile(f.lat, 0.99).toFixed(2)} (${f.wallMs.toFixed(0)} ms)`);
  }
  // diagnostic: one call at a time, the latency without queueing
  const serial = { ours: await closedLoop(oursCall, SERIAL_CALLS, 1), floor: await closedLoop(floor.call, SERIAL_CALLS, 1) };
  const m = (sel: (r: (typeof rounds)[number]) => number) => median(rounds.map(sel));
  const oP50 = m((r) => r.ours.p50);
  const oP99 = m((r) => r.ours.p99);
  const fP50 = m((r) => r.floor.p50);
  const fP99 = m((r) => r.floor.p99);
  const note = `${target.rel} (${target.size} B; TOOL_RESULT ${resultBytes} B), ${READ_CALLS} calls, ${READ_IN_FLIGHT} in flight, median of ${READ_ROUNDS} rounds; throughput ours ${Math.round((READ_CALLS / m((r) => r.ours.wall)) * 1000)}/s, floor ${Math.round((READ_CALLS / m((r) => r.floor.wall)) * 1000)}/s`;
  return [
    {
      figure: 'read_file 4 KB round trip, p50',
      ours: ms(oP50),
      comparison: `bare ws ${ms(fP50)}`,
      ratio: `+${(oP50 - fP50).toFixed(2)} ms`,
      target: '≤ floor + 2 ms',
      pass: oP50 <= fP50 + 2,
      note,
      data: { rounds, file: target, resultBytes },
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
