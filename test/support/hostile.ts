/**
 * A hostile setting for the trust-boundary suite: a project with planted secrets, protected files,
 * symbolic links that lead into them or out of the project, a FIFO, and a folder outside the project
 * with its own canary; a real dev backend on loopback and the headless host over the project. Every
 * frame the host sends is kept, so a test can assert that no canary ever left.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { silentLogger } from './silentLogger';
import { startDevBackend, type DevBackend, type ToolCallShape } from '../../src/devBackend/server';
import { startHeadlessHost, type HeadlessHost } from '../../src/node/headless';

/** Strings planted in files no answer may ever contain. */
export const CANARY = {
  env: 'CANARY-ENV-7f3a',
  key: 'CANARY-KEY-91bc',
  git: 'CANARY-GIT-44d0',
  envrc: 'CANARY-ENVRC-2e18',
  outside: 'CANARY-OUTSIDE-c6a2',
  custom: 'CANARY-CUSTOM-5b77',
  brace: 'CANARY-BRACE-0d19',
} as const;
export const ALL_CANARIES: readonly string[] = Object.values(CANARY);

export interface HostileTree {
  readonly root: string;
  readonly outside: string;
  /** Files whose bytes must never change (project-relative, or absolute for outside ones). */
  readonly guarded: readonly string[];
  remove(): void;
}

const write = (abs: string, text: string): void => {
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
};

/** The project and, beside it, a folder that stands for the rest of the machine. */
export function hostileTree(): HostileTree {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-hostile-')));
  const root = path.join(base, 'project');
  const outside = path.join(base, 'elsewhere');
  const files: Record<string, string> = {
    '.env': `API_KEY=${CANARY.env}\n`,
    'id_rsa': `-----BEGIN OPENSSH PRIVATE KEY-----\n${CANARY.key}\n`,
    '.git/config': `[core]\n\tbare = false\n# ${CANARY.git}\n`,
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.envrc': `export TOKEN=${CANARY.envrc}\n`,
    '.vscode/settings.json': '{\n  "editor.tabSize": 2\n}\n',
    '.github/workflows/ci.yml': 'on: push\njobs: {}\n',
    'src/App.java': 'package app;\n\n/** The app. */\npublic class App {\n  public void run() {\n    new Helper().help();\n  }\n}\n',
    'src/Helper.java': 'package app;\n\npublic class Helper {\n  public void help() {}\n}\n',
    'private/Hidden.java': `package app;\n\n/** ${CANARY.custom} */\npublic class Hidden {\n  public void leak() { new App().run(); }\n}\n`,
    'conf/db.secret': `password=${CANARY.brace}\n`,
    'conf/OTHER.PRIV': `password=${CANARY.brace}\n`,
    'notes.md': 'ordinary notes\n',
  };
  for (const [rel, text] of Object.entries(files)) write(path.join(root, rel), text);
  write(path.join(outside, 'Outside.java'), `package out;\n\n/** ${CANARY.outside} */\npublic class Outside {\n  public void secret() {}\n}\n`);
  write(path.join(outside, 'notes.txt'), `${CANARY.outside}\n`);
  const link = (target: string, rel: string) => fs.symlinkSync(target, path.join(root, rel));
  link(path.join(root, '.git/config'), 'cfg');
  link(path.join(root, '.git'), 'gitdir');
  link(path.join(root, '.env'), 'notes.txt');
  link(path.join(root, '.vscode/settings.json'), 'vs.json');
  link(path.join(root, '.github'), 'gh');
  link(outside, 'out');
  link(path.join(outside, 'Outside.java'), 'src/Ext.java');
  execFileSync('mkfifo', [path.join(root, 'pipe.txt')]);
  execFileSync('mkfifo', [path.join(root, 'src/Pipe.java')]);
  const guarded = ['.env', 'id_rsa', '.git/config', '.envrc', '.vscode/settings.json', '.github/workflows/ci.yml', 'conf/db.secret', path.join(outside, 'notes.txt'), path.join(outside, 'Outside.java')];
  return { root, outside, guarded, remove: () => fs.rmSync(base, { recursive: true, force: true }) };
}

/** sha256 of every guarded file, and the list of files under .git/hooks and .github (nothing may appear). */
export function fingerprint(tree: HostileTree): string {
  const h = createHash('sha256');
  for (const f of tree.guarded) h.update(f).update(fs.readFileSync(path.isAbsolute(f) ? f : path.join(tree.root, f)));
  for (const dir of ['.git', '.github', '.vscode', 'private']) {
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    h.update(walk(path.join(tree.root, dir)).sort().join('\n'));
  }
  h.update(fs.readdirSync(tree.outside).sort().join('\n'));
  return h.digest('hex');
}

export interface HostileLink {
  readonly tree: HostileTree;
  readonly backend: DevBackend;
  readonly host: HeadlessHost;
  /** Every frame the host sent, as text. */
  readonly frames: string[];
  /** Calls a tool in the given TOOL_CALL shape and returns the TOOL_RESULT's data. */
  call(tool: string, params: Record<string, unknown>, shape?: ToolCallShape): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** A dev backend on loopback and the headless host over a fresh hostile tree; `close()` ends all three. */
export async function hostileLink(o: { autoApprove?: boolean; excludeGlobs?: string[]; protectedGlobs?: string[] } = {}): Promise<HostileLink> {
  const tree = hostileTree();
  const backend = await startDevBackend({ port: 0, host: '127.0.0.1' });
  const frames: string[] = [];
  backend.onMessage((e) => frames.push(e.text));
  const host = startHeadlessHost({
    serverUrl: backend.wsUrl(),
    workspace: tree.root,
    log: silentLogger,
    autoApprove: o.autoApprove ?? true,
    excludeGlobs: o.excludeGlobs ?? ['**/private/**', '**/*.{secret,priv}'],
    protectedGlobs: o.protectedGlobs,
    limits: { timeoutMs: 5000 },
  });
  await backend.waitForSession(undefined, 5000);
  return {
    tree,
    backend,
    host,
    frames,
    async call(tool, params, shape = 'root') {
      const message = await backend.callTool(tool, params, { shape, timeoutMs: 15_000 });
      return message.data as Record<string, unknown>;
    },
    async close() {
      host.stop();
      await backend.close();
      tree.remove();
    },
  };
}

/** No frame the host sent holds any canary. */
export function assertNoCanary(frames: readonly string[]): void {
  for (const frame of frames) {
    for (const canary of ALL_CANARIES) assert.ok(!frame.includes(canary), `a frame leaked ${canary}: ${frame.slice(0, 400)}`);
  }
}
