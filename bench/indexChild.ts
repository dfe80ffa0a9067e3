// One cold build of the Java code index over a folder, alone in a fresh process so its memory is
// its own: wall and CPU time, heap after a full GC, peak RSS, call resolution over every method,
// a warm start from the cache file it wrote, and the latencies of read_class, read_method and
// call_chain (depth 1 and 3) run on the built index, in process. Prints one JSON line.
//   node --expose-gc --import tsx bench/indexChild.ts ROOT
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CallGraph } from '../src/core/code/index/callGraph';
import { CodeIndex } from '../src/core/code/index/codeIndex';
import { callChainTool } from '../src/core/tools/callChain';
import { readClassTool } from '../src/core/tools/readClass';
import { readMethodTool } from '../src/core/tools/readMethod';
import { cacheFileName, codeIntelFor, configureCodeIndexes } from '../src/core/code/intel/intel';
import { silentLogger } from '../test/support/silentLogger';
import type { ToolDefinition } from '../src/core/tools/tool';
import { NodeWorkspace } from '../src/node/nodeWorkspace';

/** What each tool is asked, in turn (every name is in java.base). */
const QUERIES: Readonly<Record<string, { tool: ToolDefinition; params: Record<string, unknown>[] }>> = {
  read_class: { tool: readClassTool, params: ['java.util.ArrayList', 'java.util.HashMap', 'java.lang.String', 'java.util.concurrent.ConcurrentHashMap', 'java.lang.Thread'].map((className) => ({ className })) },
  read_method: { tool: readMethodTool, params: [['java.util.HashMap', 'putVal'], ['java.util.ArrayList', 'add'], ['java.lang.String', 'indexOf'], ['java.lang.Thread', 'start']].map(([className, methodName]) => ({ className, methodName })) },
  call_chain_1: { tool: callChainTool, params: [{ method: 'java.util.HashMap.putVal', direction: 'both', depth: 1 }] },
  call_chain_3: { tool: callChainTool, params: [{ method: 'java.util.HashMap.putVal', direction: 'both', depth: 3 }] },
};
const CALLS_EACH = 40;

const root = process.argv[2];
if (!root) {
  process.stderr.write('usage: indexChild.ts ROOT\n');
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;

void (async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-bench-index-'));
  const cacheFile = path.join(tmp, 'index.json');
  try {
    gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    const index = new CodeIndex(new NodeWorkspace(root), { cacheFile });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await index.ready(); // parse every file, then save the cache
    const readyMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    gc?.();
    const mem = process.memoryUsage();

    const graph = new CallGraph(index);
    let sites = 0;
    let resolved = 0;
    const t1 = performance.now();
    for (const owner of index.typeEntries()) {
      for (const method of owner.type.methods) {
        for (const r of graph.callees({ owner, method })) {
          sites++;
          if (r.owner) resolved++;
        }
      }
    }
    const resolveMs = performance.now() - t1;

    const warm = new CodeIndex(new NodeWorkspace(root), { cacheFile });
    const t2 = performance.now();
    await warm.ready();
    const warmMs = performance.now() - t2;

    // The tools, as the dispatcher runs them, on an index restored from that cache.
    const ws = new NodeWorkspace(root);
    fs.copyFileSync(cacheFile, path.join(tmp, cacheFileName(ws.root)));
    configureCodeIndexes({ cacheDir: () => tmp });
    const intel = codeIntelFor(ws);
    await intel.index.ready();
    const latencies: Record<string, number[]> = {};
    for (const [name, q] of Object.entries(QUERIES)) {
      const lat: number[] = [];
      for (let i = 0; i < CALLS_EACH + 2; i++) {
        const params = q.params[i % q.params.length] as Record<string, unknown>;
        const s = performance.now();
        await q.tool.handler(q.tool.params.parse(params), { workspace: ws, callId: `b${i}`, signal: new AbortController().signal, log: silentLogger, paths: {} });
        if (i >= 2) lat.push(performance.now() - s); // the first two fill the lookup maps and the callers cache
      }
      latencies[name] = lat;
    }
    process.stdout.write(
      `${JSON.stringify({
        files: index.fileCount,
        buildMs: index.lastBuild?.ms,
        readyMs,
        cpuUserMs: cpu.user / 1000,
        cpuSystemMs: cpu.system / 1000,
        heapUsed: mem.heapUsed - heap0,
        heapUsedTotal: mem.heapUsed,
        rss: mem.rss,
        maxRss: process.resourceUsage().maxRSS * 1024,
        sites,
        resolved,
        resolveMs,
        cacheBytes: fs.statSync(cacheFile).size,
        warmMs,
        warmParsed: warm.lastBuild?.parsed,
        latencies,
      })}\n`,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
})();
