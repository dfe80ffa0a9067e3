/**
 * Localization stays complete: every %key% of package.json has an English and a Chinese text,
 * and every vscode.l10n.t string of the extension has a Chinese translation (and nothing stale).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');
const readJson = (rel: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(root, rel), 'utf8')) as Record<string, unknown>;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

test('every %key% in package.json is in package.nls.json and package.nls.zh-cn.json', () => {
  const manifest = fs.readFileSync(path.join(root, 'package.json'), 'utf8');
  const keys = new Set([...manifest.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]));
  assert.ok(keys.size > 10);
  const en = readJson('package.nls.json');
  const zh = readJson('package.nls.zh-cn.json');
  for (const key of keys) {
    assert.equal(typeof en[key], 'string', `package.nls.json lacks ${key}`);
    assert.equal(typeof zh[key], 'string', `package.nls.zh-cn.json lacks ${key}`);
  }
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort(), 'both files have the same keys');
});

test('every vscode.l10n.t string has a zh-cn translation, and the bundle has no stale ones', () => {
  const used = new Set<string>();
  for (const file of sourceFiles(path.join(root, 'src', 'extension'))) {
    const text = fs.readFileSync(file, 'utf8');
    // Both `vscode.l10n.t('...')` and the `const t = vscode.l10n.t; t('...')` shorthand.
    if (!/vscode\.l10n\.t/.test(text)) continue;
    for (const m of text.matchAll(/\bt\('((?:[^'\\]|\\.)*)'/g)) used.add(m[1].replace(/\\'/g, "'"));
  }
  const bundle = readJson('l10n/bundle.l10n.zh-cn.json');
  for (const s of used) assert.equal(typeof bundle[s], 'string', `no zh-cn for: ${s}`);
  for (const k of Object.keys(bundle)) assert.ok(used.has(k), `stale zh-cn entry: ${k}`);
});

test('every string the core translates (t(\'...\') or translator(locale)(\'...\')) has a zh-cn entry', async () => {
  const { catalogKeys } = await import('../../src/core/l10n');
  const keys = new Set(catalogKeys('zh-cn'));
  const used = new Set<string>();
  for (const file of sourceFiles(path.join(root, 'src', 'core'))) {
    const text = fs.readFileSync(file, 'utf8');
    if (!/\btranslator\b/.test(text) && !/\bTranslate\b/.test(text)) continue;
    for (const m of text.matchAll(/(?:\bt|\btranslator\([^)]*\))\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g)) {
      used.add((m[1] ?? m[2]).replace(/\\(['"\\])/g, '$1'));
    }
  }
  assert.ok(used.size > 50, `found only ${used.size} strings`);
  for (const s of used) assert.ok(keys.has(s), `no zh-cn in src/core/l10n.ts for: ${s}`);
});
