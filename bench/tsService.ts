import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readyCodeIntel } from '../src/core/code/intel/intel';
import { silentLogger } from '../test/support/silentLogger';
import type { DevBackend } from '../src/devBackend/server';
import { startHeadlessHost } from '../src/node/headless';
import { log, mb, median, ms, now, type Row } from './lib';

/**
 * TypeScript call_chain in the headless host, the `typescript` language service (in its worker)
 * beside the parser: the first answer on a fresh host, the warm p50, and the worker's heap. The
 * tree is generated, the same every run: FILES modules, each a class whose methods call classes
 * and namespace functions of other modules, so no download is needed (the npm `typescript`
 * package holds only its bundled output, not its sources) and the size is exact.
 */

const FILES = 3_000;
const WARM_QUESTIONS = 40;

/** Module i: class Svc{i} (4 methods) and namespace Ops{i} (2 functions), calling modules i+1, i+7 and i·31 (mod FILES). */
function moduleText(i: number): string {
  const peers = [...new Set([(i + 1) % FILES, (i + 7) % FILES, (i * 31 + 3) % FILES])].filter((p) => p !== i);
  const imports = peers.map((p) => `import { Svc${p}, Ops${p} } from '../m${Math.floor(p / 100)}/mod${p}';`).join('\n');
  const calls = peers.map((p, k) => `    total += new Svc${p}().step${k % 4}(n - 1) + Ops${p}.scale(n);`).join('\n');
  return `${imports}

/** Module ${i}. */
export class Svc${i} {
  private readonly cache = new Map<string, Svc${i}>();
  step0(n: number): number {
    if (n <= 0) return 0;
    let total = this.step1(n);
${calls}
    return total;
  }
  step1(n: number): number {
    return Ops${i}.scale(n) + this.step2(n);
  }
  step2(n: number): number {
    return this.cache.get('k')?.step3(n) ?? n;
  }
  step3(n: number): number {
    return Ops${i}.shift(n);
  }
}

export namespace Ops${i} {
  export function scale(n: number): number {
    return shift(n) * 2;
  }
  export function shift(n: number): number {
    return n + ${i};
  }
}
`;
}

/** The generated tree, made once under the system's temp folder. */
function ensureTree(): string {
  const root = path.join(os.tmpdir(), `ab-bench-ts-tree-${FILES}`);
  const marker = path.join(root, '.complete');
  if (fs.existsSync(marker)) return root;
  fs.rmSync(root, { recursive: true, force: true });
  for (let i = 0; i < FILES; i++) {
    const file = path.join(root, 'src', `m${Math.floor(i / 100)}`, `mod${i}.ts`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, moduleText(i));
  }
  fs.writeFileSync(path.join(root, 'tsconfig.json'), '{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "commonjs" }, "include": ["src"] }\n');
  fs.writeFileSync(marker, '');
  return root;
}

type Json = Record<string, unknown>;

async function measure(backend: DevBackend, root: string, service: boolean): Promise<{ firstMs: number; warm: number[]; source: string; heap?: number }> {
  const key = `ts-bench-${service ? 'service' : 'parser'}`;
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace: root, projectKey: key, log: silentLogger, stateDir: false, ...(service ? {} : { typescriptService: false }) });
  try {
    await backend.waitForSession((s) => s.projectKey === key, 30_000);
    const session = { session: backend.sessions().find((s) => s.projectKey === key) };
    const ask = async (method: string): Promise<Json> => {
      for (const started = now(); ; ) {
        const d = (await backend.callTool('call_chain', { method, direction: 'both', depth: 1 }, { timeoutMs: 600_000, ...session })).data as Json;
        if (d.success === true) return d;
        if ((d.code !== 'TIMEOUT' && d.code !== 'CANCELLED') || now() - started > 600_000) throw new Error(`call_chain ${method}: ${String(d.code)} ${String(d.error)}`);
      }
    };
    const t0 = now();
    const first = await ask('Svc1500.step1');
    const firstMs = now() - t0;
    // The parser's warm answers are the index's: wait until its call sites are all parsed.
    if (!service) await readyCodeIntel({ workspace: host.workspace, signal: new AbortController().signal }, 'calls', 600_000);
    const warm: number[] = [];
    let source = '';
    for (let q = 0; q < WARM_QUESTIONS; q++) {
      const t = now();
      const d = await ask(`Svc${(q * 73) % FILES}.step${q % 4}`);
      warm.push(now() - t);
      source = String((d.structured as Json).languageServer ?? (d.structured as Json).source);
    }
    const heap = service ? await host.workspace.typescript?.heapInUse() : undefined;
    log(`ts call_chain (${service ? 'language service' : 'parser'}): first ${firstMs.toFixed(0)} ms (${String((first.structured as Json).source)}), warm p50 ${median(warm).toFixed(1)} ms, ${source}${heap ? `, worker heap ${mb(heap)}` : ''}`);
    return { firstMs, warm, source, ...(heap ? { heap } : {}) };
  } finally {
    host.stop();
  }
}

export async function benchTsService(backend: DevBackend): Promise<Row[]> {
  const root = ensureTree();
  const service = await measure(backend, root, true);
  const parser = await measure(backend, root, false);
  const tree = `${FILES.toLocaleString('en')} generated TS files`;
  return [
    {
      figure: `TS call_chain, first answer on a fresh host (${tree})`,
      ours: ms(service.firstMs),
      comparison: `parser ${ms(parser.firstMs)}`,
      ratio: `${(service.firstMs / parser.firstMs).toFixed(2)}×`,
      target: 'reported',
      pass: undefined,
      note: 'the language service loads the whole project (every file and lib.d.ts) in its worker before the first answer',
    },
    {
      figure: `TS call_chain warm p50, callers and callees, depth 1 (${tree})`,
      ours: ms(median(service.warm)),
      comparison: `parser ${ms(median(parser.warm))}`,
      ratio: `${(median(service.warm) / median(parser.warm)).toFixed(2)}×`,
      target: 'reported',
      pass: undefined,
      data: { service: service.warm, parser: parser.warm, serviceSource: service.source, parserSource: parser.source },
    },
    {
      figure: `TypeScript language service worker heap, warm (${tree})`,
      ours: service.heap === undefined ? '?' : mb(service.heap),
      comparison: 'cap 1536 MB (resourceLimits)',
      ratio: '',
      target: 'reported',
      pass: undefined,
    },
  ];
}
