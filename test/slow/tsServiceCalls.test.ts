import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../support/silentLogger';
import { startDevBackend } from '../../src/devBackend/server';
import { startHeadlessHost } from '../../src/node/headless';
import { makeTree } from '../support/fixtures';
import { edgeKey, oracleEdges, projectService, TS_CALL_PROJECT, type Declaration } from '../support/tsCallProject';

/**
 * call_chain in the headless host answers TypeScript from the `typescript` package's language
 * service: on a project with the calls a parser misses, its callers and callees match the
 * language service's own call hierarchy, asked here directly as the oracle.
 */

interface Node {
  readonly path?: string;
  readonly methodName?: string;
  readonly callLine?: number;
  readonly children: readonly Node[];
}

/** The edges of a depth-1 answer, in the oracle's form. */
function answerEdges(d: Declaration, known: ReadonlySet<string>, structured: { callers?: Node[]; callees?: Node[] }): { callers: string[]; callees: string[] } {
  const self = `${d.path}#${d.name}`;
  // Calls between the project's functions and methods, as the oracle counts them (not constructors, library or interface members).
  const ends = (roots: readonly Node[] | undefined) => (roots ?? []).flatMap((r) => r.children).filter((c) => c.callLine && known.has(`${c.path}#${c.methodName}`));
  return {
    callers: ends(structured.callers).map((c) => edgeKey({ caller: `${c.path}#${c.methodName}`, callee: self, line: c.callLine as number })),
    callees: ends(structured.callees).map((c) => edgeKey({ caller: self, callee: `${c.path}#${c.methodName}`, line: c.callLine as number })),
  };
}

test('call_chain over the headless host matches the TypeScript language service (recall ≥ 0.95, precision ≥ 0.98)', async (t) => {
  const root = makeTree(TS_CALL_PROJECT, 'ab-tscalls-');
  const { service, declarations, errors } = projectService(root);
  assert.deepEqual(errors, [], 'the fixture compiles');
  const oracle = oracleEdges(root, service, declarations);
  assert.ok(oracle.callers.size >= 25, `the fixture has calls to find (${oracle.callers.size})`);

  const backend = await startDevBackend({ port: 0, host: '127.0.0.1' });
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: root, log: silentLogger, stateDir: false });
  try {
    await backend.waitForSession(undefined, 5000);
    const found = { callers: new Set<string>(), callees: new Set<string>() };
    const notByService: string[] = [];
    const known = new Set(declarations.map((d) => `${d.path}#${d.name}`));
    let firstMs = 0;
    let restFrom = Date.now();
    for (const d of declarations) {
      const asked = Date.now();
      const method = d.className ? `${d.className}.${d.name}` : d.name;
      const reply = await backend.callTool('call_chain', { method, direction: 'both', depth: 1 }, { timeoutMs: 30_000 });
      if (d === declarations[0]) {
        firstMs = Date.now() - asked;
        restFrom = Date.now();
      }
      const data = reply.data as { success: boolean; error?: string; structured?: { source: string; languageServer?: string; callers?: Node[]; callees?: Node[] } };
      if (!data.success || !data.structured) {
        notByService.push(`${method}: ${data.error}`);
        continue;
      }
      if (data.structured.languageServer !== 'typescript-language-service') notByService.push(`${method}: source ${data.structured.source}`);
      const edges = answerEdges(d, known, data.structured);
      for (const e of edges.callers) found.callers.add(e);
      for (const e of edges.callees) found.callees.add(e);
    }
    const score = (truth: Set<string>, got: Set<string>) => {
      const hit = [...got].filter((e) => truth.has(e)).length;
      return { hit, truth: truth.size, got: got.size, missed: [...truth].filter((e) => !got.has(e)), wrong: [...got].filter((e) => !truth.has(e)) };
    };
    const callers = score(oracle.callers, found.callers);
    const callees = score(oracle.callees, found.callees);
    const hit = callers.hit + callees.hit;
    const recall = hit / (callers.truth + callees.truth);
    const precision = hit / Math.max(1, callers.got + callees.got);
    const report = JSON.stringify({ recall, precision, callers, callees, notByService }, null, 1);
    t.diagnostic(`recall ${recall.toFixed(3)} (callers ${callers.hit}/${callers.truth}, callees ${callees.hit}/${callees.truth}), precision ${precision.toFixed(3)}; first answer ${firstMs} ms, the other ${declarations.length - 1} in ${Date.now() - restFrom} ms`);
    assert.deepEqual(notByService, [], report);
    assert.ok(recall >= 0.95, report);
    assert.ok(precision >= 0.98, report);
  } finally {
    host.stop();
    await backend.close();
  }
});
