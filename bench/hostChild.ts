// The IDE side of the loopback benchmarks, in its own process as in real use: the headless host
// (the same core code as the extension) over the corpus, connected to the bench's dev backend.
// The code index gets a cache folder and a long first-build wait, as the extension configures.
//   node --import tsx bench/hostChild.ts URL WORKSPACE PROJECT_KEY [CACHE_DIR]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { silentLogger } from '../test/support/silentLogger';
import { configureCodeIndexes, peekCodeIntel } from '../src/core/code/intel/state';
import { startHeadlessHost } from '../src/node/headless';

const [url, workspace, projectKey, cacheDir] = process.argv.slice(2);
if (!url || !workspace || !projectKey) {
  process.stderr.write('usage: hostChild.ts URL WORKSPACE PROJECT_KEY [CACHE_DIR]\n');
  process.exit(2);
}
// The process before the host starts: the memory extrapolation's baseline (bench/code.ts).
const startRss = process.memoryUsage().rss;
configureCodeIndexes({ waitMs: 600_000, ...(cacheDir ? { cacheDir: () => cacheDir } : {}) });
const host = startHeadlessHost({ serverUrl: url, workspace, projectKey, log: silentLogger });
process.stdout.write(`${JSON.stringify({ pid: process.pid, rg: host.workspace.ripgrepPath() ?? null })}\n`);
// The main thread's event-loop delay while the first index build runs (the host must stay
// responsive to every other tool meanwhile): sampled from the start until the build has ended.
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
let sampling = true;
/** Stops the sampling once the build has ended; true from then on. */
const builtYet = (): boolean => {
  if (!peekCodeIntel(host.workspace)?.index.lastBuild) return false;
  if (sampling) {
    loop.disable();
    clearInterval(watchBuild);
    sampling = false;
  }
  return true;
};
const watchBuild = setInterval(builtYet, 200);
watchBuild.unref();
// The event-loop delay since the bench last asked (a question's own, bench/codeNeededCallSites.ts). It is
// reset 50 ms after each ask: the ask's forced GC shows up as a delay at the histogram's next tick.
const sinceAsk = monitorEventLoopDelay({ resolution: 10 });
sinceAsk.enable();
const stop = (): void => {
  host.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The bench asks for figures with a signal: SIGUSR2 prints one JSON line (memory after a full GC,
// CPU so far, the code index's last build, the event-loop delay during the first build). The bench
// asks every second while the build runs: a forced full GC of a heap of several hundred MB blocks
// the thread for tens of milliseconds, so it is forced only once the build has ended and the
// sampling has stopped (it used to be forced at every poll, and made most of the p99 it measured).
process.on('SIGUSR2', () => {
  if (builtYet()) (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const cpu = process.cpuUsage();
  const index = peekCodeIntel(host.workspace)?.index;
  process.stdout.write(
    `${JSON.stringify({
      heapUsed: m.heapUsed,
      rss: m.rss,
      startRss,
      maxRss: process.resourceUsage().maxRSS * 1024,
      cpuUserMs: cpu.user / 1000,
      cpuSystemMs: cpu.system / 1000,
      files: index?.fileCount ?? null,
      lastBuild: index?.lastBuild ?? null,
      declarationsIn: index?.declarationsIn ?? false,
      loopDelayMs: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6, samples: loop.count },
      loopSinceAskMs: { p99: sinceAsk.percentile(99) / 1e6, max: sinceAsk.max / 1e6, samples: sinceAsk.count },
    })}\n`,
  );
  setTimeout(() => sinceAsk.reset(), 50).unref();
});
