import { randomUUID } from 'node:crypto';
import { Bridge } from '../core/bridge';
import { BridgeConnection, type ConnectionTiming, type ProtocolSetting } from '../core/connection';
import { Dispatcher } from '../core/dispatcher';
import type { Logger } from '../core/log';
import { ALL_TOOLS } from '../core/tools/registry';
import { DirectWriteGate } from './directWriteGate';
import { NodeWorkspace, type NodeWorkspaceOptions } from './nodeWorkspace';

export interface HeadlessHostOptions extends NodeWorkspaceOptions {
  readonly serverUrl: string;
  readonly workspace: string;
  readonly projectKey?: string;
  readonly protocol?: ProtocolSetting;
  readonly sessionId?: string;
  /** Without it every writing tool is refused: there is nobody to ask. */
  readonly autoApprove?: boolean;
  readonly log: Logger;
  readonly timing?: Partial<ConnectionTiming>;
}

export interface HeadlessHost {
  readonly workspace: NodeWorkspace;
  readonly connection: BridgeConnection;
  readonly dispatcher: Dispatcher;
  readonly sessionId: string;
  stop(): void;
}

export const HEADLESS_WRITE_REFUSAL =
  'The headless host has nobody to approve changes, so it refuses tools that write. Start it with --auto-approve to allow them.';

/** The same tools as the extension, over a folder, with no VS Code: for servers, CI and benchmarks. */
export function startHeadlessHost(o: HeadlessHostOptions): HeadlessHost {
  const workspace = new NodeWorkspace(o.workspace, o);
  const sessionId = o.sessionId ?? randomUUID();
  const dispatcher = new Dispatcher({
    workspace,
    tools: ALL_TOOLS,
    log: o.log,
    changes: o.autoApprove ? new DirectWriteGate() : undefined,
    writeRefusal: () => (o.autoApprove ? undefined : HEADLESS_WRITE_REFUSAL),
  });
  const connection = new BridgeConnection({
    serverUrl: o.serverUrl,
    protocol: o.protocol ?? 'auto',
    sessionId,
    projectKey: o.projectKey || workspace.name,
    projectPath: workspace.root,
    log: o.log,
    timing: o.timing,
  });
  const bridge = new Bridge(connection, dispatcher, { log: o.log });
  connection.connect();
  return {
    workspace,
    connection,
    dispatcher,
    sessionId,
    stop() {
      dispatcher.cancelAll('host stopped');
      bridge.dispose();
      connection.disconnect();
    },
  };
}
