import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { DEFAULT_EXCLUDE_GLOBS } from '../../src/core/policy/secrets';
import type { ToolResultMessage } from '../../src/core/protocol/messages';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { SecretGuard } from '../../src/core/workspace/globSet';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { findOnPath, NodeWorkspace } from '../../src/node/nodeWorkspace';
import { silentLogger } from './silentLogger';

/** A project whose .env holds one secret line, for the read and search leaks of the hostile-agent suite. */
export const CANARY = 'CANARY-READ-SECRET-3e71';
export const ENGINES = ['ripgrep', 'fallback'] as const;
export type Engine = (typeof ENGINES)[number];

export interface Project {
  readonly root: string;
  /** A folder beside the project: the rest of the machine. */
  readonly outside: string;
  call(tool: string, params: Record<string, unknown>): Promise<ToolResultMessage['data']>;
}

export function secretProject(engine: Engine, extraSecrets: readonly string[] = [], ripgrep?: (rg: string, base: string) => string): Project {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-readsecrets-')));
  after(() => fs.rmSync(base, { recursive: true, force: true }));
  const root = path.join(base, 'project');
  const outside = path.join(base, 'elsewhere');
  fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(root, '.env'), `API_KEY=${CANARY}\n`);
  fs.writeFileSync(path.join(root, 'docs/plain.txt'), 'nothing to see\n');
  const found = engine === 'ripgrep' ? findOnPath('rg') : false;
  assert.ok(found !== undefined, 'these tests need ripgrep (rg) on PATH');
  const rg = found && ripgrep ? ripgrep(found, base) : found;
  const ws = new NodeWorkspace(root, { ripgrep: rg, secrets: new SecretGuard([...DEFAULT_EXCLUDE_GLOBS, ...extraSecrets]) });
  const d = new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });
  let n = 0;
  return { root, outside, call: async (toolName, params) => (await d.dispatch({ id: `r${++n}`, idKey: 'toolCallId', toolName, params })).data };
}

