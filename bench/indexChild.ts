// One cold build of the Java code index over a folder, alone in a fresh process so its memory is
// its own: wall and CPU time, heap after a full GC, peak RSS, call resolution over every method,
// and a warm start from the cache file it wrote. Prints one JSON line.
//   node --expose-gc --import tsx bench/indexChild.ts ROOT
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CallGraph } from '../src/core/code/callGraph';
import { CodeIndex } from '../src/core/code/index';
import { NodeWorkspace } from '../src/node/nodeWorkspace';

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
      })}\n`,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
})();
