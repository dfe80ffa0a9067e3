/**
 * Run as a child process by searchBounds.test.ts, with a small heap, which kills it when it
 * overruns: a search that runs the process out of memory or holds its event loop cannot be
 * measured from inside the test's own process. It runs `text_search` with the in-process engine
 * over the project named on the command line and prints one JSON line: how long the answer took,
 * the longest event-loop delay meanwhile, and the answer.
 */
import * as fs from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from './silentLogger';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';

export interface SearchProbeLine {
  readonly answerMs: number;
  readonly maxLoopDelayMs: number;
  readonly success: boolean;
  readonly code?: string;
  readonly error?: string;
  readonly files: string[];
}

async function main(): Promise<void> {
  const [root, pattern, extra] = process.argv.slice(2) as [string, string, string | undefined];
  // Optional: a JSON file of the workspace's exclusion globs (files.exclude) and more text_search params.
  const options = (extra ? JSON.parse(fs.readFileSync(extra, 'utf8')) : {}) as { excludes?: string[]; params?: Record<string, unknown> };
  const workspace = new NodeWorkspace(root, { ripgrep: false, searchExcludes: options.excludes ?? [] });
  const d = new Dispatcher({ workspace, tools: ALL_TOOLS, log: silentLogger });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // Let the monitor tick once, so that its first sample is not the start-up.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  const r = await d.dispatch({ id: 'probe', idKey: 'toolCallId', toolName: 'text_search', params: { pattern, limit: 1000, ...options.params } });
  const answerMs = performance.now() - started;
  delay.disable();
  const structured = r.data.structured as { files?: { path: string }[] } | undefined;
  const line: SearchProbeLine = {
    answerMs,
    maxLoopDelayMs: delay.max / 1e6,
    success: r.data.success === true,
    ...(r.data.code ? { code: String(r.data.code) } : {}),
    ...(r.data.error ? { error: String(r.data.error).slice(0, 500) } : {}),
    files: (structured?.files ?? []).map((f) => f.path).sort(),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
