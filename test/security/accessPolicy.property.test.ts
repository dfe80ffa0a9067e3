/**
 * Property tests of the access policy over generated path strings and symbolic-link layouts: any
 * path an agent can write either is refused, or leads inside the project and is classified by the
 * stricter of where it is written and where it leads; and a secret file's canary never comes back
 * from a read, however the path is spelled.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { readProjectText } from '../../src/core/policy/projectText';
import { ToolError } from '../../src/core/protocol/errors';
import { accessPolicy } from '../../src/core/policy/accessPolicy';
import { PROTECTED_GLOBS } from '../../src/core/policy/protectedFiles';
import { DEFAULT_EXCLUDE_GLOBS } from '../../src/core/policy/secrets';
import { GlobSet, SecretGuard } from '../../src/core/workspace/globSet';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';

const RUNS = Number(process.env.SECURITY_PROPERTY_RUNS) || 200;
const CANARY = 'CANARY-PROP-3141';
const guard = new SecretGuard(DEFAULT_EXCLUDE_GLOBS);
const protectedSet = new GlobSet(PROTECTED_GLOBS);

/** Places a link may point to: inside (ordinary, secret, protected, folders) and outside. */
const TARGETS = ['src', 'src/a.txt', '.env', 'keys/id_rsa', '.git', '.git/config', '.vscode/settings.json', '.vscode', '@outside', '@outside/o.txt', '.', '..', '@missing'];
const LINK_NAMES = ['l0', 'src/l1', 'docs/l2', 'l3'];
const SEGMENTS = ['src', 'a.txt', '.env', '.ENV', 'keys', 'id_rsa', '.git', 'config', '.vscode', 'settings.json', 'docs', 'l0', 'l1', 'l2', 'l3', '..', '.', '', 'new.txt', 'o.txt', '.env.local'];

function layout(links: readonly (readonly [string, string])[]): { root: string; base: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ab-prop-')));
  const root = path.join(base, 'p');
  const files: Record<string, string> = {
    'src/a.txt': 'plain\n',
    '.env': `K=${CANARY}\n`,
    '.env.local': `K=${CANARY}\n`,
    'keys/id_rsa': `${CANARY}\n`,
    '.git/config': `${CANARY}\n`,
    '.vscode/settings.json': '{}\n',
    'docs/readme.md': 'docs\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  fs.mkdirSync(path.join(base, 'outside'));
  fs.writeFileSync(path.join(base, 'outside', 'o.txt'), `${CANARY}\n`);
  for (const [name, target] of links) {
    const to = target.startsWith('@outside') ? path.join(base, 'outside', target.slice('@outside'.length)) : target === '@missing' ? path.join(base, 'nowhere') : path.join(root, target);
    const at = path.join(root, name);
    if (fs.existsSync(at) || fs.lstatSync(at, { throwIfNoEntry: false })) continue;
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(to, at);
  }
  return { root, base };
}

/**
 * Where a path leads, computed here independently of the policy: the nearest existing ancestor's
 * realpath plus the rest, a dangling link followed to where its target would be.
 */
function leadsTo(abs: string): string {
  const rest: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      return path.join(fs.realpathSync(cur), ...rest.reverse());
    } catch {
      if (isLink(cur)) {
        cur = path.resolve(leadsTo(path.dirname(cur)), fs.readlinkSync(cur));
        continue;
      }
      const parent = path.dirname(cur);
      if (parent === cur) return abs;
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

const inside = (root: string, p: string) => p === root || p.startsWith(root + path.sep);
const rel = (root: string, p: string) => path.relative(root, p).split(path.sep).join('/') || '.';

test('any requested path is refused, or lands inside the project classified by the stricter of its two names', async () => {
  const link = fc.tuple(fc.constantFrom(...LINK_NAMES), fc.constantFrom(...TARGETS));
  const request = fc.tuple(fc.boolean(), fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 5 })).map(([absolute, segs]) => (absolute ? '/' : '') + segs.join('/'));
  await fc.assert(
    fc.asyncProperty(fc.uniqueArray(link, { maxLength: 4, selector: (l) => l[0] }), fc.array(request, { minLength: 1, maxLength: 6 }), async (links, requests) => {
      const { root, base } = layout(links);
      try {
        const ws = new NodeWorkspace(root, { ripgrep: false });
        const policy = accessPolicy(ws);
        for (const req of requests) {
          const lexical = path.resolve(root, req.startsWith('/') ? `.${req}` : req).replace(/\/$/, '');
          const asked = path.isAbsolute(req) ? path.resolve(req) : lexical;
          const real = leadsTo(asked);
          let access;
          try {
            access = await policy.resolve(req);
          } catch (e) {
            assert.ok(e instanceof ToolError, String(e));
            assert.ok(['PERMISSION_DENIED', 'VALIDATION_FAILED'].includes(e.code), e.code);
            // A refusal is right only for paths that leave the project (written or followed).
            assert.ok(!inside(root, asked) || !inside(root, real), `refused a path inside the project: ${req} → ${real}`);
            continue;
          }
          assert.ok(inside(root, asked) && inside(root, real), `${req} leads outside (${real}) yet was allowed`);
          assert.equal(access.abs, real, req);
          const names = [rel(root, asked), rel(root, real)];
          const secret = names.some((n) => guard.isSecret(n));
          const prot = names.some((n) => protectedSet.match(n) !== undefined);
          assert.equal(access.kind, secret ? 'secret' : prot ? 'protected' : 'normal', `${req} (${names.join(' → ')})`);
          // Reading: a secret is never returned; anything returned holds no canary.
          try {
            const text = await readProjectText(ws, req);
            assert.ok(!text.text.includes(CANARY), `${req} returned a secret's text`);
          } catch (e) {
            assert.ok(e instanceof ToolError, String(e));
          }
        }
      } finally {
        fs.rmSync(base, { recursive: true, force: true });
      }
    }),
    { numRuns: RUNS },
  );
});

test('the glob engine: one set of case rules, braces honoured, folders matched by their contents', () => {
  const g = new SecretGuard(['**/*.{secret,priv}', '**/.env*', 'private/**']);
  for (const p of ['a.secret', 'x/B.SECRET', 'c.Priv', '.envrc', '.ENV.local', 'private', 'private/x/y', 'PRIVATE/z']) assert.ok(g.isSecret(p), p);
  for (const p of ['a.secrets', 'env', 'src/private.ts', 'privately/x']) assert.ok(!g.isSecret(p), p);
});
