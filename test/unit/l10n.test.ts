/**
 * Localization stays complete: every %key% of package.json has an English and a Chinese text, and
 * every string the extension (vscode.l10n) or the core (@vscode/l10n) translates has a Chinese
 * translation in l10n/bundle.l10n.zh-cn.json (and nothing stale).
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

/**
 * The strings the code translates: in src/extension those of `vscode.l10n.t` (both
 * `vscode.l10n.t('...')` and the `const t = vscode.l10n.t; t('...')` shorthand), in src/core the
 * `t('...')` calls of files that import the core's l10n.
 */
function translatedStrings(dir: string, translates: RegExp): Set<string> {
  const used = new Set<string>();
  for (const file of sourceFiles(path.join(root, 'src', dir))) {
    const text = fs.readFileSync(file, 'utf8');
    if (!translates.test(text)) continue;
    for (const m of text.matchAll(/\bt\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g)) used.add((m[1] ?? m[2]).replace(/\\(['"\\])/g, '$1'));
  }
  return used;
}
const extensionStrings = () => translatedStrings('extension', /vscode\.l10n\.t/);
const coreStrings = () => translatedStrings('core', /from '(?:\.\.\/)+l10n'/);

/** Keys the core translates from a variable, so no `t('...')` names them: type kinds (codeAnswers.ts `kindLabel`) and readClass.ts's section titles. */
const COMPUTED_KEYS = ['Class', 'Interface', 'Enum', 'Record', 'Annotation', 'Struct', 'Module', 'Namespace', 'Type', 'Object', 'Enum constants', 'Record components', 'Fields', 'Constructors', 'Methods', 'Nested types'];

const bundle = () => readJson('l10n/bundle.l10n.zh-cn.json');

test('every vscode.l10n.t string has a zh-cn translation', () => {
  const zh = bundle();
  const used = extensionStrings();
  assert.ok(used.size > 50, `found only ${used.size} strings`);
  for (const s of used) assert.equal(typeof zh[s], 'string', `no zh-cn for: ${s}`);
});

test('every string the core translates (t(\'...\')) has a zh-cn entry in the same bundle', () => {
  const zh = bundle();
  const used = coreStrings();
  assert.ok(used.size > 50, `found only ${used.size} strings`);
  for (const s of [...used, ...COMPUTED_KEYS]) assert.equal(typeof zh[s], 'string', `no zh-cn in l10n/bundle.l10n.zh-cn.json for: ${s}`);
});

test('the zh-cn bundle has no stale entries', () => {
  const used = new Set([...extensionStrings(), ...coreStrings(), ...COMPUTED_KEYS]);
  for (const k of Object.keys(bundle())) assert.ok(used.has(k), `stale zh-cn entry: ${k}`);
});
