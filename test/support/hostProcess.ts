import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startDevBackend, type DevBackend, type SessionInfo } from '../../src/devBackend/server';
import { hostileTree, type HostileTree } from './hostile';

const repo = path.resolve(__dirname, '../..');

/** The headless host in its own process, as in real use, over a hostile tree and linked to a dev backend. */
export interface HostProcess {
  readonly tree: HostileTree;
  readonly backend: DevBackend;
  readonly child: ChildProcess;
  readonly session: SessionInfo;
  /** How the host process ended (`code 1 signal null`), or undefined while it runs. */
  exited(): string | undefined;
  /** Kills the host and removes the backend, the tree and the host's state folder. */
  close(): Promise<void>;
}

/**
 * Starts `src/node/host.ts` (auto-approving, without ripgrep) over a fresh hostile tree, connected
 * over loopback to a new dev backend, and waits for its session: a test that could crash or block
 * the host then sees it happen to a real process rather than to its own.
 */
export async function startHostProcess(): Promise<HostProcess> {
  const tree = hostileTree();
  const backend = await startDevBackend({ port: 0, host: '127.0.0.1' });
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-host-state-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repo, 'src/node/host.ts'), '--url', backend.wsUrl(), '--workspace', tree.root, '--auto-approve', '--state-dir', stateDir, '--no-ripgrep'],
    { cwd: repo, stdio: 'ignore' },
  );
  let exited: string | undefined;
  child.on('exit', (code, signal) => {
    exited = `code ${code} signal ${signal}`;
  });
  const close = async (): Promise<void> => {
    child.kill('SIGKILL');
    await backend.close();
    tree.remove();
    fs.rmSync(stateDir, { recursive: true, force: true });
  };
  try {
    const session = await backend.waitForSession(undefined, 60_000);
    return { tree, backend, child, session, exited: () => exited, close };
  } catch (err) {
    await close();
    throw err;
  }
}
