import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inert } from '../../src/extension/adapter/inert';

/** The pattern VS Code's notifications turn into links (vs/base/common/linkedText.ts, 1.100). */
const LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

test('inert: agent text in a notification can carry no link, and still reads the same', () => {
  const hostile = [
    'Append a note [Open the diff](command:agentBridge.rejectChange?["id","injected"] "Open the diff")',
    '[click](https://evil.example/x) and [f](file:///etc/passwd) and [c] (command:workbench.action.terminal.sendSequence)',
    'src/[a](command:x).ts',
  ];
  for (const text of hostile) {
    const safe = inert(text);
    assert.equal(safe.match(LINK), null, safe);
    assert.equal(safe.replace(/\u200b/g, ''), text.replace(/\]\s*\(/g, ']('), 'only zero-width spaces were added (and spaces inside "] (" closed up)');
  }
  assert.equal(inert('a plain description (with parentheses) and [brackets]'), 'a plain description (with parentheses) and [brackets]');
});
