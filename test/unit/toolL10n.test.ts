import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Dispatcher } from '../../src/core/dispatcher';
import { catalogKeys, normalizeLocale, translator } from '../../src/core/l10n';
import { silentLogger } from '../../src/core/log';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from './helpers/fixtures';

const root = makeTree({ 'src/A.java': 'class A {\n  // TODO one\n}\n' }, 'ab-l10n-');
const run = (locale: string | undefined, toolName: string, params: Record<string, unknown>) =>
  new Dispatcher({ workspace: new NodeWorkspace(root, { locale }), tools: ALL_TOOLS, log: silentLogger }).dispatch({ id: 'x', idKey: 'toolCallId', toolName, params });

test('locale tags: zh-CN, zh-Hans, zh and zh_CN.UTF-8 are Simplified Chinese; others English', () => {
  assert.deepEqual(['zh-CN', 'zh-Hans', 'zh', 'zh_CN.UTF-8', 'en', 'de', undefined].map(normalizeLocale), ['zh-cn', 'zh-cn', 'zh-cn', 'zh-cn', 'en', 'en', 'en']);
  assert.equal(translator('zh-cn')('File not found: {0}', 'a.txt'), '文件不存在：a.txt');
  assert.equal(translator('en')('File not found: {0}', 'a.txt'), 'File not found: a.txt');
});

test('every Chinese entry keeps the placeholders of its English key', () => {
  const zh = translator('zh-cn');
  for (const key of catalogKeys('zh-cn')) {
    const placeholders = (s: string) => [...s.matchAll(/\{\d+\}/g)].map((m) => m[0]).sort();
    assert.notEqual(zh(key), key, key);
    assert.deepEqual(placeholders(zh(key)), placeholders(key), key);
  }
});

test('read_file, grep_file and their errors answer in Chinese when the developer reads Chinese', async () => {
  const read = await run('zh-CN', 'read_file', { relativePath: 'src/A.java' });
  assert.match(read.data.result ?? '', /^## 文件：src\/A\.java\n\n第 1–3 行，共 3 行 · java/);
  const grep = await run('zh-CN', 'grep_file', { pattern: 'todo' });
  assert.match(grep.data.result ?? '', /## 搜索：在整个项目中查找 `todo`/);
  assert.match(grep.data.result ?? '', /\*\*匹配数量\*\*：1 行，分布在 1 个文件中（字面量, 不区分大小写）/);
  const missing = await run('zh-CN', 'read_file', { relativePath: 'nope.txt' });
  assert.equal(missing.data.error, '文件不存在：nope.txt');
  const escape = await run('zh-CN', 'read_file', { relativePath: '../x' });
  assert.equal(escape.data.error, '路径在项目之外：../x');
});

test('English stays the default', async () => {
  const read = await run(undefined, 'read_file', { relativePath: 'src/A.java' });
  assert.match(read.data.result ?? '', /^## File: src\/A\.java\n\nLines 1–3 of 3 · java/);
  const grep = await run('en', 'grep_file', { pattern: 'todo' });
  assert.match(grep.data.result ?? '', /\*\*Matches\*\*: 1 line in 1 file \(literal, case-insensitive\)/);
});

test('read_class, read_method and call_chain headings follow the developer\'s language', async () => {
  const java = makeTree({ 'src/p/Greeter.java': 'package p;\n\n/** Greets. */\npublic class Greeter {\n  private String name;\n  public String greet() {\n    return hello();\n  }\n  String hello() {\n    return "hi";\n  }\n}\n' }, 'ab-l10n-java-');
  const call = (toolName: string, params: Record<string, unknown>) =>
    new Dispatcher({ workspace: new NodeWorkspace(java, { locale: 'zh-CN' }), tools: ALL_TOOLS, log: silentLogger }).dispatch({ id: toolName, idKey: 'toolCallId', toolName, params });
  const cls = await call('read_class', { className: 'Greeter', mode: 'structure' });
  assert.equal(cls.data.success, true, cls.data.error);
  assert.match(cls.data.result ?? '', /^## 类：p\.Greeter\n\n文件：src\/p\/Greeter\.java · 第 4–12 行 · 包 p · 来源：parser/);
  assert.match(cls.data.result ?? '', /### 字段 \(1\)/);
  assert.match(cls.data.result ?? '', /### 方法 \(2\)/);
  const method = await call('read_method', { className: 'Greeter', methodName: 'greet' });
  assert.match(method.data.result ?? '', /^## 方法：Greeter\.greet\n\n1 个声明 · 来源：parser/);
  const chain = await call('call_chain', { method: 'Greeter.greet', direction: 'callees' });
  assert.match(chain.data.result ?? '', /^## 调用链：Greeter\.greet/);
  assert.match(chain.data.result ?? '', /### 被调用方/);
});
