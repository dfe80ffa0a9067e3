/**
 * The hostile-agent suite, part one: the access policy. Every attack of the adversarial review
 * against "nothing outside the project", "secret files are never read" and "nothing is written
 * without approval", run through a real dev backend and the headless host with --auto-approve, in
 * both TOOL_CALL shapes. After each, no frame the host sent may hold a canary and no guarded file
 * may have changed.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ToolCallShape } from '../../src/devBackend/server';
import { assertNoCanary, CANARY, fingerprint, hostileLink, type HostileLink } from '../support/hostile';

const SHAPES: readonly ToolCallShape[] = ['root', 'data'];

describe('a hostile agent against the access policy (headless host, --auto-approve)', () => {
  let link: HostileLink;
  let print: string;
  before(async () => {
    link = await hostileLink();
    print = fingerprint(link.tree);
  });
  after(() => link.close());
  const unchanged = () => {
    assertNoCanary(link.frames);
    assert.equal(fingerprint(link.tree), print, 'a guarded file changed, or a file appeared under .git, .github or .vscode');
  };

  for (const shape of SHAPES) {
    test(`[${shape}] writing tools aimed at secret files answer without a byte of them, and write nothing`, async () => {
      const attempts: [string, Record<string, unknown>][] = [
        // a wrong search text: NOT_FOUND used to quote the closest lines
        ['apply_change', { relativePath: '.env', searchContent: 'API_KEY=?', replaceContent: 'x' }],
        // the replacement already there: "already applied" was a yes/no oracle
        ['apply_change', { relativePath: '.env', searchContent: 'nothing', replaceContent: `API_KEY=${CANARY.env}` }],
        ['apply_change', { relativePath: '.env', searchContent: `API_KEY=${CANARY.env}`, replaceContent: 'API_KEY=x' }],
        ['apply_change', { relativePath: '.env', replaceContent: 'NEW=1\n' }],
        ['Edit', { file_path: 'id_rsa', old_string: 'BEGIN', new_string: 'END' }],
        ['Edit', { file_path: 'id_rsa', old_string: 'no such text', new_string: 'x' }],
        ['MultiEdit', { file_path: '.git/config', edits: [{ old_string: 'bare = false', new_string: 'fsmonitor = "touch PWNED; false"' }] }],
        ['Replace', { file_path: '.envrc', content: 'echo pwned\n' }],
        ['NotebookEditCell', { notebook_path: '.env.ipynb', cell_number: 0, new_source: 'x' }],
        ['apply_change', { relativePath: 'conf/db.secret', searchContent: 'password', replaceContent: 'x' }],
        ['apply_change', { relativePath: 'conf/other.priv', searchContent: 'password', replaceContent: 'x' }],
      ];
      for (const [tool, params] of attempts) {
        const r = await link.call(tool, params, shape);
        assert.equal(r.success, false, `${tool} ${JSON.stringify(params)}`);
        assert.equal(r.code, 'PERMISSION_DENIED', `${tool} ${JSON.stringify(params)}: ${String(r.error)}`);
      }
      unchanged();
    });

    test(`[${shape}] symbolic links inside the project are judged by where they lead`, async () => {
      const attempts: [string, Record<string, unknown>][] = [
        ['apply_change', { relativePath: 'cfg', searchContent: 'bare = false', replaceContent: 'bare = false\n\tfsmonitor = "touch PWNED; false"' }],
        ['Replace', { file_path: 'gitdir/hooks/pre-commit', content: '#!/bin/sh\ntouch PWNED\n' }],
        ['Edit', { file_path: 'notes.txt', old_string: 'API_KEY', new_string: 'X' }],
        ['apply_change', { relativePath: 'vs.json', searchContent: '"editor.tabSize": 2', replaceContent: '"agentBridge.approvalMode": "autoApprove"' }],
        ['Replace', { file_path: 'gh/workflows/pwn.yml', content: 'on: push\n' }],
        ['Replace', { file_path: 'out/planted.txt', content: 'x' }],
        ['Edit', { file_path: 'src/Ext.java', old_string: 'secret', new_string: 'x' }],
        ['Replace', { file_path: '.GIT/hooks/post-checkout', content: '#!/bin/sh\n' }],
      ];
      for (const [tool, params] of attempts) {
        const r = await link.call(tool, params, shape);
        assert.equal(r.success, false, `${tool} ${JSON.stringify(params)}`);
        assert.equal(r.code, 'PERMISSION_DENIED', `${tool} ${JSON.stringify(params)}: ${String(r.error)}`);
      }
      assert.ok(!fs.existsSync(path.join(link.tree.root, '.git/hooks/pre-commit')));
      assert.ok(!fs.existsSync(path.join(link.tree.root, '.git/hooks/post-checkout')));
      assert.ok(!fs.existsSync(path.join(link.tree.outside, 'planted.txt')));
      unchanged();
    });

    test(`[${shape}] reads and searches reach neither secrets nor the outside, through any link or glob`, async () => {
      for (const rel of ['.env', 'notes.txt', 'cfg', 'gitdir/config', '.envrc', 'id_rsa', 'out/notes.txt', 'src/Ext.java', 'conf/db.secret', 'conf/OTHER.PRIV', 'private/Hidden.java', './src/../.env', '.ENV', '../elsewhere/notes.txt']) {
        const r = await link.call('read_file', { relativePath: rel }, shape);
        assert.equal(r.code, 'PERMISSION_DENIED', `read_file ${rel}: ${String(r.error)}`);
      }
      for (const tool of ['grep_file', 'text_search']) {
        const all = await link.call(tool, { pattern: 'CANARY', limit: 1000 }, shape);
        assert.equal(all.success, true, String(all.error));
        for (const rel of ['out', 'gitdir', 'private', 'conf']) {
          const r = await link.call(tool, { pattern: 'CANARY', relativePath: rel }, shape);
          assert.ok(r.success === false || !/CANARY-/.test(String(r.result)), `${tool} ${rel}: ${String(r.result)}`);
        }
      }
      assertNoCanary(link.frames);
    });

    test(`[${shape}] the code tools see neither secret files nor files outside the project`, async () => {
      for (const [tool, params] of [
        ['read_class', { className: 'Outside' }],
        ['read_class', { className: 'Hidden' }],
        ['read_class', { className: 'out.Outside' }],
        ['read_method', { className: 'Hidden', methodName: 'leak' }],
        ['read_method', { className: 'Outside', methodName: 'secret' }],
        ['call_chain', { method: 'App.run', direction: 'callers', includeSource: true }],
        ['call_chain', { method: 'App.run', direction: 'both', depth: 3, includeSource: true }],
        ['call_chain', { method: 'Outside.secret', direction: 'both', includeSource: true }],
        ['read_class', { className: 'App', relativePath: 'out' }],
      ] as const) {
        const r = await link.call(tool, params as Record<string, unknown>, shape);
        if (tool === 'call_chain' && params.method === 'App.run') {
          assert.equal(r.success, true, String(r.error));
          assert.doesNotMatch(String(r.result), /Hidden|leak/, 'a caller in a secret file is not shown');
        }
        else {
          assert.equal(r.success, false, `${tool} ${JSON.stringify(params)} should find nothing`);
          assert.doesNotMatch(String(r.error), /private\/Hidden|elsewhere|Outside\.java/, 'not even where a hidden declaration is');
        }
      }
      const app = await link.call('read_class', { className: 'App' }, shape);
      assert.equal(app.success, true, String(app.error));
      assertNoCanary(link.frames);
    });

    test(`[${shape}] a FIFO as .gitignore or .git/info/exclude pins no thread: reads and writes keep answering`, async () => {
      const root = link.tree.root;
      const fifos = ['.git/info/exclude', 'src/.gitignore'].map((rel) => path.join(root, rel));
      fs.mkdirSync(path.join(root, '.git/info'), { recursive: true });
      for (const f of fifos) execFileSync('mkfifo', [f]);
      fs.writeFileSync(path.join(root, 'big.txt'), 'x'.repeat(300 * 1024));
      try {
        // Six searches at once: ripgrep itself blocks opening a FIFO .gitignore (its child process is
        // stopped at the deadline); ours must not block a thread of the host on one.
        const searches = await Promise.all(Array.from({ length: 6 }, () => link.call('text_search', { pattern: 'a', relativePath: 'src' }, shape)));
        for (const r of searches) assert.ok(r.success === true || r.code === 'TIMEOUT', String(r.error));
        const big = await link.call('read_file', { relativePath: 'big.txt' }, shape);
        assert.equal(big.success, true, String(big.error));
        const write = await link.call('Replace', { file_path: 'written.txt', content: 'ok\n' }, shape);
        assert.equal(write.success, true, String(write.error));
      } finally {
        for (const f of [...fifos, path.join(root, 'big.txt'), path.join(root, 'written.txt')]) fs.rmSync(f, { force: true });
        fs.rmSync(path.join(root, '.git/info'), { recursive: true, force: true });
      }
    });

    test(`[${shape}] a FIFO is refused at once and the host keeps answering`, async () => {
      const started = Date.now();
      const read = await link.call('read_file', { relativePath: 'pipe.txt' }, shape);
      assert.equal(read.code, 'BAD_REQUEST', String(read.error));
      const edit = await link.call('Edit', { file_path: 'pipe.txt', old_string: 'a', new_string: 'b' }, shape);
      assert.equal(edit.success, false);
      const grep = await link.call('grep_file', { pattern: 'x', relativePath: 'pipe.txt' }, shape);
      assert.equal(grep.success, false);
      const cls = await link.call('read_class', { className: 'Pipe' }, shape);
      assert.equal(cls.success, false);
      assert.ok(Date.now() - started < 4000, `took ${Date.now() - started} ms`);
      const ok = await link.call('read_file', { relativePath: 'notes.md' }, shape);
      assert.equal(ok.success, true, String(ok.error));
    });
  }
});

describe('a hostile agent against a host that may not write', () => {
  test('without --auto-approve every writing tool is refused, protected or not, and nothing is read for it', async () => {
    const link = await hostileLink({ autoApprove: false });
    const print = fingerprint(link.tree);
    for (const [tool, params] of [
      ['apply_change', { relativePath: '.env', searchContent: 'API', replaceContent: 'x' }],
      ['apply_change', { relativePath: 'notes.md', searchContent: 'ordinary', replaceContent: 'x' }],
      ['Replace', { file_path: '.vscode/settings.json', content: '{}' }],
    ] as const) {
      const r = await link.call(tool, params as Record<string, unknown>);
      assert.equal(r.code, 'PERMISSION_DENIED');
    }
    assert.equal(fingerprint(link.tree), print);
    assert.equal(fs.readFileSync(path.join(link.tree.root, 'notes.md'), 'utf8'), 'ordinary notes\n');
    assertNoCanary(link.frames);
    await link.close();
  });
});

describe('a hard link to a secret file, under an innocent name', () => {
  test('is not read, searched, indexed or used to plan an edit', async () => {
    const link = await hostileLink();
    try {
      const root = link.tree.root;
      fs.linkSync(path.join(root, '.env'), path.join(root, 'readme-copy.txt'));
      fs.linkSync(path.join(root, '.git/config'), path.join(root, 'src/Config.java'));
      for (const shape of SHAPES) {
        const read = await link.call('read_file', { relativePath: 'readme-copy.txt' }, shape);
        assert.equal(read.code, 'PERMISSION_DENIED', String(read.error));
        const grep = await link.call('grep_file', { pattern: 'CANARY', limit: 100 }, shape);
        assert.equal(grep.success, true);
        const edit = await link.call('Edit', { file_path: 'readme-copy.txt', old_string: 'nothing like it', new_string: 'x' }, shape);
        assert.equal(edit.success, false);
      }
      assertNoCanary(link.frames);
      assert.match(fs.readFileSync(path.join(root, '.env'), 'utf8'), /CANARY-ENV/);
      // Names the walk cannot see: a secret in node_modules, a file outside the project.
      fs.mkdirSync(path.join(root, 'node_modules/pkg'), { recursive: true });
      fs.writeFileSync(path.join(root, 'node_modules/pkg/.env'), `SECRET_NM=${CANARY.env}\n`);
      fs.linkSync(path.join(root, 'node_modules/pkg/.env'), path.join(root, 'nm-copy.txt'));
      fs.linkSync(path.join(link.tree.outside, 'notes.txt'), path.join(root, 'outside-copy.txt'));
      fs.writeFileSync(path.join(root, 'node_modules/pkg/Leak.java'), `/** ${CANARY.env} */\npublic class Leak {}\n`);
      fs.linkSync(path.join(root, 'node_modules/pkg/Leak.java'), path.join(root, 'src/Leak.java'));
      for (const shape of SHAPES) {
        for (const rel of ['nm-copy.txt', 'outside-copy.txt', 'src/Leak.java']) {
          const r = await link.call('read_file', { relativePath: rel }, shape);
          assert.equal(r.code, 'PERMISSION_DENIED', `${rel}: ${String(r.error)}`);
        }
        await link.call('text_search', { pattern: 'CANARY', limit: 100 }, shape);
        await link.call('read_class', { className: 'Leak' }, shape);
        await link.call('Edit', { file_path: 'nm-copy.txt', old_string: 'SECRET_NM=nope', new_string: 'x' }, shape);
      }
      assertNoCanary(link.frames);
      // A second name of a protected file: the headless host refuses the change as protected.
      fs.linkSync(path.join(root, '.github/workflows/ci.yml'), path.join(root, 'ci-copy.yml'));
      const protectedEdit = await link.call('apply_change', { relativePath: 'ci-copy.yml', searchContent: 'jobs: {}', replaceContent: 'jobs: { pwn: {} }' });
      assert.equal(protectedEdit.code, 'PERMISSION_DENIED', String(protectedEdit.error));
      assert.equal(fs.readFileSync(path.join(root, '.github/workflows/ci.yml'), 'utf8'), 'on: push\njobs: {}\n');
      // An ordinary file with a second name that is not secret is still readable.
      fs.writeFileSync(path.join(root, 'plain.txt'), 'plain text\n');
      fs.linkSync(path.join(root, 'plain.txt'), path.join(root, 'plain-too.txt'));
      await new Promise((r) => setTimeout(r, 1100)); // past the 1 s in which a walk is not repeated
      const ok = await link.call('read_file', { relativePath: 'plain-too.txt' });
      assert.equal(ok.success, true, String(ok.error));
    } finally {
      await link.close();
    }
  });
});
