import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { javaOutline } from '../../src/core/code/java/outline';
import { extractFile, extractPacked } from '../../src/core/code/languages/registry';
import { jdkMissing, unpackModule } from '../support/jdk';
import { declarations, declsOf } from '../support/packed';

/**
 * The index's first pass parses each Java file's outline (java/outline.ts): the text with every
 * body emptied. Over all of java.base, its declarations must be exactly the full parse's.
 */

const lines = (t: string): number => t.split('\n').length;

test('java.base: every file outlined gives the full parse’s declarations, and the outline is much shorter', async () => {
  assert.equal(jdkMissing(), undefined, `${jdkMissing()}: run scripts/setup-jdk.sh (CI does)`);
  const root = unpackModule('java.base');
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.java')) files.push(p);
    }
  };
  walk(root);
  assert.ok(files.length > 2500, `${files.length} files`);
  let full = 0;
  let outlined = 0;
  const differ: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const rel = path.relative(root, file);
    const outline = javaOutline(text);
    full += text.length;
    outlined += outline.length;
    const a = declarations(await extractFile(rel, text));
    const b = declarations(declsOf(await extractPacked(rel, text, 'outline')));
    if (a !== b || lines(outline) !== lines(text)) differ.push(rel);
  }
  assert.deepEqual(differ, []);
  assert.ok(outlined < full * 0.75, `outline ${outlined} of ${full} characters`);
});
