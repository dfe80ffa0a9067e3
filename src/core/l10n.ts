/**
 * The language of tool results. The agent's answers reach the developer, so results follow the
 * language the developer reads (VS Code's display language; the headless host's --locale or
 * LANG). English strings are the keys, `{0}`-style placeholders as in vscode.l10n.
 */
export type Translate = (english: string, ...args: (string | number)[]) => string;

const ZH_CN: Record<string, string> = {
  // read_file
  '## File: {0}': '## 文件：{0}',
  'Lines {0}–{1} of {2}': '第 {0}–{1} 行，共 {2} 行',
  'Empty file': '空文件',
  'unsaved editor buffer': '编辑器中未保存的内容',
  '**Output capped at {0} lines.** Read the rest with start_line={1}.': '**输出已截断为 {0} 行。** 用 start_line={1} 读取其余部分。',
  '**Output capped at {0} lines.** Read the rest with start_line={1} and end_line={2}.': '**输出已截断为 {0} 行。** 用 start_line={1} 和 end_line={2} 读取其余部分。',
  '{0} line(s) longer than {1} characters were cut.': '有 {0} 行超过 {1} 个字符，已截断。',
  // search
  '## Search: {0} in {1}': '## 搜索：在{1}中查找 {0}',
  'the project': '整个项目',
  '**Matches**: {0} lines in {1} files ({2})': '**匹配数量**：{0} 行，分布在 {1} 个文件中（{2}）',
  'No matches for {0} in {1} ({2}).': '在 {1} 中没有找到 {0}（{2}）。',
  'regex': '正则表达式',
  'literal': '字面量',
  'case-sensitive': '区分大小写',
  'case-insensitive': '不区分大小写',
  'file type: {0}': '文件类型：{0}',
  // read_class, read_method, call_chain
  '## {0}: {1}': '## {0}：{1}',
  'Class': '类',
  'Interface': '接口',
  'Enum': '枚举',
  'Record': '记录',
  'Annotation': '注解',
  'Struct': '结构体',
  'Module': '模块',
  'Type': '类型',
  'Object': '对象',
  'line {0}': '第 {0} 行',
  'lines {0}–{1}': '第 {0}–{1} 行',
  'File: {0} · {1} · package {2} · source: {3}': '文件：{0} · {1} · 包 {2} · 来源：{3}',
  'File: {0} · {1} · source: {2}': '文件：{0} · {1} · 来源：{2}',
  '(default)': '（默认包）',
  'Nested in {0}.': '嵌套在 {0} 中。',
  'Enum constants': '枚举常量',
  'Record components': '记录组件',
  'Fields': '字段',
  'Constructors': '构造方法',
  'Methods': '方法',
  'Nested types': '嵌套类型',
  '## Method: {0}': '## 方法：{0}',
  '{0} declaration(s) · source: {1}': '{0} 个声明 · 来源：{1}',
  '## Call chain: {0}': '## 调用链：{0}',
  '### Callees': '### 被调用方',
  '### Callers': '### 调用方',
  '_No calls._': '_没有调用。_',
  '_No callers found in the project._': '_项目中没有找到调用方。_',
  '## Several classes match {0}': '## 有多个类匹配 {0}',
  'Call again with {0}.': '请用 {0} 再次调用。',
  // errors every tool shares
  'File not found: {0}': '文件不存在：{0}',
  'Path is outside the project: {0}': '路径在项目之外：{0}',
  'Path leads outside the project through a symbolic link: {0}': '路径通过符号链接指向项目之外：{0}',
  '{0} is a directory, not a file. Use grep_file with relativePath to search inside it.': '{0} 是目录而不是文件。请用 grep_file 并指定 relativePath 在其中搜索。',
  '{0} is a binary file ({1} bytes); only text files can be read.': '{0} 是二进制文件（{1} 字节），只能读取文本文件。',
};

const CATALOGS: Record<string, Record<string, string>> = { 'zh-cn': ZH_CN };

/** 'zh-CN', 'zh-Hans', 'zh' and 'zh_CN.UTF-8' read as Simplified Chinese; anything else as English. */
export function normalizeLocale(tag: string | undefined): 'en' | 'zh-cn' {
  const t = (tag ?? '').toLowerCase().replace('_', '-');
  return t === 'zh' || t.startsWith('zh-cn') || t.startsWith('zh-hans') || t.startsWith('zh-sg') ? 'zh-cn' : 'en';
}

export function translator(locale: string | undefined): Translate {
  const catalog = CATALOGS[normalizeLocale(locale)] ?? {};
  return (english, ...args) => (catalog[english] ?? english).replace(/\{(\d+)\}/g, (m, i: string) => (args[Number(i)] !== undefined ? String(args[Number(i)]) : m));
}

/** The keys of a catalog, for the completeness test. */
export function catalogKeys(locale: 'zh-cn'): string[] {
  return Object.keys(CATALOGS[locale]);
}
