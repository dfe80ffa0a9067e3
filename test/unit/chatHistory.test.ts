import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entry } from '../../src/extension/chat/contract';
import { ChatHistory, MAX_CONVERSATIONS } from '../../src/extension/chat/history';
import { transcriptKey } from '../../src/extension/chat/transcript';
import { MapStore } from '../support/mapStore';


const user = (text: string, i = 0): Entry => ({ kind: 'user', id: `u${i}`, at: i, text });

test('History keeps the conversations left, newest first, titled by their first message; the oldest beyond the bound are deleted with their transcripts', async () => {
  const store = new MapStore();
  const h = new ChatHistory(store);
  for (let i = 0; i < MAX_CONVERSATIONS + 2; i++) {
    store.map.set(transcriptKey(`s${i}`), [user(`question ${i}`)]);
    await h.keep(`s${i}`, [user(`question ${i}\n  with more`), user('second', 1)], 1000 + i);
  }
  const list = h.list();
  assert.equal(list.length, MAX_CONVERSATIONS);
  assert.deepEqual(list[0], { sessionId: `s${MAX_CONVERSATIONS + 1}`, title: `question ${MAX_CONVERSATIONS + 1} with more`, at: 1000 + MAX_CONVERSATIONS + 1, messages: 2 });
  assert.equal(store.get(transcriptKey('s0')), undefined, 'the oldest transcript deleted');
  assert.equal(store.get(transcriptKey('s1')), undefined);
  assert.ok(store.get(transcriptKey('s2')), 'kept ones keep their transcript');
  // Keeping one again moves it to the top, not a second copy.
  await h.keep('s5', [user('question 5')], 5000);
  assert.equal(h.list()[0].sessionId, 's5');
  assert.equal(h.list().filter((c) => c.sessionId === 's5').length, 1);
});

test('a conversation without a message is not kept; take and remove', async () => {
  const store = new MapStore();
  const h = new ChatHistory(store);
  store.map.set(transcriptKey('empty'), [{ kind: 'notice', id: 'n', at: 1, text: 'x', tone: 'info' }]);
  await h.keep('empty', [{ kind: 'notice', id: 'n', at: 1, text: 'x', tone: 'info' }]);
  assert.deepEqual(h.list(), []);
  assert.equal(store.get(transcriptKey('empty')), undefined);
  store.map.set(transcriptKey('a'), [user('a')]);
  await h.keep('a', [user('a'.repeat(200))]);
  assert.equal(h.list()[0].title.length, 80);
  assert.equal((await h.take('a'))?.sessionId, 'a');
  assert.deepEqual(h.list(), []);
  assert.ok(store.get(transcriptKey('a')), 'a reopened conversation keeps its transcript');
  await h.keep('a', [user('a')]);
  await h.remove('a');
  assert.deepEqual(h.list(), []);
  assert.equal(store.get(transcriptKey('a')), undefined);
  store.map.set('agentBridge.chat.history', [{ bogus: 1 }, { sessionId: 'x', title: 't', at: 1, messages: 1 }]);
  assert.deepEqual(h.list().map((c) => c.sessionId), ['x'], 'stored entries of another shape are ignored');
});
