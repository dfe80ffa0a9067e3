/**
 * The hostile-agent suite: secrets that would leave through reads and searches when a file's name
 * is not what it seems (a backslash in a Linux name, a name that is not UTF-8, a decomposed
 * Unicode name), when the answer tells whether an outside path exists, or when a hard link to a
 * secret is put back after ripgrep read it. Each runs the real tools through the dispatcher over a
 * real folder, with the headless host's writer. The races, a hard link swapped in between the check
 * and the open, are in readSecretsRaces.slow.test.ts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { CANARY, ENGINES, secretProject, type Project } from '../support/secretProject';

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
      const p = secretProject(engine);
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
      const p = secretProject(engine);
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
        const p = secretProject(engine, [glob]);
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
    const p = secretProject('ripgrep');
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
      const p = secretProject(engine, ['vault', '/keys/', 'certs/*']);
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
  const p = secretProject('ripgrep', [], (rg, base) => {
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
