/**
 * The language of tool results. The agent's answers reach the developer, so results follow the
 * language the developer reads (VS Code's display language; the headless host's --locale or
 * LANG). English strings are the keys, `{0}`-style placeholders as in vscode.l10n.
 */
export type Translate = (english: string, ...args: (string | number)[]) => string;

const ZH_CN: Record<string, string> = {
  'Changes waiting for a decision already hold {0} MB of text; this one ({1} MB) would pass the limit. Nothing was written: try again once some are decided.': '等待决定的更改已占用 {0} MB 文本；这一项（{1} MB）会超出上限。未写入任何内容：请在部分更改被决定后重试。',
  // read_file
  '## File: {0}': '## 文件：{0}',
  'Lines {0}–{1} of {2}': '第 {0}–{1} 行，共 {2} 行',
  'Empty file': '空文件',
  'unsaved editor buffer': '编辑器中未保存的内容',
  '**Output capped at {0} lines.** Read the rest with start_line={1}.': '**输出已截断为 {0} 行。** 用 start_line={1} 读取其余部分。',
  '**Output capped at {0} lines.** Read the rest with start_line={1} and end_line={2}.': '**输出已截断为 {0} 行。** 用 start_line={1} 和 end_line={2} 读取其余部分。',
  '{0} line(s) longer than {1} characters were cut.': '有 {0} 行超过 {1} 个字符，已截断。',
  // chat attachments
  'At most {0} attachments can go with one message.': '一条消息最多附带 {0} 个附件。',
  '{0} has {1} lines; lines {2}-{3} are not in it.': '{0} 共 {1} 行，没有第 {2}-{3} 行。',
  '{0} does not fit in what one message may carry ({1} KB of attachments); attach fewer or smaller parts.': '{0} 超出了一条消息可附带的大小（附件共 {1} KB）；请少附一些或只附其中一部分。',
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
  'Also written in other files': '另见其他文件中的部分',
  'Unknown tool "{0}". Available tools: {1}.': '未知工具"{0}"。可用的工具：{1}。',
  'Invalid params for {0}: {1}': '{0} 的参数无效：{1}',
  '{0} did not finish within {1} s and was stopped (agentBridge.toolTimeoutSeconds). Narrow the request and try again.': '{0} 未在 {1} 秒内完成，已被停止（agentBridge.toolTimeoutSeconds）。请缩小请求范围后重试。',
  '{0} failed unexpectedly: {1}': '{0} 意外失败：{1}',
  'Agent Bridge is busy: {0} tool calls are running and {1} are waiting (at most {2} run at once). Nothing was done; try again in a moment.': 'Agent Bridge 正忙：{0} 个工具调用正在运行，{1} 个在等待（最多同时运行 {2} 个）。未执行任何操作，请稍后重试。',
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
  // apply_change, Edit, MultiEdit: the match ladder and its failures (src/core/edit)
  'exact text': '精确匹配',
  'ignoring line endings and trailing blanks': '忽略换行符和行尾空白',
  'ignoring indentation': '忽略缩进',
  ' Nothing was changed.': '未做任何修改。',
  'lines {0}-{1}': '第 {0}-{1} 行',
  'lines {0}': '第 {0} 行',
  'lines {0} and {1} more': '第 {0} 行，另有 {1} 处',
  '{0} not found in {1}: no exact match, and none ignoring line endings, trailing blanks or indentation.':
    '在 {1} 中找不到 {0}：没有精确匹配，忽略换行符、行尾空白或缩进后也没有匹配。',
  '{0} Nothing in the file ({1} lines) resembles it; check the path, or read the file and copy the text exactly.':
    '{0}文件（共 {1} 行）中没有与之相似的内容；请检查路径，或先读取文件再原样复制文本。',
  '{0} Closest region: {1} (similarity {2}). Differences (- {3}, + file):': '{0}最接近的区域：{1}（相似度 {2}）。差异（- 为 {3}，+ 为文件内容）：',
  'Copy those lines exactly from the file and retry.': '请从文件中原样复制这些行后重试。',
  '{0} matches {1} places in {2} ({3}), at {4}. Include more surrounding lines so it matches exactly one place.':
    '{0} 在 {2} 中匹配到 {1} 处（{3}），位于{4}。请带上更多上下文行，使其只匹配一处。',
  '{0} matches {1} places in {2} ({3}), at {4}. Include more surrounding lines so it matches exactly one place, or set replace_all to change every occurrence.':
    '{0} 在 {2} 中匹配到 {1} 处（{3}），位于{4}。请带上更多上下文行，使其只匹配一处；或设置 replace_all 替换所有匹配项。',
  '{0} not found in {1}, but {2} is already there at {3} ({4}): the change looks already applied.':
    '在 {1} 中找不到 {0}，但 {2} 已经在{3}（{4}）：这个修改看起来已经应用过了。',
  '{0} not found in {1} as exact text, which replace_all requires; it matches {2} at {3}. Copy the text exactly from the file, or drop replace_all.':
    '在 {1} 中找不到与 {0} 精确匹配的文本，而 replace_all 要求精确匹配；按{2}可在{3}匹配到。请从文件中原样复制文本，或去掉 replace_all。',
  '{0} is empty; an empty {0} means "create the file", and {1} already has content. Send the text to replace.':
    '{0} 为空；空的 {0} 表示“创建文件”，但 {1} 已有内容。请发送要替换的文本。',
  '{0} and {1} are identical; there is nothing to change.': '{0} 与 {1} 完全相同，没有需要修改的内容。',
  '{0} is empty; only the first edit of a new (empty) file may have an empty {0}.': '{0} 为空；只有新建（空）文件的第一个编辑才能使用空的 {0}。',
  'edits: at least one edit is required.': 'edits：至少需要一个编辑。',
  'edits: {0} edits in one call; at most {1} are accepted. Split the change into several calls. Nothing was changed.': 'edits：一次调用含 {0} 个编辑，最多接受 {1} 个。请拆成几次调用。未做任何更改。',
  'Matching the edit took longer than {0} s and was stopped; the file is too large or too repetitive for this search text. Send a shorter, more distinctive text, or fewer edits. Nothing was changed.':
    '匹配该编辑超过 {0} 秒，已停止；对这段搜索文本而言，文件太大或重复太多。请发送更短、更有区分度的文本，或减少编辑数量。未做任何更改。',
  'replace_all would make {0} larger than {1} MB ({2} occurrences); Agent Bridge does not write files that large. Nothing was changed.': 'replace_all 会使 {0} 超过 {1} MB（{2} 处）；Agent Bridge 不写入这么大的文件。未做任何更改。',
  'Error in edit {0} of {1}: {2} None of the {1} edits were applied.': '第 {0} 个编辑（共 {1} 个）出错：{2}{1} 个编辑均未应用。',
  'Error in edit {0} of {1} (line numbers are as after edits 1-{2}): {3} None of the {1} edits were applied.':
    '第 {0} 个编辑（共 {1} 个）出错（行号为应用第 1-{2} 个编辑之后的行号）：{3}{1} 个编辑均未应用。',
  '{0} already exists ({1} lines) with different content, so it was not created. To change it, read it and send a non-empty {2} that matches the part to replace.':
    '{0} 已存在（共 {1} 行）且内容不同，因此没有创建。如需修改，请先读取该文件，再发送与要替换部分匹配的非空 {2}。',
  // the edit tools' own checks
  'File not found: {0}. To create it, send an empty searchContent.': '文件不存在：{0}。如需创建，请发送空的 searchContent。',
  'File not found: {0}. To create it, send an empty old_string.': '文件不存在：{0}。如需创建，请发送空的 old_string。',
  "File not found: {0}. To create it, make the first edit's old_string empty.": '文件不存在：{0}。如需创建，请将第一个编辑的 old_string 留空。',
  'file_path: is required': 'file_path：必填',
  'notebook_path: is required': 'notebook_path：必填',
  'notebook_path: {0} is not an .ipynb file': 'notebook_path：{0} 不是 .ipynb 文件',
  'Notebook not found: {0}': 'Notebook 不存在：{0}',
  '{0} is not valid notebook JSON.': '{0} 不是有效的 Notebook JSON。',
  '{0} is not valid notebook JSON (at character {1}).': '{0} 不是有效的 Notebook JSON（第 {1} 个字符处）。',
  '{0} is too large to edit by matching text (at most {1} lines and {2} MB). Nothing was changed. Write the whole file with Replace instead.': '{0} 太大，无法通过匹配文本来编辑（最多 {1} 行、{2} MB）。未做任何修改。请改用 Replace 写入整个文件。',
  'The new text holds half of a UTF-16 surrogate pair, which UTF-8 cannot store. Nothing was written. Send the character whole.': '新文本包含半个 UTF-16 代理对，UTF-8 无法存储。未写入任何内容。请发送完整的字符。',
  '{0} leads into a loop of symbolic links.': '{0} 指向一个符号链接循环。',
  '{0} is not a Jupyter notebook (no "cells" array).': '{0} 不是 Jupyter Notebook（没有 "cells" 数组）。',
  '{0} is an nbformat 3 notebook; NotebookEditCell edits nbformat 4 notebooks only. Nothing was written.': '{0} 是 nbformat 3 格式的 Notebook；NotebookEditCell 只编辑 nbformat 4 格式的 Notebook。未写入任何内容。',
  'cell_number: {0} is out of bounds. Notebook has {1} cells.': 'cell_number：{0} 超出范围。该 Notebook 共有 {1} 个单元格。',
  '{0} has the same key twice in one JSON object (line {1}). Readers disagree on which one counts, so Agent Bridge does not edit it. Nothing was written.': '{0} 的同一个 JSON 对象中有重复的键（第 {1} 行）。各读取方对以哪一个为准并不一致，因此 Agent Bridge 不编辑它。未写入任何内容。',
  '{0} is {1} MB; NotebookEditCell edits notebooks of at most {2} MB. Nothing was written. Clearing its outputs (e.g. jupyter nbconvert --clear-output) makes it smaller.': '{0} 有 {1} MB；NotebookEditCell 只编辑不超过 {2} MB 的 Notebook。未写入任何内容。清除其输出（例如 jupyter nbconvert --clear-output）可以减小它。',
  'The notebook worker (notebookWorker.js) is missing from this installation, so {0} cannot be edited without stalling the host. Nothing was written.': '此安装中缺少 Notebook 工作线程（notebookWorker.js），无法在不阻塞宿主的情况下编辑 {0}。未写入任何内容。',
  'The call was cancelled; nothing was written.': '调用已取消；未写入任何内容。',
  '{0} took longer than {1} s to parse and edit; Agent Bridge stopped. Nothing was written.': '解析和编辑 {0} 超过了 {1} 秒；Agent Bridge 已停止。未写入任何内容。',
  '{0} needs more than {1} MB of memory to parse (its JSON is unusually dense); Agent Bridge stopped. Nothing was written.': '解析 {0} 需要超过 {1} MB 内存（其 JSON 异常密集）；Agent Bridge 已停止。未写入任何内容。',
  'The notebook worker failed on {0}: {1}. Nothing was written.': 'Notebook 工作线程处理 {0} 时失败：{1}。未写入任何内容。',
  'The notebook worker stopped (exit code {0}) before answering; nothing was written.': 'Notebook 工作线程在应答前已退出（退出码 {0}）；未写入任何内容。',
  'This host has no way to ask for approval, so it cannot write files.': '此宿主无法请求批准，因此不能写入文件。',
  // the access policy
  '{0} matches "{1}" in {2}, so Agent Bridge does not show it to the agent. Remove that pattern from {2} to allow it.': '{0} 匹配 {2} 中的"{1}"，因此 Agent Bridge 不向智能体展示它。要允许，请从 {2} 中删除该模式。',
  '{0} is not a regular file (a pipe, socket, device or link); only regular files are read.': '{0} 不是普通文件（管道、套接字、设备或链接）；只读取普通文件。',
  '{0} is larger than {1} MB; Agent Bridge does not load files that large. Search it with grep_file instead.': '{0} 大于 {1} MB；Agent Bridge 不加载这么大的文件。请改用 grep_file 搜索它。',
  '{0} changed into a link to another place while it was being opened; nothing was read.': '{0} 在打开时变成了指向别处的链接；未读取任何内容。',
  '{0} was changed. It is a secret file ({1}), so nothing of its content is shown.': '{0} 已修改。它是机密文件（{1}），因此不显示其任何内容。',
  'The change to {0} was not made ({1}). It is a secret file ({2}), so no detail about its content is given.': '未对 {0} 进行修改（{1}）。它是机密文件（{2}），因此不提供有关其内容的任何细节。',
  '{0} is a secret file ("{1}" in {2}): a change to it needs a person\'s consent, and this host has nobody to ask. Nothing was read or written.': '{0} 是机密文件（{2} 中的"{1}"）：修改它需要人的同意，而此主机无人可问。未读取也未写入任何内容。',
  // idempotency
  'The id {0} was already used by another call ({1} with other params). Nothing was done; send each call with a new id.': 'ID {0} 已被另一个调用使用（参数不同的 {1}）。未执行任何操作；每个调用请使用新的 ID。',
  'The call {0} was interrupted by a restart of the host while it ran; it may or may not have been written. Nothing was done now: read the file, then send a new call with a new id.': '调用 {0} 在运行时因主机重启而中断；可能已写入，也可能没有。本次未执行任何操作：请读取文件，然后用新的 ID 发送新调用。',
  'The call {0} was applied already; its answer ({1} bytes) is not kept. Read the file to see it.': '调用 {0} 已经执行过；其结果（{1} 字节）未保留。请读取文件查看。',
  'The call {0} failed already ({1}); it is not run again. Send a new call with a new id.': '调用 {0} 已经失败（{1}）；不会再次执行。请用新的 ID 发送新调用。',
  // writes that cannot be lossless
  '{0} is not valid {1} (it may be in a legacy encoding such as Latin-1 or Shift-JIS). Agent Bridge does not edit it: writing it back would change bytes outside the edit. Nothing was written.': '{0} 不是有效的 {1}（可能是 Latin-1 或 Shift-JIS 等旧编码）。Agent Bridge 不编辑它：写回会改变编辑范围之外的字节。未写入任何内容。',
  '{0} is read-only; Agent Bridge does not change read-only files. Nothing was written.': '{0} 是只读文件；Agent Bridge 不修改只读文件。未写入任何内容。',
  '{0} has other names (hard links), and one of them may be a secret file, so Agent Bridge does not show it to the agent.': '{0} 还有其他名称（硬链接），其中之一可能是机密文件，因此 Agent Bridge 不向智能体展示它。',
  // a write answered after the backend's own wait
  'Answered {0} s after the call, later than a backend usually waits ({1} s). If the call timed out on your side, this change was still written, as this result says.': '本回复在调用 {0} 秒后才发出，晚于后端通常的等待时间（{1} 秒）。如果该调用在你这边已超时，这个变更仍然已按本结果所述写入。',
  'Answered {0} s after the call, later than a backend usually waits ({1} s). Nothing was written.': '本回复在调用 {0} 秒后才发出，晚于后端通常的等待时间（{1} 秒）。未写入任何内容。',
  // get_diagnostics
  'This host has no language services, so there are no diagnostics to report.': '此主机没有语言服务，因此没有可报告的诊断信息。',
  'Problems in {0}: {1} errors, {2} warnings': '{0} 中的问题：{1} 个错误，{2} 个警告',
  'No problems reported. (Language services report on the files they have analysed, usually the open ones.)': '没有报告问题。（语言服务只报告已分析过的文件，通常是已打开的文件。）',
  '{0} more not shown: narrow relativePath or severity.': '另有 {0} 个未显示：请缩小 relativePath 或 severity 的范围。',
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
