/**
 * A scripted stand-in for the agent, so the chat can be tried and tested end to end without a
 * language model: slash commands become real TOOL_CALLs to the IDE, with THINKING along the way,
 * and the answer (COMPLETE in v1, AGENT_RESPONSE chunks ending in done:true in v2) sums up in
 * Markdown what the tools returned. Anything else gets a short Markdown guide to the commands.
 */
import { fenceFor } from '../core/workspace/text';
import type { ChatCommand, ChatContext, ChatHandler, ChatRequest } from './chat';

type Json = Record<string, unknown>;

export interface ScriptedAgentOptions {
  /** Pause between steps, so a person sees the progress; tests use 0. */
  readonly stepDelayMs?: number;
  /** How long an apply_change may wait for the developer's approval. */
  readonly approvalTimeoutMs?: number;
}

interface Step {
  readonly tool: string;
  readonly params: Json;
  readonly label: string;
}

/** The commands, for /help and for the IDE's `/` menu (COMMANDS). */
export const SCRIPTED_COMMANDS: readonly ChatCommand[] = [
  { name: 'grep', usage: '/grep <pattern>', description: 'searches the workspace (`grep_file`)' },
  { name: 'read', usage: '/read <path> [from] [to]', description: 'reads a file or a range of lines (`read_file`)' },
  { name: 'class', usage: '/class <Name>', description: 'outlines a class (`read_class`)' },
  { name: 'calls', usage: '/calls <Class.method>', description: 'shows callers and callees (`call_chain`)' },
  { name: 'edit', usage: '/edit <path>', description: 'proposes a one-line addition at the end of a file (`apply_change`, needs your approval)' },
  { name: 'error', usage: '/error <CODE>', description: 'answers with that ERROR code, to see how it is explained' },
  { name: 'echo', usage: '/echo <markdown>', description: 'answers with the text as is, to see how Markdown renders' },
  { name: 'stream', usage: '/stream [chunks]', description: 'streams an answer in small pieces (v2), to see it render as it arrives' },
  { name: 'help', usage: '/help', description: 'this list' },
];

const HELP = `I am the **dev backend's scripted agent**, not a language model. I understand these commands:

| command | what it does |
|---|---|
${SCRIPTED_COMMANDS.map((c) => `| \`${c.usage}\` | ${c.description} |`).join('\n')}

For example:

\`\`\`bash
/grep TODO
/read src/app/Greeter.java 1 5
\`\`\``;

/** What /stream sends: prose, a list and a code block, so every kind of Markdown is seen half-arrived. */
const STREAMED = `Streaming works like this: the backend sends **small pieces** of the answer as the model writes them, and the chat shows each one as it arrives.

- The view follows the text while you are at the bottom.
- A code block is highlighted once it is complete:

\`\`\`ts
export function add(a: number, b: number): number {
  return a + b;
}
\`\`\`

That is the whole answer.`;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function codeBlock(text: string, language = ''): string {
  const f = fenceFor(text);
  return `${f}${language}\n${text}\n${f}`;
}

const MAX_QUOTED_LINES = 60;

/** The tool's own Markdown, cut to a readable length with any open code fence closed again. */
function quoteResult(result: string): string {
  const lines = result.split('\n');
  if (lines.length <= MAX_QUOTED_LINES) return result;
  const kept = lines.slice(0, MAX_QUOTED_LINES);
  const open = kept.filter((l) => /^\s*```/.test(l)).length % 2 === 1;
  return [...kept, ...(open ? ['```'] : []), '', `*… ${lines.length - MAX_QUOTED_LINES} more lines not shown.*`].join('\n');
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Markdown for one tool's outcome: a headline, then the content in a code block. */
function summarizeTool(step: Step, message: Json): string {
  const data = (message.data ?? {}) as Json;
  const ms = typeof data.executionTime === 'number' ? ` in ${data.executionTime} ms` : '';
  const head = `### \`${step.tool}\` · ${step.label}`;
  if (data.success !== true) {
    const code = typeof data.code === 'string' ? ` (\`${data.code}\`)` : '';
    return `${head}\n\n**Failed**${code}${ms}:\n\n${codeBlock(String(data.error ?? 'no reason given'), 'text')}`;
  }
  const structured = (data.structured ?? {}) as Json;
  const result = String(data.result ?? '');
  if (step.tool === 'read_file' && typeof structured.content === 'string') {
    const range = `lines ${String(structured.startLine)}–${String(structured.endLine)} of ${String(structured.totalLines)}`;
    return `${head}\n\nSucceeded${ms}: ${range}.\n\n${codeBlock(structured.content, String(structured.language ?? ''))}`;
  }
  if (step.tool === 'apply_change') return `${head}\n\nSucceeded${ms}: the change was written.\n\n${codeBlock(prettyJson(result), 'json')}`;
  return `${head}\n\nSucceeded${ms}.\n\n${quoteResult(result)}`;
}

/** The comment syntax a file's extension suggests, for the line /edit appends. */
function commentLine(path: string, text: string): string {
  if (/\.(java|kt|kts|ts|tsx|js|jsx|mjs|go|cs|c|cc|cpp|h|swift|rs|scala|dart)$/i.test(path)) return `// ${text}`;
  if (/\.(py|sh|bash|rb|ya?ml|toml|properties|conf|r)$/i.test(path)) return `# ${text}`;
  if (/\.(sql|lua)$/i.test(path)) return `-- ${text}`;
  if (/\.(xml|html|md)$/i.test(path)) return `<!-- ${text} -->`;
  return text;
}

/** The shortest run of last lines that occurs once in `content`, so apply_change finds exactly one place. */
export function uniqueTail(content: string): string | undefined {
  const lines = content.replace(/\n+$/, '').split('\n');
  for (let k = 1; k <= lines.length; k++) {
    const tail = lines.slice(-k).join('\n');
    if (!tail.trim()) continue;
    if (content.indexOf(tail) === content.lastIndexOf(tail)) return tail;
  }
  return undefined;
}

/** Reads the file's text from a read_file result: `structured.content`, else the numbered lines of its Markdown. */
function fileText(message: Json): string | undefined {
  const data = (message.data ?? {}) as Json;
  if (data.success !== true) return undefined;
  const structured = (data.structured ?? {}) as Json;
  if (typeof structured.content === 'string') return structured.content;
  const numbered = String(data.result ?? '').split('\n').filter((l) => /^\s*\d+ \| /.test(l));
  return numbered.length ? numbered.map((l) => l.replace(/^\s*\d+ \| /, '')).join('\n') : undefined;
}

function parseCommand(message: string): { name: string; rest: string; args: string[] } | undefined {
  const m = /^\/(\w+)(?:[ \t]+([\s\S]*))?$/.exec(message.trim());
  if (!m) return undefined;
  const rest = (m[2] ?? '').trim();
  return { name: m[1].toLowerCase(), rest, args: rest ? rest.split(/\s+/) : [] };
}

/** The one tool call a command stands for, or a reason it cannot be run. */
function stepFor(name: string, args: string[], rest: string): Step | string | undefined {
  switch (name) {
    case 'grep':
      return rest ? { tool: 'grep_file', params: { pattern: rest, limit: 20 }, label: `pattern \`${rest}\`` } : 'Usage: `/grep <pattern>`';
    case 'read': {
      if (!args[0]) return 'Usage: `/read <path> [from] [to]`';
      const [from, to] = [Number(args[1]), Number(args[2])];
      const params: Json = { relativePath: args[0] };
      if (Number.isInteger(from) && from > 0) params.start_line = from;
      if (Number.isInteger(to) && to > 0) params.end_line = to;
      return { tool: 'read_file', params, label: `\`${args[0]}\`` };
    }
    case 'class':
      return args[0] ? { tool: 'read_class', params: { className: args[0], mode: 'structure' }, label: `\`${args[0]}\`` } : 'Usage: `/class <Name>`';
    case 'calls':
      return args[0] ? { tool: 'call_chain', params: { method: args[0], direction: 'both', depth: 1 }, label: `\`${args[0]}\`` } : 'Usage: `/calls <Class.method>`';
    default:
      return undefined;
  }
}

export function createScriptedAgent(opts: ScriptedAgentOptions = {}): ChatHandler {
  const delay = opts.stepDelayMs ?? 150;
  const approvalTimeoutMs = opts.approvalTimeoutMs ?? 5 * 60_000;

  return async (request, ctx) => {
    const say = new Speaker(request, ctx, delay);
    const command = parseCommand(request.message);
    await say.thinking('understanding the request', 5, 1, `Reading: ${request.message.slice(0, 200)}`);
    if (ctx.signal.aborted) return;
    if (!command || command.name === 'help') {
      const echo = command ? '' : `You wrote:\n\n> ${request.message.split('\n').join('\n> ')}\n\n`;
      const attached = request.context?.length ? `You attached ${request.context.map((c) => `\`${c.path}:${c.startLine}-${c.endLine}\``).join(', ')}.\n\n` : '';
      return say.answer(`${attached}${echo}${HELP}`);
    }
    if (command.name === 'error') {
      const code = (command.args[0] ?? 'ANALYSIS_FAILED').toUpperCase();
      return say.error(code, `Demo error from the dev backend: ${code}.`);
    }
    if (command.name === 'echo') return say.answer(command.rest);
    if (command.name === 'stream') return say.stream(STREAMED, Math.min(200, Math.max(2, Number(command.args[0]) || 40)));
    if (command.name === 'edit') return edit(command.args[0], say, ctx, approvalTimeoutMs);
    const step = stepFor(command.name, command.args, command.rest);
    if (step === undefined) return say.answer(`I do not know \`/${command.name}\`.\n\n${HELP}`);
    if (typeof step === 'string') return say.answer(step);
    await say.thinking(`calling ${step.tool}`, 30, 1, `Asking the IDE to run ${step.tool}.`);
    const result = await ctx.callTool(step.tool, step.params);
    if (ctx.signal.aborted) return;
    await say.thinking('summarizing', 90, 2, `${step.tool} answered; writing the summary.`);
    if (ctx.signal.aborted) return;
    return say.answer(summarizeTool(step, result));
  };
}

/** /edit: read the file, then propose appending a comment after its unique last line(s). */
async function edit(path: string | undefined, say: Speaker, ctx: ChatContext, timeoutMs: number): Promise<void> {
  if (!path) return say.answer('Usage: `/edit <path>`');
  const read: Step = { tool: 'read_file', params: { relativePath: path }, label: `\`${path}\`` };
  await say.thinking('reading the file', 20, 1, `Reading ${path} to find where to add a line.`);
  const readResult = await ctx.callTool(read.tool, read.params);
  if (ctx.signal.aborted) return;
  const content = fileText(readResult);
  if (content === undefined) return say.answer(summarizeTool(read, readResult));
  const anchor = uniqueTail(content);
  if (!anchor) return say.answer(`\`${path}\` is empty or has no unique last lines, so I cannot anchor an edit in it.`);
  const change: Step = {
    tool: 'apply_change',
    params: {
      relativePath: path,
      searchContent: anchor,
      replaceContent: `${anchor}\n${commentLine(path, 'Reviewed with the Agent Bridge dev backend.')}`,
      description: 'Append a review note at the end of the file',
    },
    label: `\`${path}\``,
  };
  await say.thinking('proposing a change', 60, 2, 'Waiting for your approval of the change.');
  const changeResult = await ctx.callTool(change.tool, change.params, { timeoutMs });
  if (ctx.signal.aborted) return;
  await say.thinking('summarizing', 95, 3, 'apply_change answered; writing the summary.');
  return say.answer(`${summarizeTool(read, readResult).split('\n\n')[0]}\n\nRead ${content.split('\n').length} lines.\n\n${summarizeTool(change, changeResult)}`);
}

/** Sends THINKING and the final answer in the shape the request's protocol version expects. */
class Speaker {
  constructor(
    private readonly request: ChatRequest,
    private readonly ctx: ChatContext,
    private readonly delayMs: number,
  ) {}

  private get requestId(): Json {
    return this.request.requestId ? { requestId: this.request.requestId } : {};
  }

  async thinking(stage: string, percent: number, round: number, thinking: string): Promise<void> {
    this.ctx.send({ type: 'THINKING', data: { ...this.requestId, stage, percent, round, thinking } });
    if (this.delayMs > 0) await sleep(this.delayMs);
  }

  async answer(markdown: string): Promise<void> {
    if (this.ctx.signal.aborted) return;
    if (this.request.protocol === 'v1') {
      this.ctx.send({ type: 'COMPLETE', data: { ...this.requestId, result: markdown, process: 'dev backend scripted agent' } });
      return;
    }
    // Two chunks, as a streaming backend would send them: the UI must join them into one answer.
    const cut = markdown.indexOf('\n\n');
    const [first, second] = cut > 0 ? [markdown.slice(0, cut), markdown.slice(cut)] : [markdown, ''];
    this.ctx.send({ type: 'AGENT_RESPONSE', data: { sessionId: this.request.sessionId, content: first, done: false } });
    if (this.delayMs > 0) await sleep(this.delayMs);
    if (this.ctx.signal.aborted) return;
    this.ctx.send({ type: 'AGENT_RESPONSE', data: { sessionId: this.request.sessionId, content: second, done: true } });
  }

  /** The answer in `chunks` delta pieces (v2; v1 has one COMPLETE), a short pause between them. */
  async stream(markdown: string, chunks: number): Promise<void> {
    if (this.request.protocol === 'v1') return this.answer(markdown);
    const size = Math.ceil(markdown.length / chunks);
    const pause = Math.max(20, Math.round(this.delayMs / 5));
    for (let at = 0; at < markdown.length; at += size) {
      if (this.ctx.signal.aborted) return;
      const done = at + size >= markdown.length;
      this.ctx.send({ type: 'AGENT_RESPONSE', data: { sessionId: this.request.sessionId, content: markdown.slice(at, at + size), done } });
      if (!done && this.delayMs > 0) await sleep(pause);
    }
  }

  error(code: string, message: string): void {
    this.ctx.send({ type: 'ERROR', data: { ...this.requestId, code, message } });
  }
}

/** The default chat handler of `npm run dev-backend`. */
export const scriptedAgent: ChatHandler = createScriptedAgent();
