/**
 * The extension registers its commands in one place (src/extension/commands.ts), from one table per
 * concept (`<folder>/commands.ts`), and those tables name exactly the commands package.json declares.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');
const extensionDir = path.join(root, 'src', 'extension');
/** Commands with no entry in package.json: the status bar item's menu. */
const INTERNAL = ['agentBridge.statusMenu'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

test('only src/extension/commands.ts calls registerCommand', () => {
  const callers = sourceFiles(path.join(root, 'src'))
    .filter((f) => /\bregisterCommand\(/.test(fs.readFileSync(f, 'utf8')))
    .map((f) => path.relative(root, f).split(path.sep).join('/'));
  assert.deepEqual(callers, ['src/extension/commands.ts']);
});

test("the concepts' command tables name exactly package.json's commands", () => {
  const tables = fs.readdirSync(extensionDir, { withFileTypes: true }).filter((e) => e.isDirectory() && fs.existsSync(path.join(extensionDir, e.name, 'commands.ts')));
  assert.ok(tables.length >= 4, `found ${tables.length} command tables`);
  const ids: string[] = [];
  for (const dir of tables) {
    const text = fs.readFileSync(path.join(extensionDir, dir.name, 'commands.ts'), 'utf8');
    ids.push(...[...text.matchAll(/^\s*'(agentBridge\.[A-Za-z.]+)':/gm)].map((m) => m[1]));
  }
  assert.equal(new Set(ids).size, ids.length, `a command is in two tables: ${ids.join(', ')}`);
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { contributes: { commands: { command: string }[] } };
  const declared = manifest.contributes.commands.map((c) => c.command);
  assert.deepEqual([...ids].sort(), [...declared, ...INTERNAL].sort());
});
