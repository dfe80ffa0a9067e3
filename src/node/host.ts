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
  --session-id ID      session id (default: a new random one); with the same id after a
                       restart, a write already made is never made again
  --state-dir DIR      where the journal of write ids is kept (default:
                       $XDG_STATE_HOME/agent-bridge or ~/.local/state/agent-bridge)
  --auto-approve       allow tools that write files (refused otherwise)
  --token TOKEN        token for the backend (default: $AGENT_BRIDGE_TOKEN); never logged
  --exclude-glob GLOB  another secret-file glob (repeatable), added to the defaults
                       (.env*, *.pem, *.key, id_rsa*, .git/**, ...): never read, searched or written
  --protected-glob GLOB
                       another protected-file glob (repeatable), added to the built-in list
                       (.git, HEAD, CI pipelines, hooks, .vscode, ...): a change is refused
  --max-concurrent N   read tools run at once (default 8)
  --tool-timeout S     seconds before a read tool is stopped with TIMEOUT (default 25)
  --result-retention S seconds an answer finished while the link is down waits for the
                       reconnect (default 60; 0 drops such answers)
  --no-ripgrep         use the in-process search instead of rg
  --no-ts-service      answer TypeScript/JavaScript code questions from the parser only, not
                       from the typescript package's language service (over tsconfig.json)
  --no-system-ca       for wss:// URLs, trust only Node's built-in certificate authorities,
                       not the system's (by default also those of the system store: the
                       OpenSSL bundle, or SSL_CERT_FILE / SSL_CERT_DIR; the macOS keychains)
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
        'state-dir': { type: 'string' },
        'auto-approve': { type: 'boolean', default: false },
        token: { type: 'string' },
        'exclude-glob': { type: 'string', multiple: true },
        'protected-glob': { type: 'string', multiple: true },
        'max-concurrent': { type: 'string' },
        'tool-timeout': { type: 'string' },
        'result-retention': { type: 'string' },
        'no-ripgrep': { type: 'boolean', default: false },
        'no-ts-service': { type: 'boolean', default: false },
        'no-system-ca': { type: 'boolean', default: false },
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
  const number = (flag: string, value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) {
      process.stderr.write(`--${flag} must be a positive number (got ${value})\n`);
      process.exit(2);
    }
    return n;
  };
  const maxConcurrent = number('max-concurrent', args['max-concurrent']);
  const timeoutS = number('tool-timeout', args['tool-timeout']);
  const retention = args['result-retention'];
  const retentionS = retention === undefined ? undefined : Number(retention);
  if (retentionS !== undefined && !(Number.isFinite(retentionS) && retentionS >= 0)) {
    process.stderr.write(`--result-retention must be a number of seconds, 0 or more (got ${retention})\n`);
    process.exit(2);
  }
  // A token in the environment keeps it out of `ps` listings.
  const token = args.token ?? process.env.AGENT_BRIDGE_TOKEN;
  const log = lineLogger((line) => process.stderr.write(`${line}\n`), args.verbose);
  let host;
  try {
    host = startHeadlessHost({
      serverUrl: args.url,
      workspace: args.workspace,
      projectKey: args['project-key'],
      protocol,
      sessionId: args['session-id'],
      stateDir: args['state-dir'],
      autoApprove: args['auto-approve'],
      token: token || undefined,
      excludeGlobs: args['exclude-glob'],
      protectedGlobs: args['protected-glob'],
      ...(args['no-ts-service'] ? { typescriptService: false as const } : {}),
      limits: { maxConcurrent, timeoutMs: timeoutS === undefined ? undefined : timeoutS * 1000 },
      resultRetentionMs: retentionS === undefined ? undefined : retentionS * 1000,
      ripgrep: args['no-ripgrep'] ? false : undefined,
      systemCertificates: !args['no-system-ca'],
      log,
    });
  } catch (e) {
    process.stderr.write(`agent-bridge-host: ${(e as Error).message}\n`);
    process.exit(1);
  }
  log.info(`serving ${host.workspace.root} as "${args['project-key'] || host.workspace.name}" (session ${host.sessionId})`);
  // A refused token will not get better by retrying: say so and exit.
  host.connection.onState((state) => {
    if (state === 'disconnected' && host.connection.authRejected) {
      process.stderr.write(`agent-bridge-host: ${host.connection.lastError ?? 'the backend refused the token'}\n`);
      host.stop();
      process.exit(3);
    }
  });
  const stop = () => {
    host.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main();
