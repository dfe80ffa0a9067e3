/**
 * Diagnostics after a write: which problems are new (not the ones the edit only moved), which the
 * agent may see (never a secret file's, never outside the project), and what a write answers.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { silentLogger } from '../support/silentLogger';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { newProblems, viewOf } from '../../src/core/write/problems';
import type { DiagnosticInfo } from '../../src/core/workspace/workspace';
import { DirectWriteGate } from '../../src/node/directWriteGate';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

const problem = (p: string, line: number, message: string, severity: DiagnosticInfo['severity'] = 'error'): DiagnosticInfo => ({ path: p, line, column: 1, severity, message, source: 'ts' });

test('newProblems: an old problem the edit moved is not new; a second copy of one is', () => {
  const before = [problem('/w/a.ts', 3, 'x is unused', 'warning'), problem('/w/a.ts', 9, "Cannot find name 'y'.")];
  const after = [problem('/w/a.ts', 4, 'x is unused', 'warning'), problem('/w/a.ts', 10, "Cannot find name 'y'."), problem('/w/a.ts', 2, "Cannot find name 'y'."), problem('/w/a.ts', 5, 'Type string is not assignable to number.')];
  assert.deepEqual(newProblems(before, after).map((d) => [d.line, d.message]), [
    [2, "Cannot find name 'y'."],
    [5, 'Type string is not assignable to number.'],
  ]);
  assert.equal(newProblems(before, after).length, 2);
  assert.equal(newProblems(after, after).length, 0);
});

test('viewOf: only the project files the policy shows, relative, errors first, capped', async () => {
  const root = makeTree({ 'a.ts': 'x\n', '.env': 'KEY=1\n' }, 'ab-diag-');
  const ws = new NodeWorkspace(root);
  const found = [
    problem(path.join(ws.root, 'a.ts'), 2, 'a warning', 'warning'),
    problem(path.join(ws.root, '.env'), 1, 'KEY=1 is not valid here'),
    problem(path.join(path.dirname(ws.root), 'outside.ts'), 1, 'outside'),
    problem(path.join(ws.root, 'a.ts'), 1, 'an error'),
  ];
  const { shown, omitted } = await viewOf(ws, found);
  assert.deepEqual(shown.map((d) => [d.path, d.severity, d.message]), [['a.ts', 'error', 'an error'], ['a.ts', 'warning', 'a warning']]);
  assert.equal(omitted, 0);
  assert.ok(!JSON.stringify(shown).includes('KEY=1'), 'a secret file is never quoted');
  assert.equal((await viewOf(ws, found, 1)).omitted, 1);
});

/** A folder whose "editor" reports a type error once a file contains `bad`. */
class CheckedWorkspace extends NodeWorkspace {
  async diagnostics(absPaths: readonly string[] | undefined): Promise<DiagnosticInfo[]> {
    const fs = await import('node:fs');
    const out: DiagnosticInfo[] = [];
    for (const p of absPaths ?? []) {
      const text = fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : '';
      text.split('\n').forEach((l, i) => {
        if (l.includes('bad')) out.push(problem(p, i + 1, `'bad' is not defined (${l.trim()})`));
        if (l.includes('old')) out.push(problem(p, i + 1, 'an old warning', 'warning'));
      });
    }
    return out;
  }
}

test('a write answers the new problems its change brought; a secret file answers none of its problems', async () => {
  const root = makeTree({ 'src/a.ts': 'old\nconst x = 1;\n', '.env.local': 'bad=1\nold\n' }, 'ab-diag-w-');
  const ws = new CheckedWorkspace(root);
  const d = new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log: silentLogger, changes: new DirectWriteGate() });
  const r = await d.dispatch({ id: 'd1', idKey: 'toolCallId', toolName: 'apply_change', params: { relativePath: 'src/a.ts', searchContent: 'const x = 1;', replaceContent: 'const x = bad;' } });
  assert.equal(r.data.success, true, r.data.error);
  const diag = (r.data.structured as { diagnostics: { available: boolean; new: { path: string; line: number; message: string }[]; newErrors: number; newWarnings: number } }).diagnostics;
  assert.equal(diag.available, true);
  assert.deepEqual(diag.new.map((p) => [p.path, p.line]), [['src/a.ts', 2]]);
  assert.deepEqual([diag.newErrors, diag.newWarnings], [1, 0], 'the old warning is not new');
  // A secret file: the headless gate refuses it, and no problem of it is quoted either way.
  const secret = await d.dispatch({ id: 'd2', idKey: 'toolCallId', toolName: 'apply_change', params: { relativePath: '.env.local', searchContent: 'old', replaceContent: 'bad2' } });
  assert.ok(!JSON.stringify(secret).includes('bad=1'));
});
