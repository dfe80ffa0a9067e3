import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { comparePaths, MAX_LIMIT } from '../../src/core/search/types';
import { grepFileTool } from '../../src/core/tools/grepFile';
import { findOnPath } from '../../src/node/nodeWorkspace';
import { callTool, hits, RG, structured, workspaces } from '../support/searchFixtures';

/**
 * On a big real tree (the JDK's java.base sources, or else this repository's node_modules), what
 * grep_file returns is what ripgrep itself finds when run by hand with the same options, and the
 * in-process search agrees with both.
 */

function findSrcZip(): string | undefined {
  const candidates = ['/usr/lib/jvm/openjdk-17/lib/src.zip'];
  try {
    for (const jdk of fs.readdirSync('/usr/lib/jvm').sort()) candidates.push(path.join('/usr/lib/jvm', jdk, 'lib', 'src.zip'));
  } catch {
    // no JDKs
  }
  return candidates.find((c) => fs.existsSync(c));
}

let tree = '';
let kind = '';
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-bigtree-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

before(() => {
  // AB_BIGTREE=node_modules forces the second choice (to check it still works where a JDK is installed).
  const zip = process.env.AB_BIGTREE === 'node_modules' ? undefined : findSrcZip();
  const unzip = findOnPath('unzip');
  if (zip && unzip) {
    execFileSync(unzip, ['-q', zip, 'java.base/*', '-d', scratch]);
    tree = path.join(scratch, 'java.base');
    kind = `java.base from ${zip}`;
  } else {
    // A sizeable part of node_modules (all of it takes too long to copy), with a .gitignore of its own.
    tree = path.join(scratch, 'node_modules');
    const source = path.join(__dirname, '..', '..', 'node_modules');
    for (const pkg of ['typescript', 'zod', '@typescript-eslint', 'eslint', '@eslint', 'mocha', 'lodash', '@types', 'tsx', '@esbuild']) {
      if (fs.existsSync(path.join(source, pkg))) {
        fs.cpSync(path.join(source, pkg), path.join(tree, pkg), { recursive: true, verbatimSymlinks: true });
      }
    }
    fs.writeFileSync(path.join(tree, '.gitignore'), '*.map\n*.d.ts\n!lib.dom.d.ts\n');
    kind = "this repository's node_modules";
  }
  const files = execFileSync(RG as string, ['--files', '--hidden', '--no-require-git', tree], { maxBuffer: 256 << 20 })
    .toString()
    .split('\n').length;
  assert.ok(files > 1000, `the big tree (${kind}) has only ${files} files`);
});

/** ripgrep run by hand: every matching `path:line`, in result order. */
function rgByHand(pattern: string, opts: { regex?: boolean; caseSensitive?: boolean; glob?: string }): string[] {
  const args = ['--null', '--line-number', '--no-heading', '--with-filename', '--color', 'never'];
  args.push('--hidden', '--no-require-git', '--glob', '!.git', '--max-filesize', String(20 * 1024 * 1024));
  args.push(opts.caseSensitive ? '--case-sensitive' : '--ignore-case');
  if (!opts.regex) args.push('--fixed-strings');
  if (opts.glob) args.push('--glob', opts.glob);
  args.push('-e', pattern, '--', '.');
  let out: string;
  try {
    out = execFileSync(RG as string, args, { cwd: tree, maxBuffer: 512 << 20 }).toString();
  } catch (e) {
    if ((e as { status?: number }).status === 1) return [];
    throw e;
  }
  const found: Array<{ path: string; line: number }> = [];
  for (const row of out.split('\n')) {
    if (row === '') continue;
    const nul = row.indexOf('\0');
    const file = row.slice(0, nul).replace(/^\.\//, '');
    found.push({ path: file, line: Number.parseInt(row.slice(nul + 1), 10) });
  }
  found.sort((a, b) => comparePaths(a.path, b.path) || a.line - b.line);
  return found.map((f) => `${f.path}:${f.line}`);
}

const CASES: Array<{ params: Record<string, unknown>; byHand: Parameters<typeof rgByHand>[1] }> = [
  { params: { pattern: 'ConcurrentModificationException' }, byHand: {} },
  { params: { pattern: 'synchronized' }, byHand: {} },
  { params: { pattern: 'TODO', case_sensitive: true }, byHand: { caseSensitive: true } },
  { params: { pattern: 'throw new [A-Z]\\w+Exception\\("', regex: true }, byHand: { regex: true } },
  { params: { pattern: '@since 1.2', file_type: 'java' }, byHand: { glob: '*.java' } },
  { params: { pattern: 'function', file_type: 'js' }, byHand: { glob: '*.{js,jsx,mjs,cjs}' } },
];

for (const { params, byHand } of CASES) {
  void test(`big tree: grep_file ${JSON.stringify(params)} returns what rg finds by hand`, async () => {
    const ws = workspaces(tree, []);
    const expected = rgByHand(params.pattern as string, byHand);
    const out = await callTool(grepFileTool, ws.rg, { ...params, limit: MAX_LIMIT });
    const s = structured(out);
    assert.equal(s.totalMatches, expected.length, `total for ${kind}`);
    assert.equal(s.truncated, expected.length > MAX_LIMIT);
    assert.deepEqual(hits(out), expected.slice(0, MAX_LIMIT));

    const fallback = await callTool(grepFileTool, ws.fb, { ...params, limit: MAX_LIMIT });
    assert.deepEqual(structured(fallback), s);
    assert.equal(fallback.result, out.result);
  });
}
