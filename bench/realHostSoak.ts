// The soak through the real VS Code extension host: the VSIX (packaged from the working tree, or
// BENCH_VSIX) installed into code-server 1.100.3, java.base of the JDK sources open, thousands of
// mixed calls (read_file, grep_file, text_search, read_class, hostile ones; bench/soak.ts's mix)
// at a steady rate from a dev backend on loopback. Memory is the extension host process's own:
//
// - its pid from VS Code's log ("Extension host with pid N started"), checked in /proc;
// - RSS from /proc/<pid>/status (VmRSS), sampled every 250 ms for the peak;
// - the JS heap after a full GC through the inspector: SIGUSR1 makes Node open its inspector on
//   127.0.0.1:9229 (loopback only), and the DevTools protocol's HeapProfiler.collectGarbage and
//   Runtime.getHeapUsage read it. When the port is taken, only RSS is reported and said so.
//
// Baseline after the warm-up (index built); "after" once the calls are done and 10 s have passed.
//
//   node --import tsx bench/realHostSoak.ts [--calls 4000] [--rate 40]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { startDevBackend } from '../src/devBackend/server';
import { CodeServer, findCodeServer, openWorkbench } from '../test/support/codeServer';
import { ensureCorpus, log, type Row } from './lib';
import { packageVsix } from './realHost';
import { describeSoak, HEAP_GROWTH_LIMIT, mbText, soakAgainst, type MemoryProbe, type MemorySample } from '../test/support/soak';
import { soakCallsRow } from './soak';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** RSS after settling may stay this far above its baseline (V8 and the allocator keep some pages). */
export const RSS_GROWTH_LIMIT = 64 * 1048576;

/** The extension host's pid, from the log VS Code writes when it starts one. */
async function extensionHostPid(userDataDir: string, timeoutMs = 60_000): Promise<number> {
  const logs = path.join(userDataDir, 'logs');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const files = fs.existsSync(logs) ? fs.readdirSync(logs, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('remoteexthost.log')) : [];
    for (const f of files) {
      const pid = Number(/Extension host with pid (\d+) started/.exec(fs.readFileSync(path.join(logs, f), 'utf8'))?.[1]);
      if (pid && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('extensionHost')) return pid;
    }
    await sleep(250);
  }
  throw new Error('no extension host pid in the logs');
}

/**
 * Resolves once the extension's log (its output channel, which VS Code writes under the logs
 * folder) says the code index has every call site (indexStore.ts logs it at the end of a build).
 */
async function indexBuiltPerLog(userDataDir: string, timeoutMs = 300_000): Promise<void> {
  const logs = path.join(userDataDir, 'logs');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const files = fs.existsSync(logs) ? fs.readdirSync(logs, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('Agent Bridge.log')) : [];
    if (files.some((f) => /code index: call sites of \d+ files/.test(fs.readFileSync(path.join(logs, f), 'utf8')))) return;
    await sleep(1000);
  }
  throw new Error("the extension's log did not say the code index was built");
}

function rssOf(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return kb * 1024;
}

/** A DevTools-protocol session with a Node process's inspector. */
class Inspector {
  private next = 1;
  private readonly waiting = new Map<number, (m: { result?: unknown; error?: { message: string } }) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as { id?: number; result?: unknown; error?: { message: string } };
      if (m.id !== undefined) this.waiting.get(m.id)?.(m);
    });
  }

  /** Opens the inspector of `pid` (SIGUSR1) and connects to it on 127.0.0.1:9229. */
  static async attach(pid: number): Promise<Inspector> {
    process.kill(pid, 'SIGUSR1');
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const list = (await (await fetch('http://127.0.0.1:9229/json/list', { signal: AbortSignal.timeout(2000) })).json()) as { webSocketDebuggerUrl: string }[];
        const url = list[0]?.webSocketDebuggerUrl;
        if (url) {
          const socket = new WebSocket(url);
          await new Promise<void>((resolve, reject) => {
            socket.once('open', () => resolve());
            socket.once('error', reject);
          });
          const inspector = new Inspector(socket);
          const pidThere = Number(await inspector.evaluate('process.pid'));
          if (pidThere !== pid) {
            socket.close();
            throw new Error(`the inspector on 127.0.0.1:9229 belongs to pid ${pidThere}, not the extension host (${pid})`);
          }
          return inspector;
        }
      } catch (e) {
        if (e instanceof Error && /belongs to pid/.test(e.message)) throw e;
      }
      if (Date.now() > deadline) throw new Error('the extension host opened no inspector on 127.0.0.1:9229 (port taken?)');
      await sleep(200);
    }
  }

  call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no answer`)), 30_000);
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        if (m.error) reject(new Error(`${method}: ${m.error.message}`));
        else resolve(m.result);
      });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  async evaluate(expression: string): Promise<unknown> {
    const r = (await this.call('Runtime.evaluate', { expression, returnByValue: true })) as { result: { value: unknown } };
    return r.result.value;
  }

  async heapUsed(): Promise<number> {
    return ((await this.call('Runtime.getHeapUsage')) as { usedSize: number }).usedSize;
  }

  close(): void {
    this.socket.close();
  }
}

/** The extension host's memory: RSS from /proc, the heap (after a real GC) through the inspector when it opened. */
function extensionHostMemory(pid: number, inspector: Inspector | undefined): MemoryProbe {
  const heap = async (): Promise<number> => (inspector ? inspector.heapUsed() : Number.NaN);
  return {
    sample: async () => ({ heapUsed: await heap(), rss: rssOf(pid) }),
    settled: async (): Promise<MemorySample> => {
      for (let i = 0; i < 3; i++) {
        await inspector?.call('HeapProfiler.collectGarbage');
        await sleep(100);
      }
      return { heapUsed: await heap(), rss: rssOf(pid) };
    },
  };
}

export interface RealSoakOptions {
  readonly calls?: number;
  readonly rate?: number;
}

/** For bench/run.ts: the soak in VS Code's extension host over `<corpus>/java.base`, as table rows. */
export async function benchRealHostSoak(corpusRoot: string, options: RealSoakOptions = {}): Promise<Row[]> {
  findCodeServer(); // throws with a hint when scripts/setup-test-host.sh has not run
  const workspace = fs.existsSync(path.join(corpusRoot, 'java.base')) ? path.join(corpusRoot, 'java.base') : corpusRoot;
  const say = (line: string): void => void process.stderr.write(`[realsoak] ${line}\n`);
  const given = process.env.BENCH_VSIX;
  const packed = given ? { vsix: path.resolve(given), ms: 0, stage: '' } : packageVsix();
  const backend = await startDevBackend({ port: 0, toolTimeoutMs: 120_000 });
  let server: CodeServer | undefined;
  let bench: Awaited<ReturnType<typeof openWorkbench>> | undefined;
  let inspector: Inspector | undefined;
  try {
    server = await CodeServer.start({
      workspace,
      settings: { 'agentBridge.serverUrl': backend.wsUrl('/ws/agent/chat'), 'agentBridge.projectKey': 'realsoak', 'files.watcherExclude': { '**': true } },
    });
    await server.installExtension(packed.vsix);
    bench = await openWorkbench(server, { folder: workspace });
    await backend.waitForSession((s) => s.projectKey === 'realsoak', 120_000);
    const pid = await extensionHostPid(server.userDataDir);
    let heapNote = 'heap after a full GC through the inspector (SIGUSR1, 127.0.0.1:9229)';
    try {
      inspector = await Inspector.attach(pid);
    } catch (e) {
      heapNote = `heap not measured: ${(e as Error).message}`;
    }
    say(`extension host pid ${pid}, RSS ${mbText(rssOf(pid))}; ${heapNote}`);
    const memory = extensionHostMemory(pid, inspector);
    const userDataDir = server.userDataDir;
    const indexBuilt = (): Promise<void> => indexBuiltPerLog(userDataDir);
    const r = await soakAgainst(backend, memory, { workspace, calls: options.calls ?? 4000, rate: options.rate ?? 40, maxSeconds: 150, log: say, indexBuilt });
    // "After settling": idle for a while, then GC and read again.
    await sleep(10_000);
    const after = await memory.settled();
    const m = { ...r.memory, after, heapGrowth: after.heapUsed - r.memory.baseline.heapUsed, rssGrowth: after.rss - r.memory.baseline.rss };
    const report = { ...r, memory: m };
    say(describeSoak(report));
    for (const u of r.unexpected.slice(0, 10)) say(`unexpected: ${u}`);
    const heapKnown = !Number.isNaN(m.heapGrowth);
    return [
      soakCallsRow(report, "soak in VS Code's extension host", { ...report, pid }),
      {
        figure: "soak in VS Code's extension host: its memory, baseline → after (10 s idle, GC)",
        ours: `heap ${mbText(m.baseline.heapUsed)} → ${mbText(m.after.heapUsed)}, RSS ${mbText(m.baseline.rss)} → ${mbText(m.after.rss)}`,
        comparison: `peak heap ${mbText(m.peak.heapUsed)}, peak RSS ${mbText(m.peak.rss)}`,
        ratio: '',
        target: heapKnown
          ? `heap back within ${mbText(HEAP_GROWTH_LIMIT)} and RSS within ${mbText(RSS_GROWTH_LIMIT)} of baseline`
          : `RSS back within ${mbText(RSS_GROWTH_LIMIT)} of baseline`,
        pass: (!heapKnown || m.heapGrowth < HEAP_GROWTH_LIMIT) && m.rssGrowth < RSS_GROWTH_LIMIT,
        note: `extension host pid ${pid} (/proc VmRSS); ${heapNote}`,
      },
    ];
  } finally {
    inspector?.close();
    await bench?.close().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    await backend.close();
    if (packed.stage) fs.rmSync(packed.stage, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { calls: { type: 'string' }, rate: { type: 'string' } } });
  const rows = await benchRealHostSoak(ensureCorpus().root, {
    calls: values.calls ? Number(values.calls) : undefined,
    rate: values.rate ? Number(values.rate) : undefined,
  });
  for (const row of rows) log(`${row.pass === false ? '❌' : '✅'} ${row.figure}: ${row.ours} (${row.comparison})`);
  process.exitCode = rows.some((r) => r.pass === false) ? 1 : 0;
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
