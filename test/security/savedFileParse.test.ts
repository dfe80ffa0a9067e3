/**
 * A file saved (or changed by a checkout) is parsed again at once for the code index
 * (`RecordStore.update`, from the editor's file watcher). A hostile 1.8 MB file parsed on the
 * host's thread froze every other call for seconds; it goes to a parse worker, and with no worker
 * it is left out, logged, rather than parsed here.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { CodeIndex } from '../../src/core/code/index/codeIndex';
import { closeSharedParsePools } from '../../src/core/code/index/offThreadParse';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';
import { heldDuring } from '../support/loopDelay';
import { warningsLogger } from '../support/silentLogger';

after(() => closeSharedParsePools());

/** A Java class of about 1.8 MB: thousands of long methods, every token for the parser to read. */
function bigJava(name: string): string {
  const body = Array.from({ length: 12 }, (_, k) => `(x * ${k + 3} - (x >> ${k % 5}) + x % ${k + 7})`).join(' + ');
  const parts = [`package app;\n\npublic class ${name} {\n`];
  for (let i = 0, size = 0; size < 1_800_000; i++) {
    parts.push(`  int m${i}(int x) {\n    int y = ${body};\n    return y - ${i};\n  }\n`);
    size += parts[i + 1]!.length;
  }
  parts.push('}\n');
  return parts.join('');
}

/** `work`, with the event loop's worst delay meanwhile in ms. */
async function watched(work: () => Promise<void>): Promise<number> {
  return (await heldDuring(work)).heldMs;
}

test('a large file saved after the build is parsed off the host thread', { timeout: 120_000 }, async () => {
  const root = makeTree({ 'src/app/Small.java': 'package app;\n\nclass Small {}\n' }, 'ab-savedparse-');
  const index = new CodeIndex(new NodeWorkspace(root));
  await index.ready();
  fs.writeFileSync(path.join(root, 'src/app/Big.java'), bigJava('Big'));
  const heldMs = await watched(() => index.update('src/app/Big.java'));
  assert.ok(heldMs < 500, `the event loop was held ${Math.round(heldMs)} ms`);
  assert.deepEqual(index.findTypes('app.Big').map((t) => t.path), ['src/app/Big.java']);
});

test('with no parse worker, a large saved file is left out (logged), not parsed on the host thread', { timeout: 120_000 }, async () => {
  const root = makeTree({ 'src/app/Small.java': 'package app;\n\nclass Small {}\n', '.tools/broken-worker.js': "throw new Error('no wasm here');\n" }, 'ab-savedparse-');
  const warnings: string[] = [];
  const log = warningsLogger(warnings);
  const index = new CodeIndex(new NodeWorkspace(root), { workerScript: path.join(root, '.tools/broken-worker.js'), log });
  await index.ready();
  fs.writeFileSync(path.join(root, 'src/app/Big.java'), bigJava('Big'));
  const heldMs = await watched(() => index.update('src/app/Big.java'));
  assert.ok(heldMs < 500, `the event loop was held ${Math.round(heldMs)} ms`);
  assert.deepEqual(index.findTypes('app.Big'), []);
  assert.ok(warnings.some((w) => w.includes('src/app/Big.java')), warnings.join('\n'));
  // small files are still parsed at once
  fs.writeFileSync(path.join(root, 'src/app/Small.java'), 'package app;\n\nclass Small { int one() { return 1; } }\n');
  await index.update('src/app/Small.java');
  assert.equal(index.findTypes('app.Small')[0]?.type.methods[0]?.name, 'one');
});
