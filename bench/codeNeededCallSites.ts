// call_chain past a cold answer's bounds, asked while the index's call-site pass runs
// (src/core/code/intel/neededCallSites.ts), for bench/code.ts.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DevBackend } from '../src/devBackend/server';
import { log, median, ms, now, quantile, startChild, type Row } from './lib';

type Json = Record<string, unknown>;

/** Callers of a name about 2,800 of the JDK's files have as a word: beyond a cold answer's 1,200 files. */
const ASKED_METHOD = 'java.util.ArrayList.add';
const ASKED_PARAMS = { method: ASKED_METHOD, direction: 'callers', depth: 1 };

/** A small file read while the built index answers: its round trip is the wait another tool has. */
const SMALL_FILE = 'java.base/java/util/function/IntPredicate.java';

const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));

type Call = (tool: string, params: Json) => Promise<Json>;

/**
 * One small read every READ_EVERY_MS at most (an agent's pace, not a flood): a flood of reads sent
 * back to back takes a core from the build's workers on 2 cores, and measures that instead.
 */
const READ_EVERY_MS = 20;

/** A read waits up to READ_EVERY_MS before it is sent, so a block of B ms is seen as B − READ_EVERY_MS to B. */
const PACE_NOTE = `a read is sent up to ${READ_EVERY_MS} ms after the one before, so it sees a block of the loop shortened by up to that much: the host's own event-loop delay over the question is beside it`;

type LoopDelay = { readonly p99: number; readonly max: number; readonly samples: number };
const loopText = (l: LoopDelay | undefined): string => (l ? `the host's event-loop delay meanwhile p99 ${ms(l.p99)}, max ${ms(l.max)}` : "the host's event-loop delay not reported");

/** A call_chain of ASKED_PARAMS with small reads sent meanwhile, and the host's figures after it. */
interface Asked {
  readonly data: Json;
  readonly took: number;
  readonly reads: number[];
  /** The host's SIGUSR2 figures once it answered; `loopSinceAskMs` is its event-loop delay over the question. */
  readonly stats: Json;
}

/**
 * Asks ASKED_PARAMS with reads at READ_EVERY_MS meanwhile. The host is asked for its figures first,
 * which starts its event-loop delay since the ask afresh (50 ms later: bench/hostChild.ts).
 */
async function askedWithReads(host: { ask: (signal: 'SIGUSR2') => Promise<Json> }, call: Call): Promise<Asked> {
  await host.ask('SIGUSR2');
  await sleep(100);
  const start = now();
  let end = 0;
  const asked = call('call_chain', ASKED_PARAMS).finally(() => (end = now()));
  const reads = await readsUntil(asked, call);
  const data = (await asked).data as Json;
  return { data, took: end - start, reads, stats: await host.ask('SIGUSR2') };
}

/** The row of the reads answered while `a` ran: the slowest round trip against 50 ms. */
function busyRow(name: string, when: string, a: Asked, note: string): Row {
  const worst = Math.max(...a.reads);
  log(`${name} call_chain ${ASKED_METHOD}: ${a.took.toFixed(0)} ms; ${a.reads.length} read_file meanwhile, the slowest ${worst.toFixed(1)} ms`);
  return {
    figure: `read_file round trip while call_chain \`${ASKED_METHOD}\` callers ${when}`,
    ours: ms(worst),
    comparison: `${a.reads.length} reads, one every ${READ_EVERY_MS} ms at most, during the ${ms(a.took)} the call_chain took, median ${ms(median(a.reads))}, p99 ${ms(quantile(a.reads, 0.99))}; ${loopText(a.stats.loopSinceAskMs as LoopDelay | undefined)}`,
    ratio: '—',
    target: '≤ 50 ms (the host stays responsive to every other tool)',
    pass: a.reads.length > 1 && worst <= 50,
    note: `${note}; ${PACE_NOTE}`,
  };
}

/** Round trips (ms) of small reads, sent one at a time at most every READ_EVERY_MS, until `pending` settles. */
async function readsUntil(pending: Promise<unknown>, call: Call): Promise<number[]> {
  let settled = false;
  void pending.then(
    () => (settled = true),
    () => (settled = true),
  );
  const reads: number[] = [];
  while (!settled) {
    const s = now();
    const r = (await call('read_file', { relativePath: SMALL_FILE })).data as Json;
    if (r.success !== true) throw new Error(`read_file failed: ${String(r.error)}`);
    const took = now() - s;
    reads.push(took);
    if (!settled && took < READ_EVERY_MS) await sleep(READ_EVERY_MS - took);
  }
  return reads;
}

/**
 * A fresh host with no cache: a read_class starts its index; once the declarations are in, the
 * callers of ASKED_METHOD are asked; once the index is whole, the same question again must give
 * the same text. The row: how long the first answer took, and whether it came before the end.
 */
export async function benchNeededCallSites(backend: DevBackend, root: string, key: string, tree: string): Promise<Row[]> {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-bench-code-needed-calls-'));
  const host = startChild('hostChild.ts', [backend.wsUrl(), root, key, cache], ['--expose-gc']);
  try {
    await host.ready;
    await backend.waitForSession((s) => s.projectKey === key, 30_000);
    const session = backend.sessions().find((s) => s.projectKey === key);
    const call = (tool: string, params: Json) => backend.callTool(tool, params, { timeoutMs: 120_000, ...(session ? { session } : {}) });
    await call('read_class', { className: 'java.util.ArrayList' });
    while (!(await host.ask('SIGUSR2')).declarationsIn) await sleep(250);
    // Small reads, at an agent's pace, while the question runs: how long another tool waits
    // behind it, with the build's workers busy too (the question's rounds run in slices).
    const early = await askedWithReads(host, call);
    const d = early.data;
    const took = early.took;
    const beforeBuild = !early.stats.lastBuild;
    let stats = early.stats;
    for (const end = now() + 600_000; !stats.lastBuild && now() < end; stats = await host.ask('SIGUSR2')) await sleep(1000);
    const lastBuild = (stats.lastBuild ?? {}) as Json;
    log(`early call_chain ${ASKED_METHOD}: ${d.success === true ? 'answered' : String(d.code)} in ${took.toFixed(0)} ms, before the build ended: ${beforeBuild}`);
    // The same question of the built index, with small reads at the same pace meanwhile:
    // how long another tool waits behind it (the question runs in slices, index/slices.ts).
    const built = await askedWithReads(host, call);
    if (d.success === true && String(built.data.result) !== String(d.result)) {
      throw new Error('the call_chain answer given before the call sites were in differs from the one the built index gives');
    }
    const busy = busyRow(
      'built',
      `runs on the built index, slowest, ${tree} tree`,
      built,
      "the same host, after the build; the question reads about 10,000 call sites in slices of 8 ms (index/slices.ts), after making the index's lookup tables again in slices (the build's end changed the index)",
    );
    const earlyBusy = busyRow(
      'early',
      `is asked during the build, slowest, ${tree} tree`,
      early,
      'the same host, while its parse workers build the call sites; the question has the files naming `add` parsed first and asks in rounds, each run in slices of 8 ms (intel/neededCallSites.ts)',
    );
    return [{
      figure: `call_chain \`${ASKED_METHOD}\` callers, depth 1, asked once the declarations are in (past a cold answer's bounds), ${tree} tree`,
      ours: d.success === true ? ms(took) : `${String(d.code)} after ${ms(took)}`,
      comparison: `declarations in ${ms(Number(lastBuild.declarationsMs))}, every call site in ${ms(Number(lastBuild.ms))} after the build started`,
      ratio: '—',
      target: 'an answer before the index is whole, no "try again"',
      pass: d.success === true && beforeBuild,
      note: 'a host of its own; the files naming `add` are parsed first (intel/neededCallSites.ts); the same text as the built index gives later',
    }, earlyBusy, busy];
  } finally {
    await host.stop();
    fs.rmSync(cache, { recursive: true, force: true });
  }
}
