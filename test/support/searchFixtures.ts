import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StructuredSearchResult } from '../../src/core/search/format';
import type { ToolOutput } from '../../src/core/tools/tool';
import type { Workspace } from '../../src/core/workspace/workspace';
import { findOnPath, NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from './fixtures';

/** The real ripgrep binary: these tests need it (the point is to compare with it). */
export const RG = findOnPath('rg');
assert.ok(RG, 'ripgrep (rg) must be on PATH for the search tests');

/** Exclusion globs the rich tree is searched with (VS Code syntax). */
export const EXCLUDES = ['**/node_modules', '**/*.min.js', 'root-excluded.txt'];

/** The same folder seen through ripgrep and through the in-process search. */
export function workspaces(root: string, searchExcludes: readonly string[] = EXCLUDES): { rg: Workspace; fb: Workspace } {
  return {
    rg: new NodeWorkspace(root, { ripgrep: RG, searchExcludes }),
    fb: new NodeWorkspace(root, { ripgrep: false, searchExcludes }),
  };
}

export { callTool } from './tools';

export function structured(out: ToolOutput): StructuredSearchResult {
  return out.structured as StructuredSearchResult;
}

/** `path:line` of every returned match. */
export function hits(out: ToolOutput): string[] {
  return structured(out).files.flatMap((f) => f.matches.map((m) => `${f.path}:${m.line}`));
}

/** Paths of the files with returned matches. */
export function filesOf(out: ToolOutput): string[] {
  return structured(out).files.map((f) => f.path);
}

/**
 * A folder full of what makes search engines disagree: ignore files of every kind and precedence,
 * exclusions, hidden files, `.git`, symlinks (in and out), binary files, BOMs, UTF-16, CRLF,
 * invalid UTF-8, astral characters, long lines, backticks, special characters in names, a file
 * over the size limit. Every text file contains "TODO" so that the file set itself is compared.
 */
export function buildRichTree(): { root: string; outside: string } {
  const outside = makeTree({ 'secret.txt': 'TODO outside secret\n' }, 'ab-search-outside-');
  const many: Record<string, string> = {};
  for (let i = 0; i < 30; i++) many[`src/many/f${String(i).padStart(2, '0')}.txt`] = `head\nTODO many ${i}\ntail x\n`;
  const root = makeTree(
    {
      '.gitignore': [
        '# comment',
        '*.log',
        '!keep.log',
        'build/',
        '/rootonly.txt',
        'docs/**/*.tmp',
        '{gen,out}/',
        'trailing-space.txt\\ ',
        '\\#hash.txt',
        'sp ace.txt',
        'brack\\[et\\].txt',
        '',
      ].join('\n'),
      '.ignore': 'ignored-by-dot-ignore.txt\n',
      '.rgignore': '!special.log\n',
      '.git/HEAD': 'ref: refs/heads/main TODO\n',
      '.git/info/exclude': '# git ls-files --others --exclude-from=.git/info/exclude\nexcluded-by-info.txt\n',
      '.github/workflows/ci.yml': 'name: ci # TODO hidden folder\n',
      '.env': 'TODO=hidden file\n',
      'a.txt': 'alpha\nTODO a one\nbeta\ngamma\ndelta\nTODO a two\nepsilon\n',
      'A.txt': 'TODO upper-case name\n',
      'a-b.txt': 'TODO dash\n',
      'a/b.txt': 'TODO in folder a\n',
      'ä.txt': 'TODO umlaut name\n',
      'a.log': 'TODO ignored log\n',
      'keep.log': 'TODO kept log\n',
      'special.log': 'TODO whitelisted by .rgignore\n',
      'sub/x.log': 'TODO ignored nested log\n',
      'build/out.txt': 'TODO build output\n',
      'rootonly.txt': 'TODO root only ignored\n',
      'docs/c.tmp': 'TODO docs tmp\n',
      'docs/a/b.tmp': 'TODO docs deep tmp\n',
      'docs/readme.md': '# Docs\nTODO document ``` fences `` here\n',
      'gen/g.txt': 'TODO generated\n',
      'out/o.txt': 'TODO out\n',
      'trailing-space.txt ': 'TODO trailing space name\n',
      '#hash.txt': 'TODO hash name\n',
      'sp ace.txt': 'TODO space name\n',
      'brack[et].txt': 'TODO bracket name\n',
      'ignored-by-dot-ignore.txt': 'TODO dot ignore\n',
      'excluded-by-info.txt': 'TODO info exclude\n',
      'root-excluded.txt': 'TODO excluded at the root\n',
      'src/root-excluded.txt': 'TODO not excluded below the root\n',
      'src/rootonly.txt': 'TODO rootonly is anchored\n',
      'src/.gitignore': '!*.log\nlocal.txt\n',
      'src/z.log': 'TODO re-included log\n',
      'src/local.txt': 'TODO local ignored\n',
      'src/build/y.txt': 'TODO nested build ignored\n',
      'src/deep/.gitignore': '/only-here.txt\n',
      'src/deep/only-here.txt': 'TODO anchored ignore\n',
      'src/deep/more/only-here.txt': 'TODO anchored elsewhere\n',
      'src/deep/file.txt': 'one\ntwo TODO\nthree\nfour\nfive\nsix\nseven TODO\neight\n',
      'src/Main.java': 'package a;\n\nimport java.util.List;\n\nclass Main {\n  // TODO: fix foo(1)\n  void foo(int x) {}\n}\n',
      'src/app.ts': "import { x } from './x';\n  import y from 'y';\n// todo lower\nexport const foo = (n: number) => n; // TODO\n",
      'src/tool.py': 'import os\n# TODO python\ndef foo(a):\n    return a\n',
      'src/styles.min.js': 'var TODO=1;\n',
      'lib/app.min.js': 'var TODO=1;\n',
      'node_modules/pkg/index.js': 'module.exports = 1; // TODO in node_modules\n',
      'src/node_modules/pkg/index.js': '// TODO nested node_modules\n',
      'crlf.txt': 'foo\r\nTODO crlf foo\r\nbar foo\r\n',
      'utf8bom.txt': '\ufeffTODO with utf-8 bom\nsecond\n',
      'utf16le.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('TODO utf-16 le\nCafé TODO\n', 'utf16le')]),
      'utf16be.txt': (() => {
        const body = Buffer.from('TODO utf-16 be\n', 'utf16le');
        body.swap16();
        return Buffer.concat([Buffer.from([0xfe, 0xff]), body]);
      })(),
      'invalid-utf8.txt': Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9, 0xff]), Buffer.from(' TODO invalid\n')]),
      'unicode.txt': 'CAFÉ café TODO\n😀😀 TODO after emoji\nÉCOLE école\n',
      'long.txt': `${'x'.repeat(3000)} TODO middle of a long line ${'y'.repeat(3000)}\nshort TODO\n`,
      'no-newline.txt': 'first\nlast TODO',
      'empty.txt': '',
      'special-chars.txt': 'a.c abc a+c [x] (y) $z ^w TODO\nfoo(1) foo(22)\n',
      'binary.dat': Buffer.concat([Buffer.from('TODO binary\n\0\x01\x02'), Buffer.alloc(100, 1)]),
      'late-nul.txt': Buffer.concat([
        Buffer.from('TODO before a late NUL\n'),
        Buffer.alloc(100_000, 0x61),
        Buffer.from('\n\0\nTODO after\n'),
      ]),
      ...many,
    },
    'ab-search-',
  );
  // Over MAX_FILE_SIZE (20 MiB): skipped while walking, searched when named.
  fs.writeFileSync(path.join(root, 'huge.txt'), `TODO huge\n${'z'.repeat(80)}\n`.repeat(260_000));
  fs.symlinkSync(path.join(root, 'a.txt'), path.join(root, 'link-to-a.txt'));
  fs.symlinkSync(path.join(root, 'src'), path.join(root, 'link-to-src'));
  fs.symlinkSync(outside, path.join(root, 'link-out'));
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-out-secret.txt'));
  return { root, outside };
}
