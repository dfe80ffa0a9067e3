/**
 * `npm run dev-backend`: a local agent backend to point the extension at during development.
 *
 *   node dist/devBackend.js [--port 8080] [--host 127.0.0.1] [--token SECRET] [--tool-timeout-ms 30000]
 */
import { parseArgs } from 'node:util';
import { SCRIPTED_COMMANDS, scriptedAgent } from './scriptedAgent';
import { startDevBackend, V1_PATH, V2_PATH, type DevBackend, type SessionInfo } from './server';
import { TOOL_EXECUTE_PATH, SESSIONS_PATH } from './toolApi';

const USAGE = `Usage: dev-backend [--port 8080] [--host 127.0.0.1] [--token SECRET] [--tool-timeout-ms 30000]`;

function print(line: string): void {
  process.stdout.write(`${new Date().toISOString().slice(11, 23)} ${line}\n`);
}

/** Shell-quotes with single quotes, so any project key survives copy and paste. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A tool call to paste, aimed by project key (the folder's name unless agentBridge.projectKey says
 * otherwise): it keeps working after the editor reconnects, which gives it a new webSocketSessionId.
 */
function curlExample(backend: DevBackend, s: SessionInfo): string {
  const body = {
    tool: 'read_file',
    params: { relativePath: 'README.md', start_line: 1, end_line: 20 },
    projectKey: s.projectKey,
  };
  return `curl -s -X POST ${shellQuote(backend.url + TOOL_EXECUTE_PATH)} -H 'Content-Type: application/json' -d ${shellQuote(JSON.stringify(body))}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      token: { type: 'string' },
      'tool-timeout-ms': { type: 'string', default: '30000' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = Number(values.port);
  const toolTimeoutMs = Number(values['tool-timeout-ms']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${values.port}`);
  if (!Number.isFinite(toolTimeoutMs) || toolTimeoutMs <= 0) throw new Error(`--tool-timeout-ms must be positive`);

  // The scripted agent answers chat (/help lists its commands); startDevBackend's default stays the placeholder.
  const backend = await startDevBackend({ port, host: values.host, token: values.token, toolTimeoutMs, log: print, chat: scriptedAgent, commands: SCRIPTED_COMMANDS });
  print(`Agent Bridge dev backend listening on ${backend.url}`);
  print(`  v2: ${backend.wsUrl(V2_PATH)}?sessionId=<id>&projectKey=<key>`);
  print(`  v1: ${backend.wsUrl(V1_PATH)}?sessionId=<id>&projectKey=<key>&projectPath=<abs path>`);
  print(`  tool API: POST ${backend.url}${TOOL_EXECUTE_PATH}   sessions: GET ${backend.url}${SESSIONS_PATH}`);
  if (values.token) print('  token required (CONNECT {data:{token}} or Authorization: Bearer)');

  backend.onSession(({ kind, session }) => {
    if (kind === 'disconnected' || !session.authenticated) return;
    print(`IDE ready. Try a tool call:\n  ${curlExample(backend, session)}`);
  });

  let stopping = false;
  const stop = (signal: string): void => {
    // A second Ctrl-C while closing means "now".
    if (stopping) process.exit(130);
    stopping = true;
    print(`${signal}: closing`);
    backend.close().then(
      () => process.exit(0),
      (err: unknown) => {
        print(`close failed: ${String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`dev-backend: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
  process.exit(1);
});
