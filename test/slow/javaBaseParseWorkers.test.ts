import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, test } from 'node:test';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { closeSharedParsePools } from '../../src/core/code/index/offThreadParse';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { jdkMissing, unpackModule } from '../support/jdk';

/** The index build in parse workers gives exactly what the main thread gives, file by file and in the same order. */

const missing = jdkMissing();

// An idle parse worker would keep this file's process alive until its pool closes itself.
after(() => closeSharedParsePools());

test('java.base indexed with parse workers equals the single-threaded index', async () => {
  assert.equal(missing, undefined, `${missing}: run scripts/setup-jdk.sh (CI does)`);
  const root = unpackModule('java.base');
  const build = async (workers: number) => {
    const index = new CodeIndex(new NodeWorkspace(root), { workers });
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    await index.ready();
    const ms = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    // the declarations, and every method's call sites (kept packed apart from them)
    const calls = [...index.typeEntries()].flatMap((owner) => owner.type.methods.map((method) => index.callsOf({ owner, method })));
    return { files: [...index.allFiles()], calls, ms, cpuMs: (used.user + used.system) / 1000 };
  };
  const one = await build(0);
  const many = await build(2);
  console.log(
    `java.base: ${one.files.length} files; main thread ${one.ms.toFixed(0)} ms (CPU ${one.cpuMs.toFixed(0)} ms), ` +
      `2 parse workers ${many.ms.toFixed(0)} ms (CPU ${many.cpuMs.toFixed(0)} ms)`,
  );
  assert.ok(one.files.length > 3000);
  assert.deepEqual(many.files.map(([rel]) => rel), one.files.map(([rel]) => rel));
  assert.deepEqual(many.files, one.files);
  assert.ok(one.calls.flat().length > 100_000, `${one.calls.flat().length} call sites`);
  assert.deepEqual(many.calls, one.calls);
});
