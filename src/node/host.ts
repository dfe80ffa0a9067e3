import { parseArgs } from 'node:util';
import { lineLogger } from '../core/log';
import { startHeadlessHost } from './headless';

const USAGE = `Usage: agent-bridge-host --url ws://HOST:PORT/ws/agent/chat --workspace DIR [options]

Answers an agent backend's tool calls against DIR, without VS Code.

Options:
  --url URL            backend WebSocket URL (/ws/analyze speaks v1, anything else v2)
  --workspace DIR      the project folder (default: the current folder)
  --project-key KEY    project key sent to the backend (default: the folder's name)
  --protocol P         auto | v1 | v2 (default: auto)
  --session-id ID      session id (default: a new random one)
  --auto-approve       allow tools that write files (refused otherwise)
  --no-ripgrep         use the in-process search instead of rg
  --verbose            log debug lines
  --help               show this help`;

function main(): void {
  let args;
  try {
    args = parseArgs({
      options: {
        url: { type: 'string' },
        workspace: { type: 'string', default: process.cwd() },
        'project-key': { type: 'string' },
        protocol: { type: 'string', default: 'auto' },
        'session-id': { type: 'string' },
        'auto-approve': { type: 'boolean', default: false },
        'no-ripgrep': { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!args.url) {
    process.stderr.write(`--url is required\n\n${USAGE}\n`);
    process.exit(2);
  }
  const protocol = args.protocol;
  if (protocol !== 'auto' && protocol !== 'v1' && protocol !== 'v2') {
    process.stderr.write(`--protocol must be auto, v1 or v2 (got ${protocol})\n`);
    process.exit(2);
  }
  const log = lineLogger((line) => process.stderr.write(`${line}\n`), args.verbose);
  let host;
  try {
    host = startHeadlessHost({
      serverUrl: args.url,
      workspace: args.workspace,
      projectKey: args['project-key'],
      protocol,
      sessionId: args['session-id'],
      autoApprove: args['auto-approve'],
      ripgrep: args['no-ripgrep'] ? false : undefined,
      log,
    });
  } catch (e) {
    process.stderr.write(`agent-bridge-host: ${(e as Error).message}\n`);
    process.exit(1);
  }
  log.info(`serving ${host.workspace.root} as "${args['project-key'] || host.workspace.name}" (session ${host.sessionId})`);
  const stop = () => {
    host.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main();
