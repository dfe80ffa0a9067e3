/**
 * Path escapes in every tool: `..`, absolute paths and symbolic links (to a folder and to a file)
 * that lead out of the project, through the dispatcher with a gate that really writes (the
 * headless host's --auto-approve gate). Each is PERMISSION_DENIED, nothing outside is read into a
 * result, changed or created. The code index does not follow a symlink out of the project either.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

const outside = makeTree(
  {
    'secret.txt': 'secret outside\n',
    'Outside.java': 'class Outside {\n  void secretMethod() {}\n}\n',
    'nb.ipynb': JSON.stringify({ cells: [{ cell_type: 'code', source: ['secret'], metadata: {}, outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 }),
  },
  'ab-outside-',
);
const root = makeTree({ 'In.java': 'class In {}\n' }, 'ab-hostile-');
fs.symlinkSync(outside, path.join(root, 'link-dir'));
fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-file.txt'));
fs.symlinkSync(path.join(outside, 'nb.ipynb'), path.join(root, 'link.ipynb'));
const before = new Map(fs.readdirSync(outside).map((n) => [n, fs.readFileSync(path.join(outside, n), 'utf8')]));

/** Every way out, for a file and for a folder. */
const rel = path.relative(root, outside);
const FILES = [`../${path.basename(outside)}/secret.txt`, path.join(outside, 'secret.txt'), 'link-file.txt', 'link-dir/secret.txt', `${rel}/new.txt`, 'link-dir/new.txt'];
const DIRS = ['..', outside, 'link-dir', `./sub/../../${path.basename(outside)}`];
const NOTEBOOKS = [path.join(outside, 'nb.ipynb'), 'link.ipynb', 'link-dir/nb.ipynb', `../${path.basename(outside)}/nb.ipynb`];

const CASES: [string, Record<string, unknown>][] = [
  ...FILES.map((p): [string, Record<string, unknown>] => ['read_file', { relativePath: p }]),
  ...DIRS.map((p): [string, Record<string, unknown>] => ['grep_file', { pattern: 'secret', relativePath: p }]),
  ...DIRS.map((p): [string, Record<string, unknown>] => ['text_search', { pattern: 'secret', relativePath: p }]),
  ...FILES.map((p): [string, Record<string, unknown>] => ['apply_change', { relativePath: p, searchContent: p.endsWith('new.txt') ? '' : 'secret outside', replaceContent: 'pwned' }]),
  ...FILES.map((p): [string, Record<string, unknown>] => ['Replace', { file_path: p, content: 'pwned' }]),
  ...FILES.map((p): [string, Record<string, unknown>] => ['Edit', { file_path: p, old_string: 'secret outside', new_string: 'pwned' }]),
  ...FILES.map((p): [string, Record<string, unknown>] => ['MultiEdit', { file_path: p, edits: [{ old_string: 'secret outside', new_string: 'pwned' }] }]),
  ...NOTEBOOKS.map((p): [string, Record<string, unknown>] => ['NotebookEditCell', { notebook_path: p, cell_number: 0, new_source: 'pwned' }]),
  ...[...DIRS, path.join(outside, 'Outside.java'), 'link-dir/Outside.java'].map((p): [string, Record<string, unknown>] => ['read_class', { className: 'Outside', relativePath: p }]),
  ...[...DIRS, 'link-dir/Outside.java'].map((p): [string, Record<string, unknown>] => ['read_method', { className: 'Outside', methodName: 'secretMethod', relativePath: p }]),
  ...[...DIRS, ...FILES].map((p): [string, Record<string, unknown>] => ['get_diagnostics', { relativePath: p }]),
];

test('every tool refuses every path out of the project (.., absolute, symlinked folder and file): PERMISSION_DENIED, nothing touched', async () => {
  const d = new Dispatcher({ workspace: new NodeWorkspace(root), tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });
  const tools = new Set(CASES.map(([t]) => t));
  for (const t of ALL_TOOLS) if (t.name !== 'call_chain') assert.ok(tools.has(t.name), `${t.name} is covered`);
  let n = 0;
  for (const [tool, params] of CASES) {
    const r = await d.dispatch({ id: `h${++n}`, idKey: 'toolCallId', toolName: tool, params });
    assert.equal(r.data.code, 'PERMISSION_DENIED', `${tool} ${JSON.stringify(params)}: ${r.data.code ?? 'success'} ${r.data.error ?? r.data.result?.slice(0, 100)}`);
    assert.doesNotMatch(JSON.stringify(r.data), /secret outside|secretMethod/, `${tool} leaks nothing`);
  }
  assert.deepEqual(new Map(fs.readdirSync(outside).map((n) => [n, fs.readFileSync(path.join(outside, n), 'utf8')])), before, 'nothing outside changed or created');
});

test('the code index does not follow a symlink out of the project: call_chain and read_class do not see Outside', async () => {
  const d = new Dispatcher({ workspace: new NodeWorkspace(root), tools: ALL_TOOLS, log: silentLogger });
  const cls = await d.dispatch({ id: 'c1', idKey: 'toolCallId', toolName: 'read_class', params: { className: 'Outside' } });
  assert.equal(cls.data.success, false, String(cls.data.result));
  assert.doesNotMatch(JSON.stringify(cls.data), /secretMethod/);
  const chain = await d.dispatch({ id: 'c2', idKey: 'toolCallId', toolName: 'call_chain', params: { method: 'Outside.secretMethod' } });
  assert.equal(chain.data.success, false, String(chain.data.result));
  assert.doesNotMatch(String(chain.data.result ?? ''), /secretMethod\(\) \{/);
});
