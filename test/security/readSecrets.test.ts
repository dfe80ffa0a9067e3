/**
 * The hostile-agent suite: secrets that would leave through reads and searches when a file's name
 * is not what it seems (a backslash in a Linux name, a name that is not UTF-8, a decomposed
 * Unicode name), when the answer tells whether an outside path exists, or when a hard link to a
 * secret is swapped in between the check and the open. Each runs the real tools through the
 * dispatcher over a real folder, with the headless host's writer.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import { DEFAULT_EXCLUDE_GLOBS } from '../../src/core/policy/secrets';
import { SecretGuard } from '../../src/core/workspace/globSet';
import type { ToolResultMessage } from '../../src/core/protocol/messages';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { findOnPath, NodeWorkspace } from '../../src/node/nodeWorkspace';

const CANARY = 'CANARY-READ-SECRET-3e71';
const ENGINES = ['ripgrep', 'fallback'] as const;
type Engine = (typeof ENGINES)[number];

interface Project {
  readonly root: string;
  /** A folder beside the project: the rest of the machine. */
  readonly outside: string;
  call(tool: string, params: Record<string, unknown>): Promise<ToolResultMessage['data']>;
}

function project(engine: Engine, extraSecrets: readonly string[] = [], ripgrep?: (rg: string, base: string) => string): Project {
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

/** Every search tool, for words of the secret's line (never the canary itself: the answer repeats the pattern): no answer may hold the canary. */
async function searchesHide(p: Project, what: string): Promise<void> {
  for (const tool of ['grep_file', 'text_search']) {
    for (const [pattern, regex] of [['API_KEY', false], ['C.NARY-READ', true]] as const) {
      const r = await p.call(tool, { pattern, regex, context_lines: 2 });
      assert.equal(r.success, true, `${tool} ${pattern}: ${String(r.error)}`);
      const text = JSON.stringify(r);
      assert.ok(!text.includes(CANARY), `${what}: ${tool} ${pattern} leaked the secret: ${text.slice(0, 400)}`);
    }
  }
}

describe('a hard link to a secret under a name the search engine reports differently', () => {
  for (const engine of ENGINES) {
    test(`[${engine}] a name with a backslash (a literal character on Linux) hard-linked to .env`, async () => {
      const p = project(engine);
      fs.linkSync(path.join(p.root, '.env'), path.join(p.root, 'docs\\readme.txt'));
      fs.linkSync(path.join(p.root, '.env'), path.join(p.root, 'docs', 'a\\b.txt'));
      await searchesHide(p, 'backslash name');
      for (const rel of ['docs\\readme.txt', 'docs/a\\b.txt']) {
        const r = await p.call('read_file', { relativePath: rel });
        assert.equal(r.code, 'PERMISSION_DENIED', `${rel}: ${String(r.error)}`);
        assert.ok(!JSON.stringify(r).includes(CANARY));
      }
    });

    test(`[${engine}] a name that is not valid UTF-8 hard-linked to .env`, async () => {
      const p = project(engine);
      const name = Buffer.concat([Buffer.from(`${p.root}/docs/notes-`), Buffer.from([0xff, 0xfe, 0xe9]), Buffer.from('.txt')]);
      fs.linkSync(path.join(p.root, '.env'), name);
      await searchesHide(p, 'non-UTF-8 name');
    });
  }
});

describe('a secret glob written in one Unicode form, the file named in the other', () => {
  const NFC = 'geheim-\u00e4.txt';
  const NFD = 'geheim-a\u0308.txt';
  const cases = [
    { glob: `**/${NFC}`, name: NFD, label: 'NFC glob, NFD name' },
    { glob: `**/${NFD}`, name: NFC, label: 'NFD glob, NFC name' },
  ];
  for (const engine of ENGINES) {
    for (const { glob, name, label } of cases) {
      test(`[${engine}] ${label}: read, search and writes all treat it as secret`, async () => {
        const p = project(engine, [glob]);
        const files = [name, `docs/${name}`];
        for (const rel of files) fs.writeFileSync(path.join(p.root, rel), `API_KEY=${CANARY}\n`);
        const before = files.map((rel) => fs.readFileSync(path.join(p.root, rel)));
        for (const rel of files) {
          const r = await p.call('read_file', { relativePath: rel });
          assert.equal(r.code, 'PERMISSION_DENIED', `read_file ${rel}: ${String(r.error)}`);
        }
        await searchesHide(p, label);
        const r = await p.call('grep_file', { pattern: 'API_KEY', relativePath: 'docs' });
        assert.ok(!JSON.stringify(r).includes(CANARY), `a search of the folder leaked: ${JSON.stringify(r).slice(0, 400)}`);
        for (const rel of files) {
          for (const [tool, params] of [
            ['Replace', { file_path: rel, content: 'overwritten\n' }],
            ['Edit', { file_path: rel, old_string: 'API_KEY', new_string: 'X' }],
            ['apply_change', { relativePath: rel, searchContent: 'API_KEY', replaceContent: 'X' }],
          ] as const) {
            const w = await p.call(tool, params);
            assert.equal(w.success, false, `${tool} ${rel} was written`);
            assert.equal(w.code, 'PERMISSION_DENIED', `${tool} ${rel}: ${String(w.error)}`);
            assert.ok(!JSON.stringify(w).includes(CANARY));
          }
        }
        assert.deepEqual(files.map((rel) => fs.readFileSync(path.join(p.root, rel))), before);
      });
    }
  }
});

describe('a symbolic link out of the project does not tell whether its target exists', () => {
  test('the same code and the same message for an existing and a missing outside target, for reads, searches and writes', async () => {
    const p = project('ripgrep');
    fs.writeFileSync(path.join(p.outside, 'there.txt'), 'outside\n');
    fs.mkdirSync(path.join(p.outside, 'dir'));
    fs.writeFileSync(path.join(p.outside, 'dir/there.txt'), 'outside\n');
    const calls: [string, Record<string, unknown>][] = [
      ['read_file', { relativePath: 'peek' }],
      ['grep_file', { pattern: 'x', relativePath: 'peek' }],
      ['read_file', { relativePath: 'peekdir/there.txt' }],
      ['grep_file', { pattern: 'x', relativePath: 'peekdir' }],
      ['Replace', { file_path: 'peek', content: 'planted\n' }],
      ['Replace', { file_path: 'peekdir/there.txt', content: 'planted\n' }],
    ];
    const answers = async (file: string, dir: string): Promise<string[]> => {
      for (const link of ['peek', 'peekdir']) fs.rmSync(path.join(p.root, link), { force: true });
      fs.symlinkSync(path.join(p.outside, file), path.join(p.root, 'peek'));
      fs.symlinkSync(path.join(p.outside, dir), path.join(p.root, 'peekdir'));
      const out: string[] = [];
      for (const [tool, params] of calls) {
        const r = await p.call(tool, params);
        assert.equal(r.success, false, `${tool} ${JSON.stringify(params)} answered`);
        out.push(`${tool} ${JSON.stringify(params)} → ${String(r.code)}: ${String(r.error)}`);
      }
      return out;
    };
    const existing = await answers('there.txt', 'dir');
    const missing = await answers('missing.txt', 'nodir');
    assert.deepEqual(missing, existing);
    // a link out there that loops, or leads back into the project, answers the same too
    fs.symlinkSync(path.join(p.outside, 'loop'), path.join(p.outside, 'loop'));
    fs.symlinkSync(path.join(p.root, 'peekdir'), path.join(p.outside, 'back'));
    assert.deepEqual(await answers('loop', 'loop'), existing);
    assert.deepEqual(await answers('back', 'back'), existing);
    for (const made of ['loop', 'back']) fs.rmSync(path.join(p.outside, made));
    for (const line of existing) assert.match(line, /→ PERMISSION_DENIED: /);
    assert.deepEqual(fs.readdirSync(p.outside).sort(), ['dir', 'there.txt'], 'a write through a dangling link created a file outside the project');
    assert.equal(fs.readFileSync(path.join(p.outside, 'there.txt'), 'utf8'), 'outside\n');
  });
});

describe('a secret glob naming a folder: what the search never enters, a read refuses too', () => {
  // The search engines read `vault`, `/keys/` and `certs/*` as .gitignore lines do: the folder and
  // all it holds. The policy once matched only the folder itself, so read_file gave out its files.
  for (const engine of ENGINES) {
    test(`[${engine}] files inside a folder glob are neither found nor read`, async () => {
      const p = project(engine, ['vault', '/keys/', 'certs/*']);
      const inside = ['vault/prod.txt', 'vault/deep/er.txt', 'keys/k.txt', 'certs/site/chain.txt'];
      for (const rel of inside) {
        fs.mkdirSync(path.dirname(path.join(p.root, rel)), { recursive: true });
        fs.writeFileSync(path.join(p.root, rel), `API_KEY=${CANARY}\n`);
      }
      await searchesHide(p, 'inside a secret folder');
      for (const rel of inside) {
        const r = await p.call('read_file', { relativePath: rel });
        assert.equal(r.code, 'PERMISSION_DENIED', `${rel}: ${String(r.error)}`);
        assert.ok(!JSON.stringify(r).includes(CANARY));
      }
      assert.equal((await p.call('read_file', { relativePath: 'docs/plain.txt' })).success, true);
    });
  }
});

test('[ripgrep] a hard link to .env put back to a plain file right after ripgrep read it is not shown', async () => {
  // ripgrep reads the hard link; its output reaches the host only after a plain file took the name back
  const p = project('ripgrep', [], (rg, base) => {
    const script = path.join(base, 'rg-then-swap.sh');
    const held = path.join(base, 'rg-output');
    fs.writeFileSync(script, `#!/bin/sh\n"${rg}" "$@" > "${held}"\ncode=$?\nprintf 'plain words\\n' > docs/readme.new && mv docs/readme.new docs/readme.txt\ncat "${held}"\nexit $code\n`, { mode: 0o755 });
    return script;
  });
  fs.linkSync(path.join(p.root, '.env'), path.join(p.root, 'docs/readme.txt'));
  const r = await p.call('grep_file', { pattern: 'API_KEY|plain', regex: true, context_lines: 1 });
  assert.equal(r.success, true, String(r.error));
  const text = JSON.stringify(r);
  assert.ok(!text.includes(CANARY), `the secret's line was shown: ${text.slice(0, 400)}`);
  const found = (r as { structured?: { totalMatches?: number; notes?: string[] } }).structured;
  assert.equal(found?.totalMatches, 0, 'the left-out file still counts');
  assert.match(String(found?.notes?.join(' ')), /1 file\(s\) were left out/);
});

/**
 * A child process that, until `ms` has passed, puts a hard link to `secret` at each of `targets`
 * and then a plain file there again, each by an atomic rename (the temporary names in another
 * folder). Resolves with the number of rounds.
 */
function swapper(secret: string, targets: readonly string[], ms: number): Promise<number> {
  const script = `
    const fs = require('node:fs');
    const path = require('node:path');
    const [secret, ms, ...targets] = process.argv.slice(1);
    const work = path.join(path.dirname(secret), 'swap-work');
    fs.mkdirSync(work, { recursive: true });
    const link = path.join(work, 'link'), plain = path.join(work, 'plain');
    const end = Date.now() + Number(ms);
    let rounds = 0;
    while (Date.now() < end) {
      for (const target of targets) {
        fs.linkSync(secret, link);
        fs.renameSync(link, target);
        fs.writeFileSync(plain, 'plain words\\n');
        fs.renameSync(plain, target);
      }
      rounds++;
    }
    process.stdout.write(String(rounds));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, secret, String(ms), ...targets], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`the swapper exited with ${String(code)}`))));
  });
}

/**
 * Runs `call` over and over while the swapper puts a hard link to .env at `files` files in docs/
 * and a plain file there again: no answer may hold the canary, and some must show the plain file (else
 * the race was not run).
 */
async function raceSwapper(p: Project, files: number, call: () => Promise<ToolResultMessage['data']>): Promise<void> {
  const targets = Array.from({ length: files }, (_, i) => path.join(p.root, `docs/readme${i || ''}.txt`));
  for (const target of targets) fs.writeFileSync(target, 'plain words\n');
  const raceMs = 3000;
  const swaps = swapper(path.join(p.root, '.env'), targets, raceMs);
  const end = Date.now() + raceMs;
  let calls = 0;
  let plain = 0;
  const leaks: string[] = [];
  while (Date.now() < end) {
    const r = await call();
    calls++;
    const text = JSON.stringify(r);
    if (text.includes(CANARY)) leaks.push(text.slice(0, 200));
    if (r.success && text.includes('plain words')) plain++;
    // small reads are synchronous: let the host's other work (the swapper's exit) in
    if (calls % 50 === 0) await new Promise(setImmediate);
  }
  const swapped = await swaps;
  assert.ok(swapped * files > 10, `the swapper made only ${swapped * files} swaps`);
  assert.ok(plain > 0, `none of ${calls} calls saw the plain file: the race was not run`);
  assert.deepEqual(leaks, [], `${leaks.length} of ${calls} calls (${plain} showing the plain file, ${swapped} rounds) leaked the secret`);
}

test('a hard link to .env swapped in between the check and the open is never read', async () => {
  const p = project('ripgrep');
  await raceSwapper(p, 1, () => p.call('read_file', { relativePath: 'docs/readme.txt' }));
});

for (const engine of ENGINES) {
  test(`[${engine}] a hard link to .env swapped in while the search reads never shows its lines`, async () => {
    const p = project(engine);
    await raceSwapper(p, 32, () => p.call('grep_file', { pattern: 'API_KEY|plain words', regex: true, relativePath: 'docs', limit: 1000 }));
  });
}
