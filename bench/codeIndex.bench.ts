import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { CallGraph } from '../src/core/code/callGraph';
import { CodeIndex } from '../src/core/code/index';
import { NodeWorkspace } from '../src/node/nodeWorkspace';
import { jdkMissing, unpackModule } from '../test/unit/helpers/jdk';

/**
 * Benchmark, opt-in (CODE_BENCH=1; ~15 s): the code index over all of the JDK's java.base
 * (~3,100 files, 49 MB): cold build time (wall and CPU), heap after the build, every call site
 * resolved, and a warm start from the cache file.
 */

const skip = process.env.CODE_BENCH !== '1' ? 'set CODE_BENCH=1 to run the java.base benchmark' : jdkMissing();
const mb = (n: number) => `${Math.round(n / 1e6)} MB`;

test('java.base: cold build, resolution of every call, warm start from the cache', { skip, timeout: 120_000 }, async () => {
  const root = unpackModule('java.base');
  const cacheFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-code-bench-')), 'index.json');
  const index = new CodeIndex(new NodeWorkspace(root), { cacheFile });
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  await index.ready();
  const buildMs = Date.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  (globalThis as { gc?: () => void }).gc?.();
  const heap = process.memoryUsage().heapUsed;

  const graph = new CallGraph(index);
  let sites = 0;
  let resolved = 0;
  const t1 = Date.now();
  for (const owner of index.typeEntries()) {
    for (const method of owner.type.methods) {
      for (const r of graph.callees({ owner, method })) {
        sites++;
        if (r.owner) resolved++;
      }
    }
  }
  const resolveMs = Date.now() - t1;

  const warm = new CodeIndex(new NodeWorkspace(root), { cacheFile });
  const t2 = Date.now();
  await warm.ready();
  const warmMs = Date.now() - t2;
  const cacheSize = fs.statSync(cacheFile).size;
  fs.rmSync(path.dirname(cacheFile), { recursive: true, force: true });

  console.log(
    `java.base: ${index.fileCount} files, cold build ${buildMs} ms (CPU ${Math.round(cpu.user / 1000)} ms user + ${Math.round(cpu.system / 1000)} ms system), ` +
      `heap ${mb(heap)}${(globalThis as { gc?: unknown }).gc ? '' : ' (run with --expose-gc for an exact figure)'}; ` +
      `${sites} call sites, ${resolved} resolved (${((100 * resolved) / sites).toFixed(1)}%) in ${resolveMs} ms; ` +
      `warm start from a ${mb(cacheSize)} cache in ${warmMs} ms (${warm.lastBuild?.parsed ?? '?'} files reparsed)`,
  );
  assert.ok(index.fileCount > 3000);
  assert.equal(warm.lastBuild?.parsed, 0);
  assert.ok(buildMs < 20_000 || cpu.user / 1000 < 20_000, `cold build took ${buildMs} ms`);
});
