import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after } from 'node:test';
import { startDevBackend, type DevBackend } from '../../src/devBackend/server';
import { startHeadlessHost, type HeadlessHost } from '../../src/node/headless';
import { silentLogger } from './silentLogger';

/** A fresh temporary folder (its real path), removed when the test file ends. */
export function tempFolder(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface HeadlessLink {
  readonly backend: DevBackend;
  readonly host: HeadlessHost;
  close(): Promise<void>;
}

/** A dev backend on loopback and the auto-approving headless host over `workspace`, once its session is open. */
export async function headlessLink(workspace: string, o: { sessionId?: string; stateDir?: string } = {}): Promise<HeadlessLink> {
  const backend = await startDevBackend({ port: 0 });
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace, log: silentLogger, autoApprove: true, stateDir: o.stateDir ?? false, sessionId: o.sessionId });
  await backend.waitForSession(undefined, 5000);
  return {
    backend,
    host,
    async close() {
      host.stop();
      await backend.close();
    },
  };
}

/** A TOOL_CALL frame as the backend would send it, for tests that send raw frames. */
export const rawToolCall = (id: string, toolName: string, params: Record<string, unknown>): string => JSON.stringify({ type: 'TOOL_CALL', toolCallId: id, toolName, params });
