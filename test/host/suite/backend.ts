import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AgentBridgeApi } from '../../../src/extension/extension';
import { waitUntil } from '../../support/waitUntil';

/** A minimal backend on loopback for the host suites: plays the agent side, sends TOOL_CALLs, collects TOOL_RESULTs. */
export interface Backend {
  readonly port: number;
  readonly urls: URL[];
  socket(): WebSocket;
  call(msg: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function startBackend(): Promise<Backend> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const urls: URL[] = [];
  let current: WebSocket | undefined;
  const waiting = new Map<string, (m: Record<string, unknown>) => void>();
  wss.on('connection', (ws, req) => {
    urls.push(new URL(req.url ?? '/', 'ws://x'));
    current = ws;
    ws.send(JSON.stringify({ type: 'CONNECTED', data: { message: 'ok', serverTime: Date.now() } }));
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as Record<string, unknown>;
      if (m.type === 'PING') ws.send(JSON.stringify({ type: 'PONG', data: m.data }));
      if (m.type === 'TOOL_RESULT') {
        const d = m.data as { toolCallId: string };
        waiting.get(d.toolCallId)?.(m);
      }
    });
  });
  const socket = (): WebSocket => {
    if (!current) throw new Error('no IDE connected');
    return current;
  };
  return {
    port: (wss.address() as AddressInfo).port,
    urls,
    socket,
    call(msg) {
      const id = (msg.toolCallId ?? (msg.data as { callId?: string } | undefined)?.callId) as string;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no TOOL_RESULT for ${id}`)), 15000);
        waiting.set(id, (m) => {
          clearTimeout(timer);
          resolve(m);
        });
        socket().send(JSON.stringify(msg));
      });
    },
    close: () => new Promise<void>((r) => {
      for (const c of wss.clients) c.terminate();
      wss.close(() => r());
    }),
  };
}

let seq = 0;
export const rootCall = (toolName: string, params: Record<string, unknown>) => ({
  type: 'TOOL_CALL', toolCallId: `${toolName}-${++seq}-${Date.now()}`, toolName, params: { projectKey: 'fixture', ...params }, webSocketSessionId: 'ws-test',
});


/** Activates the extension, points it at `serverUrl` and waits until it is connected (and `ready()` holds). */
export async function connectExtension(serverUrl: string, ready: () => boolean = () => true): Promise<AgentBridgeApi> {
  const ext = vscode.extensions.getExtension<AgentBridgeApi>('agent-bridge.agent-bridge');
  if (!ext) throw new Error('agent-bridge.agent-bridge is not installed');
  const api = await ext.activate();
  await vscode.workspace.getConfiguration('agentBridge').update('serverUrl', serverUrl, vscode.ConfigurationTarget.Global);
  await vscode.commands.executeCommand('agentBridge.connect');
  await waitUntil(() => api.state() === 'connected' && ready(), 'the extension to connect');
  return api;
}

/**
 * For a suite that talks to the extension through a backend of its own: started and connected
 * before the suite, disconnected and closed after it. The properties are set once `before` ran.
 */
export function connectedBackend(): { readonly backend: Backend; readonly api: AgentBridgeApi } {
  const live = {} as { backend: Backend; api: AgentBridgeApi };
  before(async () => {
    live.backend = await startBackend();
    live.api = await connectExtension(`ws://127.0.0.1:${live.backend.port}/ws/agent/chat`, () => live.backend.urls.length > 0);
  });
  after(async () => {
    await vscode.commands.executeCommand('agentBridge.disconnect');
    await live.backend.close();
  });
  return live;
}

/** The approval diffs open now: tabs whose modified side is a proposal. */
export const proposalTabs = (): vscode.Tab[] =>
  vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'agent-bridge-proposal');
