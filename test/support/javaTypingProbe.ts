/**
 * Run as a child process by javaTyping.test.ts, which kills it when it overruns: code that holds
 * the event loop cannot be stopped from inside. For each hostile Java file (JSON on stdin: name →
 * source of `p.A`), on a project of its own, it asks `call_chain` for the callees of `p.A.m` while
 * `read_method` is asked for a plain method every 20 ms, and prints one JSON line per file: how
 * long the answer took, the longest event-loop delay and the slowest concurrent read meanwhile,
 * and the answer's text.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { callChainTool } from '../../src/core/tools/callChain';
import { readMethodTool } from '../../src/core/tools/readMethod';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { callTool } from './tools';

const PLAIN = 'package p;\n\nclass Plain {\n  int ok() { return 1; }\n}\n';

export interface ProbeLine {
  readonly name: string;
  readonly answerMs: number;
  readonly maxLoopDelayMs: number;
  readonly slowestReadMs: number;
  readonly reads: number;
  readonly answer: string;
}

async function probe(name: string, source: string): Promise<ProbeLine> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-typing-'));
  try {
    fs.writeFileSync(path.join(root, 'A.java'), source);
    fs.writeFileSync(path.join(root, 'Plain.java'), PLAIN);
    const ws = new NodeWorkspace(root);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let slowestReadMs = 0;
    let reads = 0;
    let done = false;
    const reader = (async () => {
      while (!done) {
        const asked = performance.now();
        await callTool(readMethodTool, ws, { className: 'p.Plain', methodName: 'ok' });
        slowestReadMs = Math.max(slowestReadMs, performance.now() - asked);
        reads++;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const started = performance.now();
    const out = await callTool(callChainTool, ws, { method: 'p.A.m', direction: 'callees', depth: 2 });
    const answerMs = performance.now() - started;
    done = true;
    await reader;
    delay.disable();
    return { name, answerMs, maxLoopDelayMs: delay.max / 1e6, slowestReadMs, reads, answer: String(out.result) };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const files = JSON.parse(fs.readFileSync(0, 'utf8')) as Record<string, string>;
  for (const [name, source] of Object.entries(files)) process.stdout.write(`${JSON.stringify(await probe(name, source))}\n`);
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
