import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { connectedBackend, proposalTabs, rootCall } from './backend';
import { waitUntil } from '../../support/waitUntil';

/**
 * Review beyond approve/reject: dropping single hunks of a proposal before approving it, and the
 * Agent Changes list that reverts what the agent changed, only where the file still has its lines.
 */
describe('Review: hunks and reverts', () => {
  const live = connectedBackend();
  afterEach(async () => {
    for (const c of live.api.pendingChanges.list()) await live.api.pendingChanges.reject(c.id, 'test cleanup');
  });
  const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const file = (rel: string) => path.join(root(), rel);
  const read = (rel: string) => fs.readFileSync(file(rel), 'utf8');
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(file(rel)), { recursive: true });
    fs.writeFileSync(file(rel), text);
  };
  const data = (m: Record<string, unknown>) => m.data as Record<string, unknown>;
  const structured = (m: Record<string, unknown>) => JSON.parse(String(data(m).result)) as Record<string, unknown>;
  const proposalDoc = (id: string) => {
    const tab = proposalTabs().find((t) => (t.input as vscode.TabInputTextDiff).modified.query === id);
    const right = tab && (tab.input as vscode.TabInputTextDiff).modified;
    return right && vscode.workspace.textDocuments.find((d) => d.uri.toString() === right.toString());
  };

  async function propose(params: Record<string, unknown>) {
    const msg = rootCall('apply_change', params);
    const answer = live.backend.call(msg);
    await waitUntil(() => live.api.pendingChanges.list().some((c) => c.id === msg.toolCallId) && proposalDoc(msg.toolCallId), 'the proposal diff');
    await live.api.pendingChanges.showDiff(msg.toolCallId);
    return { id: msg.toolCallId, answer };
  }

  /** An approved change: proposed, shown, approved, answered. */
  async function landed(params: Record<string, unknown>): Promise<string> {
    const { id, answer } = await propose(params);
    await live.api.pendingChanges.approve(id);
    const res = await answer;
    assert.equal(data(res).success, true, String(data(res).error));
    return id;
  }

  const TEN = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n';

  it('dropping one hunk of two: the diff shows, and the file gets, only the kept hunk; the agent is told', async () => {
    write('hunks/a.txt', TEN);
    const { id, answer } = await propose({ relativePath: 'hunks/a.txt', searchContent: 'two\nthree\nfour\nfive\nsix\nseven\neight', replaceContent: 'TWO\nthree\nfour\nfive\nsix\nseven\nEIGHT' });
    const h = live.api.pendingChanges.hunks(id)!;
    assert.deepEqual(h.runs.map((r) => [r.newAt, r.before, r.after]), [[1, ['two\n'], ['TWO\n']], [7, ['eight\n'], ['EIGHT\n']]]);
    assert.equal(live.api.pendingChanges.keepHunk(id, 1, false), true);
    // Approve at once, before the diff shows the change: refused (what lands must be what it shows).
    await live.api.pendingChanges.approve(id);
    assert.ok(live.api.pendingChanges.list().some((c) => c.id === id), 'not approved while the diff was updating');
    // The proposal's editor reloads with only the kept hunk; the list's counts follow.
    await waitUntil(() => proposalDoc(id)?.getText() === TEN.replace('two', 'TWO'), 'the proposal to show only the kept hunk');
    assert.deepEqual([live.api.pendingChanges.list()[0].added, live.api.pendingChanges.list()[0].removed], [1, 1]);
    assert.deepEqual(live.api.pendingChanges.hunks(id)!.keep, [true, false]);
    // The reload is not "the developer typed into it": approving is not refused.
    await live.api.pendingChanges.approve(id);
    const r = structured(await answer);
    assert.equal(read('hunks/a.txt'), TEN.replace('two', 'TWO'));
    assert.equal(r.modifiedByUser, true);
    assert.equal(r.droppedHunks, 1);
    assert.deepEqual((r.structuredPatch as { lines: string[] }[]).flatMap((x) => x.lines).filter((l) => /^[-+]/.test(l)), ['-two', '+TWO']);
  });

  it('once the developer edits a proposal by hand, its hunks are no longer toggled from the list', async () => {
    write('hunks/b.txt', TEN);
    const { id } = await propose({ relativePath: 'hunks/b.txt', searchContent: 'two\nthree\nfour\nfive\nsix\nseven\neight', replaceContent: 'TWO\nthree\nfour\nfive\nsix\nseven\nEIGHT' });
    const right = proposalDoc(id)!.uri;
    await vscode.commands.executeCommand('agentBridge.editProposal', right);
    assert.equal(live.api.pendingChanges.hunks(id)!.locked, true);
    assert.equal(live.api.pendingChanges.keepHunk(id, 0, false), false);
    assert.equal(proposalDoc(id)!.getText(), TEN.replace('two', 'TWO').replace('eight', 'EIGHT'));
  });

  it('an approved change is listed and reverted exactly, keeping work the developer did elsewhere in the file', async () => {
    write('revert/a.txt', TEN);
    const id = await landed({ relativePath: 'revert/a.txt', searchContent: 'five', replaceContent: 'FIVE\nfive and a half', description: 'split five' });
    const entry = live.api.agentChanges.list().find((c) => c.id === id)!;
    assert.deepEqual([entry.relativePath, entry.added, entry.removed, entry.description, entry.session], ['revert/a.txt', 2, 1, 'split five', live.api.sessionId()]);
    // Later, the developer adds a line at the top.
    write('revert/a.txt', `// mine\n${read('revert/a.txt')}`);
    // Two reverts at once (Revert clicked while Revert All runs): one does it, the other is refused.
    const [r, twice] = await Promise.all([live.api.agentChanges.revert(id), live.api.agentChanges.revert(id)]);
    assert.deepEqual(r, { ok: true });
    assert.match((twice as { reason: string }).reason, /being reverted already/);
    assert.equal(read('revert/a.txt'), `// mine\n${TEN}`);
    assert.ok(live.api.agentChanges.list().find((c) => c.id === id)!.reverted);
    assert.equal((await live.api.agentChanges.revert(id)).ok, false, 'not twice');
    assert.equal(read('revert/a.txt'), `// mine\n${TEN}`);
  });

  it('refuses to revert when the developer changed the lines the agent wrote, and changes nothing', async () => {
    write('revert/b.txt', TEN);
    const id = await landed({ relativePath: 'revert/b.txt', searchContent: 'six', replaceContent: 'SIX' });
    write('revert/b.txt', read('revert/b.txt').replace('SIX', 'SIX (tuned by me)'));
    const before = fs.readFileSync(file('revert/b.txt'));
    const r = await live.api.agentChanges.revert(id);
    assert.equal(r.ok, false);
    assert.match((r as { reason: string }).reason, /changed after the agent's edit, near line 6/);
    assert.deepEqual(fs.readFileSync(file('revert/b.txt')), before);
  });

  it('refuses to revert through a link: the file swapped for a symlink to another file is not written', async () => {
    write('revert/c.txt', TEN);
    const id = await landed({ relativePath: 'revert/c.txt', searchContent: 'seven', replaceContent: 'SEVEN' });
    // The target holds exactly the agent's text, so only the link check stands between it and a write.
    write('revert/decoy.txt', read('revert/c.txt'));
    fs.rmSync(file('revert/c.txt'));
    fs.symlinkSync(file('revert/decoy.txt'), file('revert/c.txt'));
    const r = await live.api.agentChanges.revert(id);
    assert.equal(r.ok, false);
    assert.match((r as { reason: string }).reason, /no longer a regular file/);
    assert.equal(read('revert/decoy.txt'), TEN.replace('seven', 'SEVEN'));
  });

  it('a created file is removed again by Revert; once the developer wrote to it, only the agent\'s lines go', async () => {
    const id = await landed({ relativePath: 'revert/new.txt', searchContent: '', replaceContent: 'brand new\n' });
    assert.equal(live.api.agentChanges.list().find((c) => c.id === id)!.created, true);
    assert.deepEqual(await live.api.agentChanges.revert(id), { ok: true });
    await waitUntil(() => !fs.existsSync(file('revert/new.txt')), 'the created file to be removed');
    const kept = await landed({ relativePath: 'revert/new2.txt', searchContent: '', replaceContent: 'brand new\n' });
    fs.appendFileSync(file('revert/new2.txt'), 'my notes\n');
    assert.deepEqual(await live.api.agentChanges.revert(kept), { ok: true });
    assert.equal(read('revert/new2.txt'), 'my notes\n');
  });

  it('Revert all undoes the conversation\'s changes newest first and leaves (and names) those it must not touch', async () => {
    live.api.agentChanges.clear();
    write('all/a.txt', TEN);
    write('all/b.txt', TEN);
    await landed({ relativePath: 'all/a.txt', searchContent: 'one', replaceContent: 'ONE' });
    // Two changes to one file: the newer must be undone first for the older to fit.
    await landed({ relativePath: 'all/a.txt', searchContent: 'ONE\ntwo', replaceContent: 'ONE\nTWO' });
    const touched = await landed({ relativePath: 'all/b.txt', searchContent: 'three', replaceContent: 'THREE' });
    write('all/b.txt', read('all/b.txt').replace('THREE', 'THREE!'));
    const { reverted, refused } = await live.api.agentChanges.revertAll();
    assert.equal(reverted.length, 2);
    assert.deepEqual(refused.map((x) => x.change.id), [touched]);
    assert.equal(read('all/a.txt'), TEN);
    assert.equal(read('all/b.txt'), TEN.replace('three', 'THREE!'));
  });

  it('a revert in a file with unsaved edits changes the buffer and leaves it unsaved', async () => {
    write('revert/d.txt', TEN);
    const id = await landed({ relativePath: 'revert/d.txt', searchContent: 'nine', replaceContent: 'NINE' });
    const doc = await vscode.workspace.openTextDocument(file('revert/d.txt'));
    await vscode.window.showTextDocument(doc);
    const we = new vscode.WorkspaceEdit();
    we.insert(doc.uri, new vscode.Position(0, 0), 'unsaved\n');
    await vscode.workspace.applyEdit(we);
    assert.deepEqual(await live.api.agentChanges.revert(id), { ok: true, unsaved: 'dirty' });
    assert.equal(doc.getText(), `unsaved\n${TEN}`);
    assert.equal(doc.isDirty, true);
    assert.equal(read('revert/d.txt'), TEN.replace('nine', 'NINE'), 'the disk keeps what was saved');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});
