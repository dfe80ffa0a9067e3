import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Dispatcher } from '../../src/core/link/dispatcher';
import { t, useMessageBundle } from '../../src/core/l10n';
import { silentLogger } from '../support/silentLogger';
import { ALL_TOOLS } from '../../src/core/tools/registry';
import { bundleForLocale } from '../../src/node/language';
import { NodeWorkspace } from '../../src/node/nodeWorkspace';
import { makeTree } from '../support/fixtures';

const root = makeTree({ 'src/A.java': 'class A {\n  // TODO one\n}\n' }, 'ab-l10n-');
/** The language is the whole process's, as in a host; the calls here run one at a time, so each sets it first. */
const inLanguage = (locale: string | undefined): void => useMessageBundle(bundleForLocale(locale));
const run = (locale: string | undefined, toolName: string, params: Record<string, unknown>) => {
  inLanguage(locale);
  return new Dispatcher({ workspace: new NodeWorkspace(root), tools: ALL_TOOLS, log: silentLogger }).dispatch({ id: 'x', idKey: 'toolCallId', toolName, params });
};

test('locale tags: zh-CN, zh-Hans, zh and zh_CN.UTF-8 are Simplified Chinese; others English', () => {
  const language = (tag: string | undefined) => (bundleForLocale(tag) === undefined ? 'en' : 'zh-cn');
  assert.deepEqual(['zh-CN', 'zh-Hans', 'zh', 'zh_CN.UTF-8', 'en', 'de', undefined].map(language), ['zh-cn', 'zh-cn', 'zh-cn', 'zh-cn', 'en', 'en', 'en']);
  inLanguage('zh-cn');
  assert.equal(t('File not found: {0}', 'a.txt'), '文件不存在：a.txt');
  inLanguage('en');
  assert.equal(t('File not found: {0}', 'a.txt'), 'File not found: a.txt');
});

test('every Chinese entry keeps the placeholders of its English key', () => {
  const zh = bundleForLocale('zh-cn') ?? {};
  for (const [key, text] of Object.entries(zh)) {
    const placeholders = (s: string) => [...s.matchAll(/\{\d+\}/g)].map((m) => m[0]).sort();
    assert.notEqual(text, key, key);
    assert.deepEqual(placeholders(text), placeholders(key), key);
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
  inLanguage('zh-CN');
  const call = (toolName: string, params: Record<string, unknown>) =>
    new Dispatcher({ workspace: new NodeWorkspace(java), tools: ALL_TOOLS, log: silentLogger }).dispatch({ id: toolName, idKey: 'toolCallId', toolName, params });
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

test('edit failures answer in Chinese: not found with the closest region, several places, already applied', async () => {
  const calc = 'public class Calc {\n  int add(int a, int b) {\n    return a + b;\n  }\n  int twice(int a) {\n    return a + a;\n  }\n}\n';
  const dir = makeTree({ 'src/Calc.java': calc }, 'ab-l10n-edit-');
  const call = (locale: string | undefined, toolName: string, params: Record<string, unknown>) => {
    inLanguage(locale);
    return new Dispatcher({ workspace: new NodeWorkspace(dir), tools: ALL_TOOLS, log: silentLogger }).dispatch({ id: toolName, idKey: 'toolCallId', toolName, params });
  };

  // NOT_FOUND: the closest region, its lines and how they differ; the diff lines are the file's, untranslated.
  const typo = await call('zh-CN', 'apply_change', { relativePath: 'src/Calc.java', searchContent: '  int add(int a, int b) {\n    return a - b;\n', replaceContent: 'x' });
  assert.equal(typo.data.code, 'NOT_FOUND');
  const [first, ...rest] = (typo.data.error ?? '').split('\n');
  assert.match(
    first,
    /^在 src\/Calc\.java 中找不到 searchContent：没有精确匹配，忽略换行符、行尾空白或缩进后也没有匹配。最接近的区域：第 2-3 行（相似度 0\.\d\d）。差异（- 为 searchContent，\+ 为文件内容）：$/,
  );
  assert.ok(rest.includes('-    return a - b;') && rest.includes('+    return a + b;'), rest.join('\n'));
  assert.equal(rest.at(-1), '请从文件中原样复制这些行后重试。');
  const nothingAlike = await call('zh-CN', 'Edit', { file_path: 'src/Calc.java', old_string: 'zzzz qqqq', new_string: 'x' });
  assert.equal(nothingAlike.data.error, '在 src/Calc.java 中找不到 old_string：没有精确匹配，忽略换行符、行尾空白或缩进后也没有匹配。文件（共 8 行）中没有与之相似的内容；请检查路径，或先读取文件再原样复制文本。');

  // CONFLICT: every place, by line.
  const twice = await call('zh-CN', 'Edit', { file_path: 'src/Calc.java', old_string: 'return a', new_string: 'return b' });
  assert.equal(twice.data.code, 'CONFLICT');
  assert.equal(twice.data.error, 'old_string 在 src/Calc.java 中匹配到 2 处（精确匹配），位于第 3, 6 行。请带上更多上下文行，使其只匹配一处；或设置 replace_all 替换所有匹配项。未做任何修改。');
  const ambiguousChange = await call('zh-CN', 'apply_change', { relativePath: 'src/Calc.java', searchContent: 'return a', replaceContent: 'return b' });
  assert.equal(ambiguousChange.data.error, 'searchContent 在 src/Calc.java 中匹配到 2 处（精确匹配），位于第 3, 6 行。请带上更多上下文行，使其只匹配一处。未做任何修改。');

  // Already applied: Edit says so as NOT_FOUND; apply_change answers success without writing.
  const done = await call('zh-CN', 'Edit', { file_path: 'src/Calc.java', old_string: 'return a * b;', new_string: '    return a + b;\n' });
  assert.equal(done.data.code, 'NOT_FOUND');
  assert.equal(done.data.error, '在 src/Calc.java 中找不到 old_string，但 new_string 已经在第 3 行（精确匹配）：这个修改看起来已经应用过了。未做任何修改。');
  const doneChange = await call('zh-CN', 'apply_change', { relativePath: 'src/Calc.java', searchContent: 'return a * b;', replaceContent: '    return a + b;\n' });
  assert.equal(doneChange.data.success, true, doneChange.data.error);
  assert.equal((doneChange.data.structured as { alreadyApplied: boolean }).alreadyApplied, true);

  // MultiEdit: which edit failed, in whose line numbers, and that none was applied.
  const multi = await call('zh-CN', 'MultiEdit', { file_path: 'src/Calc.java', edits: [{ old_string: 'int twice', new_string: 'int double' }, { old_string: 'return a', new_string: 'return b' }] });
  assert.equal(multi.data.code, 'CONFLICT');
  assert.equal(multi.data.error, '第 2 个编辑（共 2 个）出错（行号为应用第 1-1 个编辑之后的行号）：old_string 在 src/Calc.java 中匹配到 2 处（精确匹配），位于第 3, 6 行。请带上更多上下文行，使其只匹配一处；或设置 replace_all 替换所有匹配项。2 个编辑均未应用。');
  const indented = await call('zh-CN', 'Edit', { file_path: 'src/Calc.java', old_string: 'return a;\n', new_string: 'return 0;\n', replace_all: true });
  assert.equal(indented.data.code, 'NOT_FOUND');
  assert.match(indented.data.error ?? '', /^在 src\/Calc\.java 中找不到 old_string：/);

  // Creating over different content, a missing file, a missing notebook: the tools' own checks.
  const create = await call('zh-CN', 'apply_change', { relativePath: 'src/Calc.java', replaceContent: 'other\n' });
  assert.equal(create.data.code, 'CONFLICT');
  assert.equal(create.data.error, 'src/Calc.java 已存在（共 8 行）且内容不同，因此没有创建。如需修改，请先读取该文件，再发送与要替换部分匹配的非空 searchContent。');
  const missing = await call('zh-CN', 'Edit', { file_path: 'src/Nope.java', old_string: 'a', new_string: 'b' });
  assert.equal(missing.data.error, '文件不存在：src/Nope.java。如需创建，请发送空的 old_string。');
  const notebook = await call('zh-CN', 'NotebookEditCell', { notebook_path: 'src/Calc.java', cell_number: 0 });
  assert.equal(notebook.data.error, 'notebook_path：src/Calc.java 不是 .ipynb 文件');

  // The same calls in English are unchanged, and the file was never touched.
  const english = await call(undefined, 'Edit', { file_path: 'src/Calc.java', old_string: 'return a', new_string: 'return b' });
  assert.equal(english.data.error, 'old_string matches 2 places in src/Calc.java (exact text), at lines 3, 6. Include more surrounding lines so it matches exactly one place, or set replace_all to change every occurrence. Nothing was changed.');
  assert.equal(fs.readFileSync(path.join(dir, 'src/Calc.java'), 'utf8'), calc);
});

test('the dispatcher answers an unknown tool, bad params and a busy host in the host language; English stays as it was', async () => {
  const unknown = await run('zh-CN', 'nope', {});
  assert.equal(unknown.data.success, false);
  assert.match(String(unknown.data.error), /^未知工具"nope"。可用的工具：read_file, /);
  const bad = await run('zh-CN', 'read_file', {});
  assert.match(String(bad.data.error), /^read_file 的参数无效：relativePath/);
  assert.match(String((await run('en', 'nope', {})).data.error), /^Unknown tool "nope"\. Available tools: read_file, /);
  assert.match(String((await run(undefined, 'read_file', {})).data.error), /^Invalid params for read_file: relativePath/);

  // a flood beyond the queue: the busy answer, in Chinese, with the numbers
  inLanguage('zh-CN');
  const ws = new NodeWorkspace(root);
  const d = new Dispatcher({ workspace: ws, tools: ALL_TOOLS, log: silentLogger, limits: () => ({ maxConcurrent: 1, maxQueued: 0 }) });
  const answers = await Promise.all([0, 1].map((i) => d.dispatch({ id: `b${i}`, idKey: 'toolCallId', toolName: 'grep_file', params: { pattern: 'class' } })));
  const busy = answers.find((a) => a.data.success === false);
  assert.ok(busy, 'one call is refused as busy');
  assert.equal(String(busy.data.error), 'Agent Bridge 正忙：1 个工具调用正在运行，0 个在等待（最多同时运行 1 个）。未执行任何操作，请稍后重试。');
});

test('a notebook edited in the worker thread answers in the host language too', async () => {
  // Over the size edited inline, so the edit runs in notebookWorker with the bundle of this thread.
  const big = JSON.stringify({ cells: [{ cell_type: 'code', metadata: {}, outputs: [], source: ['x = 1\n'.repeat(20_000)] }], metadata: {}, nbformat: 4, nbformat_minor: 5 });
  const dir = makeTree({ 'big.ipynb': big }, 'ab-l10n-nb-');
  const call = (locale: string | undefined) => {
    inLanguage(locale);
    return new Dispatcher({ workspace: new NodeWorkspace(dir), tools: ALL_TOOLS, log: silentLogger }).dispatch({ id: `nb-${locale}`, idKey: 'toolCallId', toolName: 'NotebookEditCell', params: { notebook_path: 'big.ipynb', cell_number: 5, new_source: 'y' } });
  };
  assert.equal((await call('zh-CN')).data.error, 'cell_number：5 超出范围。该 Notebook 共有 1 个单元格。');
  assert.equal((await call(undefined)).data.error, 'cell_number: 5 is out of bounds. Notebook has 1 cells.');
});
