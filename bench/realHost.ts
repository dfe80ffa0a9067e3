// The real host: VS Code 1.100.3 (code-server, driven by Debian's Chromium). Packages the VSIX
// from the working tree (in a staging copy, so the repo's dist/ is left alone), installs it, opens
// the JDK tree, and reads the extension's activation time from VS Code's own Running Extensions
// view (codeLoadingTime + activateCallTime, what VS Code displays as "Activation: N ms"). Then one
// grep_file round trip through the real extension against VS Code's bundled rg.
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DevBackend } from '../src/devBackend/server';
import { CodeServer, codeServerDir, findCodeServer, openWorkbench } from '../test/support/codeServer';
import { GREP_CASES } from './loopback';
import { grepFileRgArgs, log, median, ms, now, repoRoot, type Row } from './lib';

type Json = Record<string, unknown>;
const STARTS = 5;
const GREP_RUNS = 9;

const STAGE = ['src', 'webview', 'l10n', 'media', 'scripts', 'package.json', 'package-lock.json', 'package.nls.json', 'package.nls.zh-cn.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'esbuild.mjs', '.vscodeignore', 'tsconfig.json'];

/** `npm run package` in a copy of the working tree; returns the VSIX path and the packaging time. */
export function packageVsix(): { vsix: string; ms: number; stage: string } {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-bench-vsix-'));
  for (const entry of STAGE) {
    const from = path.join(repoRoot, entry);
    if (fs.existsSync(from)) fs.cpSync(from, path.join(stage, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(stage, 'node_modules'), 'dir');
  const t0 = now();
  execFileSync('npm', ['run', '--silent', 'package'], { cwd: stage, stdio: ['ignore', 'ignore', 'inherit'] });
  const pkg = JSON.parse(fs.readFileSync(path.join(stage, 'package.json'), 'utf8')) as { name: string; version: string };
  return { vsix: path.join(stage, `${pkg.name}-${pkg.version}.vsix`), ms: now() - t0, stage };
}

function vsixEntries(vsix: string): number | undefined {
  try {
    const out = execFileSync('unzip', ['-l', vsix], { encoding: 'utf8' });
    return Number(/(\d+)\s+files?\s*$/m.exec(out.trim())?.[1]);
  } catch {
    return undefined;
  }
}

/** "Activation: 42ms" / "Startup Activation: 42ms" from the Running Extensions editor. */
async function readActivation(page: import('playwright-core').Page): Promise<{ ms: number; text: string }> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input').first();
  await input.waitFor({ timeout: 20_000 });
  await input.fill('>Developer: Show Running Extensions');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Show Running Extensions' }).first().waitFor({ timeout: 20_000 });
  await input.press('Enter');
  const row = page.locator('.runtime-extensions-editor .monaco-list-row', { hasText: 'Agent Bridge' }).first();
  await row.waitFor({ timeout: 30_000 });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const text = ((await row.locator('.activation-time').first().textContent()) ?? '').trim();
    const m = /Activation:\s*(\d+)\s*ms/i.exec(text);
    if (m) return { ms: Number(m[1]), text };
    if (Date.now() > deadline) throw new Error(`no activation time in the Running Extensions view (saw "${text}")`);
    await page.waitForTimeout(250);
  }
}

function bundledRg(): string | undefined {
  const rg = path.join(codeServerDir(), 'node_modules', 'code-server', 'lib', 'vscode', 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg');
  return fs.existsSync(rg) ? rg : undefined;
}

async function rgOnce(rg: string, root: string, pattern: string, regex: boolean): Promise<number> {
  const args = await grepFileRgArgs(root, pattern, regex);
  const t0 = now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(rg, args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', () => resolve());
  });
  return now() - t0;
}

export async function benchRealHost(backend: DevBackend, corpus: string): Promise<Row[]> {
  findCodeServer(); // throws with a hint when scripts/setup-test-host.sh has not run
  const rows: Row[] = [];
  // BENCH_VSIX: measure a VSIX built elsewhere (e.g. a candidate fix) instead of packaging the tree.
  const given = process.env.BENCH_VSIX;
  const packed = given ? { vsix: path.resolve(given), ms: 0, stage: '' } : packageVsix();
  const size = fs.statSync(packed.vsix).size;
  rows.push({
    figure: 'VSIX size',
    ours: `${(size / 1024).toFixed(0)} KB`,
    comparison: '—',
    ratio: '—',
    target: 'reported',
    pass: undefined,
    note: `${String(vsixEntries(packed.vsix) ?? '?')} files; ${given ? `given as BENCH_VSIX=${given}` : `\`npm run package\` took ${ms(packed.ms)}`}`,
    data: { bytes: size, packageMs: packed.ms },
  });
  const extensionsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-bench-ext-'));
  const activations: number[] = [];
  const texts: string[] = [];
  const logLines: string[] = [];
  let grepRow: Row[] = [];
  try {
    for (let i = 0; i < STARTS; i++) {
      const projectKey = `jdk-real-${i}`;
      const server = await CodeServer.start({
        workspace: corpus,
        extensionsDir,
        settings: { 'agentBridge.serverUrl': backend.wsUrl('/ws/agent/chat'), 'agentBridge.projectKey': projectKey, 'files.watcherExclude': { '**': true } },
      });
      let bench: Awaited<ReturnType<typeof openWorkbench>> | undefined;
      try {
        if (i === 0) await server.installExtension(packed.vsix);
        const t0 = now();
        bench = await openWorkbench(server, { folder: corpus });
        const session = await backend.waitForSession((s) => s.projectKey === projectKey, 120_000);
        log(`real host start ${i + 1}: connected ${((now() - t0) / 1000).toFixed(1)} s after opening the page`);
        const a = await readActivation(bench.page);
        activations.push(a.ms);
        texts.push(a.text);
        for (const file of fs.readdirSync(path.join(server.userDataDir, 'logs'), { recursive: true, encoding: 'utf8' })) {
          if (!/exthost/i.test(file) || !file.endsWith('.log')) continue;
          const text = fs.readFileSync(path.join(server.userDataDir, 'logs', file), 'utf8');
          const line = text.split('\n').find((l) => l.includes('_doActivateExtension agent-bridge.agent-bridge'));
          if (line) logLines.push(line.trim());
        }
        log(`real host start ${i + 1}: ${a.text}`);
        if (i === STARTS - 1) grepRow = await realGrep(backend, session.webSocketSessionId, corpus);
      } finally {
        await bench?.close().catch(() => undefined);
        await server.stop().catch(() => undefined);
      }
    }
  } finally {
    fs.rmSync(extensionsDir, { recursive: true, force: true });
    if (packed.stage) fs.rmSync(packed.stage, { recursive: true, force: true });
  }
  const p50 = median(activations);
  rows.unshift({
    figure: 'extension activation in VS Code 1.100.3 (code-server), as VS Code reports it',
    ours: ms(p50, 0),
    comparison: '—',
    ratio: '—',
    target: '< 100 ms',
    pass: p50 < 100,
    note: `median of ${STARTS} fresh starts (${activations.join(', ')} ms): "Activation" in Developer: Show Running Extensions = code loading + activate() call; ${logLines[0] ? `exthost log: \`${logLines[0].replace(/^\S+ \S+ /, '')}\`` : 'no activation line in the exthost log'}`,
    data: { activations, texts, logLines },
  });
  return [...rows, ...grepRow];
}

async function realGrep(backend: DevBackend, webSocketSessionId: string, root: string): Promise<Row[]> {
  const rg = bundledRg();
  if (!rg) return [];
  const rows: Row[] = [];
  for (const c of GREP_CASES) {
    const params = { pattern: c.pattern, regex: c.regex };
    const exec: number[] = [];
    const call = async (): Promise<number> => {
      const t0 = now();
      const r = await backend.callTool('grep_file', params, { timeoutMs: 120_000, session: webSocketSessionId });
      const d = r.data as Json;
      if (d.success !== true) throw new Error(`grep_file in VS Code failed: ${String(d.error)}`);
      if (typeof d.executionTime === 'number') exec.push(d.executionTime);
      return now() - t0;
    };
    await call();
    await rgOnce(rg, root, c.pattern, c.regex);
    exec.length = 0;
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < GREP_RUNS; i++) {
      ours.push(await call());
      theirs.push(await rgOnce(rg, root, c.pattern, c.regex));
    }
    const ratio = median(ours) / median(theirs);
    log(`real host grep ${c.name}: ours ${ours.map((x) => x.toFixed(0)).join(' ')} | rg ${theirs.map((x) => x.toFixed(0)).join(' ')}`);
    rows.push({
      figure: `grep_file ${c.name}, whole tree, in VS Code (extension host, VS Code's rg)`,
      ours: ms(median(ours)),
      comparison: `rg ${ms(median(theirs))}`,
      ratio: `${ratio.toFixed(2)}×`,
      target: '≤ 1.3× rg',
      pass: ratio <= 1.3,
      note: `median of ${GREP_RUNS}, alternating; VS Code's bundled rg (${path.relative(codeServerDir(), rg)}) run directly with the same options; the tool's own executionTime in the extension host ${exec.length ? ms(median(exec)) : '?'} (the rest is the two WebSocket hops)`,
      data: { oursMs: ours, rgMs: theirs, executionTimeMs: exec },
    });
  }
  return rows;
}
