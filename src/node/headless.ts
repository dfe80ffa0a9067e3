import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import type { BridgeConnection, ConnectionTiming, ProtocolSetting } from '../core/link/connection';
import type { Dispatcher } from '../core/link/dispatcher';
import { startLink } from '../core/link/startLink';
import { redactingLogger, type Logger } from '../core/log';
import { useMessageBundle } from '../core/l10n';
import type { ToolLimits } from '../core/policy/limiter';
import { extraProtectedGlobs } from '../core/policy/protectedFiles';
import { DEFAULT_EXCLUDE_GLOBS } from '../core/policy/secrets';
import { SecretGuard } from '../core/workspace/globSet';
import { systemTrust } from '../core/link/systemCa';
import { tokenAuth } from '../core/link/token';
import { ALL_TOOLS } from '../core/tools/registry';
import { journalDirFor, WriteJournal } from '../core/link/writeJournal';
import { DirectWriteGate } from './directWriteGate';
import { bundleForLocale } from './language';
import { NodeWorkspace, type NodeWorkspaceOptions } from './nodeWorkspace';

export interface HeadlessHostOptions extends NodeWorkspaceOptions {
  readonly serverUrl: string;
  readonly workspace: string;
  /** Language of tool results ('en', 'zh-cn'); default English. It is the whole process's. */
  readonly locale?: string;
  readonly projectKey?: string;
  readonly protocol?: ProtocolSetting;
  readonly sessionId?: string;
  /** Without it every writing tool is refused: there is nobody to ask. */
  readonly autoApprove?: boolean;
  readonly log: Logger;
  readonly timing?: Partial<ConnectionTiming>;
  /** Token for the backend (--token or AGENT_BRIDGE_TOKEN): sent as a Bearer header and in CONNECT; never logged. */
  readonly token?: string;
  /** Globs of secret files, added to DEFAULT_EXCLUDE_GLOBS: never read, never searched, never written. */
  readonly excludeGlobs?: readonly string[];
  /** Globs of files that run code, added to the built-in protected files: with --auto-approve a change to one is still refused. */
  readonly protectedGlobs?: readonly string[];
  /** Concurrency, queue and deadline of read tools (defaults: 8, 64, 25 s). */
  readonly limits?: Partial<ToolLimits>;
  /** How long answers finished while the link is down wait for it (default 60 s; 0 drops them). */
  readonly resultRetentionMs?: number;
  /**
   * Where the host keeps state across restarts: the journal of write ids (a write resent after a
   * restart with the same --session-id is never applied twice). Default: $XDG_STATE_HOME/agent-bridge
   * or ~/.local/state/agent-bridge. `false`: in memory only.
   */
  readonly stateDir?: string | false;
  /** For wss:// URLs, also trust the operating system's certificate authorities (default true; --no-system-ca turns it off). */
  readonly systemCertificates?: boolean;
}

export interface HeadlessHost {
  readonly workspace: NodeWorkspace;
  readonly connection: BridgeConnection;
  readonly dispatcher: Dispatcher;
  readonly sessionId: string;
  readonly secrets: SecretGuard;
  stop(): void;
}

/** $XDG_STATE_HOME/agent-bridge, else ~/.local/state/agent-bridge. */
function defaultStateDir(): string {
  return path.join(process.env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state'), 'agent-bridge');
}

const HEADLESS_WRITE_REFUSAL =
  'The headless host has nobody to approve changes, so it refuses tools that write. Start it with --auto-approve to allow them.';

/** The same tools as the extension, over a folder, with no VS Code: for servers, CI and benchmarks. */
export function startHeadlessHost(o: HeadlessHostOptions): HeadlessHost {
  const log = redactingLogger(o.log, () => [o.token]);
  useMessageBundle(bundleForLocale(o.locale));
  const secrets = o.secrets ?? new SecretGuard([...DEFAULT_EXCLUDE_GLOBS, ...(o.excludeGlobs ?? [])]);
  const extraProtected = o.extraProtected ?? extraProtectedGlobs(o.protectedGlobs ?? []);
  // A glob the engine refuses matches every path (globSet.ts): say why nothing can be read or written unasked.
  for (const r of secrets.refused) log.warn(`The secret glob '${r.glob}' cannot be read (${r.reason}): every file counts as secret until it is fixed.`);
  for (const r of extraProtected.refused) log.warn(`The protected glob '${r.glob}' cannot be read (${r.reason}): every file counts as protected until it is fixed.`);
  const workspace = new NodeWorkspace(o.workspace, {
    ...o,
    secrets,
    extraProtected,
    // TypeScript's own language service answers TS/JS questions unless turned off (--no-ts-service).
    typescriptService: o.typescriptService === false ? false : { log, ...o.typescriptService },
  });
  const sessionId = o.sessionId ?? randomUUID();
  const stateDir = o.stateDir === undefined ? defaultStateDir() : o.stateDir;
  const journal = stateDir ? WriteJournal.forSession(journalDirFor(stateDir, workspace.root), sessionId, log) : new WriteJournal(undefined, log);
  const link = startLink({
    dispatcher: {
      workspace,
      tools: ALL_TOOLS,
      log,
      // Nobody here can approve a change to a secret or protected file: the gate refuses those.
      changes: o.autoApprove ? new DirectWriteGate() : undefined,
      writeRefusal: () => (o.autoApprove ? undefined : HEADLESS_WRITE_REFUSAL),
      limits: () => o.limits ?? {},
      journal,
    },
    connection: {
      serverUrl: o.serverUrl,
      protocol: o.protocol ?? 'auto',
      sessionId,
      projectKey: o.projectKey || workspace.name,
      projectPath: workspace.root,
      timing: o.timing,
      ...tokenAuth(() => Promise.resolve(o.token)),
      trust: o.systemCertificates === false ? undefined : () => systemTrust(),
    },
    outboxTtlMs: o.resultRetentionMs,
  });
  link.connect();
  return {
    workspace,
    connection: link.connection,
    dispatcher: link.dispatcher,
    sessionId,
    secrets,
    stop: () => {
      link.stop('host stopped');
      workspace.typescript?.close();
    },
  };
}
