// Reusable helpers to run a real VS Code 1.100.3 headless: code-server 4.100.3 (installed by
// scripts/setup-test-host.sh) plus Debian's Chromium driven by playwright-core.
// See shared/notes/vscode-test-host.md for why it is done this way.
//
//   const server = await CodeServer.start({ workspace, env, settings });
//   const wb = await openWorkbench(server, { folder: workspace, devPath, testsPath });
//   ... await wb.screenshot('test-results/x.png');
//   await wb.close(); await server.stop();
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const CODE_SERVER_VERSION = '4.100.3';
const CHROMIUM_PATH = process.env.AGENT_BRIDGE_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Same logic as scripts/setup-test-host.sh. */
function cacheRoot(): string {
  return process.env.AGENT_BRIDGE_CACHE || path.join(os.homedir(), '.cache', 'agent-bridge');
}

export function codeServerDir(): string {
  return path.join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`);
}

/** Path of code-server's entry.js; throws with a hint when the host is not installed. */
export function findCodeServer(): string {
  const dir = codeServerDir();
  const entry = path.join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (!fs.existsSync(path.join(dir, '.installed')) || !fs.existsSync(entry)) {
    throw new Error(`code-server ${CODE_SERVER_VERSION} is not installed in ${dir}: run bash scripts/setup-test-host.sh`);
  }
  return entry;
}

/** A free TCP port on 127.0.0.1 (free when asked; tiny race with other processes). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('no port'))));
    });
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Settings written before every start unless overridden: quiet, offline, no prompts. */
const DEFAULT_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
};

export interface StartOptions {
  /** Folder to open (also passed as code-server's positional path). */
  workspace?: string;
  /** Extra environment for code-server; the extension host inherits it. */
  env?: NodeJS.ProcessEnv;
  /** Written to UD/User/settings.json (merged over DEFAULT_SETTINGS). */
  settings?: Record<string, unknown>;
  /** Defaults: fresh dirs under a new temp dir. */
  userDataDir?: string;
  extensionsDir?: string;
  port?: number;
  extraArgs?: string[];
  /** Leave Workspace Trust on (default off: no trust prompt), to test restricted mode. */
  workspaceTrust?: boolean;
  /** Milliseconds to wait for HTTP. Default 60 s. */
  startTimeoutMs?: number;
  /** Echo code-server's output live (also kept in memory for logs()). */
  echo?: boolean;
}

function cleanEnv(extra: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // Started from a VS Code terminal, these would make code-server act as a CLI of that VS Code.
    if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

export class CodeServer {
  readonly output: string[] = [];
  private exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exitPromise: Promise<void>;

  private constructor(
    readonly proc: ChildProcess,
    readonly entry: string,
    readonly port: number,
    readonly tmpDir: string,
    readonly userDataDir: string,
    readonly extensionsDir: string,
    readonly configPath: string,
    echo: boolean,
  ) {
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      this.output.push(text);
      if (this.output.length > 2000) this.output.splice(0, this.output.length - 2000);
      if (echo) process.stderr.write(text.replace(/^/gm, '[code-server] '));
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    this.exitPromise = new Promise((resolve) => {
      proc.on('exit', (code, signal) => {
        this.exited = { code, signal };
        resolve();
      });
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get authority(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Description of the exit, or undefined while running. */
  get exitStatus(): string | undefined {
    return this.exited ? `code ${this.exited.code} signal ${this.exited.signal}` : undefined;
  }

  /** A path on this machine as the workbench's remote URI (vscode-remote://127.0.0.1:PORT/abs). */
  remoteUri(absPath: string): string {
    return `vscode-remote://${this.authority}${path.resolve(absPath).split(path.sep).map(encodeURIComponent).join('/')}`;
  }

  /** Workbench URL, optionally with a folder and the development `payload` query parameter. */
  workbenchUrl(opts: { folder?: string; workspace?: string; devPath?: string; testsPath?: string; payload?: [string, string][] } = {}): string {
    const q = new URLSearchParams();
    if (opts.folder) q.set('folder', path.resolve(opts.folder));
    if (opts.workspace) q.set('workspace', path.resolve(opts.workspace));
    const payload: [string, string][] = [...(opts.payload ?? [])];
    if (opts.devPath) payload.push(['extensionDevelopmentPath', this.remoteUri(opts.devPath)]);
    if (opts.testsPath) payload.push(['extensionTestsPath', this.remoteUri(opts.testsPath)]);
    if (payload.length) q.set('payload', JSON.stringify(payload));
    const qs = q.toString();
    return `${this.url}/${qs ? `?${qs}` : ''}`;
  }

  static async start(opts: StartOptions = {}): Promise<CodeServer> {
    const entry = findCodeServer();
    const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bridge-cs-'));
    const userDataDir = opts.userDataDir ?? path.join(tmpDir, 'user-data');
    const extensionsDir = opts.extensionsDir ?? path.join(tmpDir, 'extensions');
    fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
    fs.mkdirSync(extensionsDir, { recursive: true });
    const trust = opts.workspaceTrust ? { 'security.workspace.trust.enabled': true } : {};
    writeSettings(userDataDir, { ...DEFAULT_SETTINGS, ...trust, ...opts.settings });
    const port = opts.port ?? (await freePort());
    // Own config file so nothing is written to ~/.config/code-server.
    const configPath = path.join(tmpDir, 'config.yaml');
    fs.writeFileSync(configPath, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);

    const args = [
      entry,
      '--config', configPath,
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--user-data-dir', userDataDir,
      '--extensions-dir', extensionsDir,
      '--disable-telemetry',
      '--disable-update-check',
      ...(opts.workspaceTrust ? [] : ['--disable-workspace-trust']),
      ...(opts.extraArgs ?? []),
    ];
    if (opts.workspace) args.push(path.resolve(opts.workspace));
    const proc = spawn(process.execPath, args, {
      env: cleanEnv(opts.env),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // own process group, so stop() reaches the server, ext host, pty host, watchers
    });
    const server = new CodeServer(proc, entry, port, tmpDir, userDataDir, extensionsDir, configPath, opts.echo ?? false);
    try {
      await server.waitForHttp(opts.startTimeoutMs ?? 60_000);
    } catch (err) {
      await server.stop();
      throw err;
    }
    return server;
  }

  private async waitForHttp(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) {
        throw new Error(`code-server exited during start (${this.exitStatus}):\n${this.output.join('')}`);
      }
      try {
        const res = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(2000) });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(250);
    }
    throw new Error(`code-server did not answer on ${this.url} within ${timeoutMs} ms:\n${this.output.join('')}`);
  }

  /** Install a VSIX (or an extension id) into this server's extensions dir. */
  installExtension(vsixOrId: string): Promise<string> {
    return runCodeServerCli(this.entry, [
      '--config', this.configPath,
      '--user-data-dir', this.userDataDir,
      '--extensions-dir', this.extensionsDir,
      '--force',
      '--install-extension', fs.existsSync(vsixOrId) ? path.resolve(vsixOrId) : vsixOrId,
    ]);
  }

  /** Overwrite UD/User/settings.json (merged over DEFAULT_SETTINGS); the workbench picks it up live. */
  writeSettings(settings: Record<string, unknown>): void {
    writeSettings(this.userDataDir, { ...DEFAULT_SETTINGS, ...settings });
  }

  /**
   * Windows opened from now on use `locale` as VS Code's display language (vscode.env.language),
   * so extensions load their package.nls.<locale>.json and l10n/bundle.l10n.<locale>.json.
   * `--locale` or argv.json alone is not enough: without an installed language pack for it the
   * workbench falls back to English. No language pack can be installed here, so this registers one
   * in languagepacks.json whose translation of VS Code's own strings is empty: VS Code's menus stay
   * English, every extension's own translations apply. argv.json is read per window, so no restart.
   */
  setDisplayLanguage(locale: string): void {
    const core = path.join(this.userDataDir, `test-language-pack.${locale}.json`);
    fs.writeFileSync(core, JSON.stringify({ contents: {} }));
    const pack = { hash: `test-${locale}`, label: locale, extensions: [{ extensionIdentifier: { id: `test.language-pack-${locale}` }, version: '0.0.0' }], translations: { vscode: core } };
    fs.writeFileSync(path.join(this.userDataDir, 'languagepacks.json'), JSON.stringify({ [locale]: pack }));
    fs.writeFileSync(path.join(this.userDataDir, 'User', 'argv.json'), JSON.stringify({ locale }));
  }

  /** code-server's own output plus the tails of every log under the user-data dir. */
  logs(maxLinesPerFile = 200): string {
    const parts = [`===== code-server output (${this.exitStatus ?? 'running'}) =====\n${tail(this.output.join(''), maxLinesPerFile * 2)}`];
    for (const file of listFiles(path.join(this.userDataDir, 'logs'))) {
      if (!file.endsWith('.log')) continue;
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      if (!text.trim()) continue;
      parts.push(`===== ${path.relative(this.userDataDir, file)} =====\n${tail(text, maxLinesPerFile)}`);
    }
    return parts.join('\n');
  }

  /** Copy the user-data logs dir and code-server's output into destDir (for CI artifacts). */
  saveLogs(destDir: string): void {
    fs.mkdirSync(destDir, { recursive: true });
    fs.writeFileSync(path.join(destDir, 'code-server.out.log'), this.output.join(''));
    const logsDir = path.join(this.userDataDir, 'logs');
    if (fs.existsSync(logsDir)) fs.cpSync(logsDir, path.join(destDir, 'logs'), { recursive: true });
  }

  /**
   * Stop code-server and everything it started (its whole process group): SIGTERM, then SIGKILL
   * after graceMs. Removes the temp dir it created unless keepTmp.
   */
  async stop(opts: { graceMs?: number; keepTmp?: boolean } = {}): Promise<void> {
    const pgid = this.proc.pid;
    if (pgid !== undefined) {
      signalGroup(pgid, 'SIGTERM');
      const deadline = Date.now() + (opts.graceMs ?? 5000);
      while (Date.now() < deadline && (groupAlive(pgid) || !this.exited)) await sleep(100);
      if (groupAlive(pgid)) {
        signalGroup(pgid, 'SIGKILL');
        const hard = Date.now() + 3000;
        while (Date.now() < hard && groupAlive(pgid)) await sleep(50);
      }
      if (!this.exited) await Promise.race([this.exitPromise, sleep(1000)]);
    }
    this.proc.stdout?.destroy();
    this.proc.stderr?.destroy();
    if (!opts.keepTmp) fs.rmSync(this.tmpDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

function writeSettings(userDataDir: string, settings: Record<string, unknown>): void {
  const file = path.join(userDataDir, 'User', 'settings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(settings, null, 2));
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // group already gone
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Run entry.js as a CLI (e.g. --install-extension) and resolve with its output. */
function runCodeServerCli(entry: string, args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [entry, ...args], { env: cleanEnv(undefined), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`code-server ${args.join(' ')} failed (code ${code} signal ${signal}):\n${out}`));
    });
  });
}

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[])
    .map((rel) => path.join(dir, rel))
    .filter((p) => {
      try {
        return fs.statSync(p).isFile();
      } catch {
        return false;
      }
    })
    .sort();
}

function tail(text: string, lines: number): string {
  const all = text.split('\n');
  return all.length <= lines ? text : `... (${all.length - lines} lines cut)\n${all.slice(-lines).join('\n')}`;
}

export interface Workbench {
  context: BrowserContext;
  page: Page;
  /** Browser console lines (the extension host's console output is forwarded here too). */
  console: string[];
  screenshot(file: string): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  folder?: string;
  /** A `.code-workspace` file to open instead of a folder (multi-root). */
  workspace?: string;
  /** extensionDevelopmentPath (absolute path on this machine). */
  devPath?: string;
  /** extensionTestsPath (absolute path of the built tests module). */
  testsPath?: string;
  viewport?: { width: number; height: number };
  /** Wait for the workbench's DOM (.monaco-workbench). Default true. */
  waitForWorkbench?: boolean;
  echoConsole?: boolean;
}

/** Open the workbench in headless Chromium (fresh temp profile). */
export async function openWorkbench(server: CodeServer, opts: OpenOptions = {}): Promise<Workbench> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bridge-chromium-'));
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: opts.viewport ?? { width: 1400, height: 900 },
    });
  } catch (err) {
    fs.rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  const ctx = context;
  const consoleLines: string[] = [];
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  page.on('console', (msg) => {
    const line = `[browser ${msg.type()}] ${msg.text()}`;
    consoleLines.push(line);
    if (consoleLines.length > 5000) consoleLines.splice(0, consoleLines.length - 5000);
    if (opts.echoConsole) process.stderr.write(`${line}\n`);
  });
  page.on('pageerror', (err) => consoleLines.push(`[browser pageerror] ${err.message}`));
  const url = server.workbenchUrl({ folder: opts.folder, workspace: opts.workspace, devPath: opts.devPath, testsPath: opts.testsPath });
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  if (opts.waitForWorkbench ?? true) await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  let closed = false;
  return {
    context: ctx,
    page,
    console: consoleLines,
    async screenshot(file: string) {
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      await page.screenshot({ path: file, timeout: 15_000 });
    },
    async close() {
      if (closed) return;
      closed = true;
      await ctx.close().catch(() => undefined);
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
