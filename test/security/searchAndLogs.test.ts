/**
 * The hostile-agent suite, part three: a search that would eat the host's memory, and call ids
 * that would forge the host's log. A real dev backend on loopback and the headless host in this
 * process, so the host's memory is this process's memory.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { lineLogger, type Logger } from '../../src/core/log';
import { silentLogger } from '../support/silentLogger';
import { startDevBackend, type DevBackend } from '../../src/devBackend/server';
import { startHeadlessHost, type HeadlessHost } from '../../src/node/headless';
import { findOnPath } from '../../src/node/nodeWorkspace';

/** Growth of the host's resident memory a search may cause, over its baseline. */
const MEMORY_BOUND = 200 * 1024 * 1024;

function tmp(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function link(workspace: string, o: { ripgrep?: false; log?: Logger } = {}): Promise<{ backend: DevBackend; host: HeadlessHost; close(): Promise<void> }> {
  const backend = await startDevBackend({ port: 0 });
  const host = startHeadlessHost({ serverUrl: backend.wsUrl(), workspace, log: o.log ?? silentLogger, stateDir: false, limits: { timeoutMs: 60_000 }, ...(o.ripgrep === false ? { ripgrep: false } : {}) });
  await backend.waitForSession(undefined, 5000);
  return {
    backend,
    host,
    async close() {
      host.stop();
      await backend.close();
    },
  };
}

/** Runs `work` while sampling the resident memory; returns its result and the peak growth over the baseline. */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ value: T; grown: number }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, grown: peak - base };
  } finally {
    clearInterval(sample);
  }
}

const MB = (n: number): string => `${Math.round(n / (1024 * 1024))} MB`;

test('grep_file and text_search on a one-line minified file with `.`: ripgrep output is read in bounded memory, the line says it was cut', async () => {
  assert.ok(findOnPath('rg'), 'ripgrep (rg) must be on PATH for this test');
  const root = tmp('ab-longline-');
  // One 3 MB line: ripgrep's --json writes it as one message of about 160 MB (a submatch per character).
  fs.mkdirSync(path.join(root, 'dist'));
  fs.writeFileSync(path.join(root, 'dist/app.min.js'), `${'var a=1;function f(){return a}'.repeat(100_000)}\n`);
  const l = await link(root);
  try {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['grep_file', { pattern: '.', regex: true, relativePath: 'dist/app.min.js' }],
      ['text_search', { pattern: '.', regex: true }],
    ];
    for (const [tool, params] of calls) {
      const { value: data, grown } = await peakGrowth(() => l.backend.callTool(tool, params, { timeoutMs: 60_000 }).then((m) => m.data as Record<string, unknown>));
      assert.equal(data.success, true, `${tool}: ${String(data.error)}`);
      const text = String(data.result);
      assert.ok(grown < MEMORY_BOUND, `${tool}: the host grew by ${MB(grown)}`);
      assert.ok(text.length < 10_000, `${tool}: an answer of ${text.length} characters`);
      assert.match(text, /\*\*Matches\*\*: 1 line in 1 file/);
      assert.match(text, /^1: var a=1;function f\(\)\{return a\}.*… \[cut\]$/m);
      assert.match(text, /lines marked \[cut\] are over 256 KB: only their first 256 KB were read/);
      const structured = data.structured as { files: Array<{ matches: Array<{ cut?: boolean; column: number }> }> };
      assert.deepEqual(structured.files[0]?.matches.map((m) => [m.cut, m.column]), [[true, 1]]);
    }
  } finally {
    await l.close();
  }
});

test('the in-process search streams a 160 MB file in bounded chunks and searches only the start of an over-long line', async () => {
  const root = tmp('ab-bigfile-');
  // An ordinary line, then one line of 160 MB (the needle sits past its first 256 KB, so it is not searched).
  const fd = fs.openSync(path.join(root, 'huge.log'), 'w');
  fs.writeSync(fd, 'first line with a needle\n');
  const block = Buffer.alloc(16 * 1024 * 1024, 'abcdefgh');
  for (let i = 0; i < 10; i++) fs.writeSync(fd, block);
  fs.writeSync(fd, ' needle at the end\n');
  fs.closeSync(fd);
  const l = await link(root, { ripgrep: false });
  try {
    const { value: data, grown } = await peakGrowth(() =>
      l.backend.callTool('grep_file', { pattern: 'needle', relativePath: 'huge.log' }, { timeoutMs: 60_000 }).then((m) => m.data as Record<string, unknown>),
    );
    assert.equal(data.success, true, String(data.error));
    assert.ok(grown < MEMORY_BOUND, `the host grew by ${MB(grown)}`);
    const text = String(data.result);
    assert.match(text, /\*\*Matches\*\*: 1 line in 1 file/);
    assert.match(text, /^1: first line with a needle$/m);
    assert.match(text, /1 line over 256 KB was searched only in its first 256 KB/);

    const dot = await peakGrowth(() => l.backend.callTool('grep_file', { pattern: '.', regex: true, relativePath: 'huge.log' }, { timeoutMs: 60_000 }).then((m) => m.data as Record<string, unknown>));
    assert.equal(dot.value.success, true, String(dot.value.error));
    assert.ok(dot.grown < MEMORY_BOUND, `with \`.\` the host grew by ${MB(dot.grown)}`);
    assert.match(String(dot.value.result), /^2: abcdefgh.*… \[cut\]$/m);
  } finally {
    await l.close();
  }
});

test('a call id, trace id or tool name with line breaks, ANSI escapes or U+2028 writes exactly one log line per message, escaped', async () => {
  const root = tmp('ab-loginject-');
  fs.writeFileSync(path.join(root, 'a.txt'), 'hello\n');
  // As the headless host writes its log: each message a line on stderr.
  let stderr = '';
  const l = await link(root, { log: lineLogger((line) => (stderr += `${line}\n`), true) });
  const forged = '2026-01-01T00:00:00.000Z [info] read_file ok succeeded in 1 ms';
  try {
    const session = l.backend.sessions()[0];
    assert.ok(session);
    const calls = [
      { type: 'TOOL_CALL', toolCallId: `id1\n${forged}`, toolName: 'read_file', params: { relativePath: 'a.txt' } },
      { type: 'TOOL_CALL', toolCallId: 'id2', traceId: `t\r\n${forged}\u2028x\u001b[2J`, toolName: 'read_file', params: { relativePath: 'a.txt' } },
      { type: 'TOOL_CALL', toolCallId: 'id3', toolName: `nope\n${forged}\u0085`, params: {} },
    ];
    const answered = new Promise<void>((resolve) => {
      let n = 0;
      l.backend.onMessage((e) => {
        if (e.text.includes('TOOL_RESULT') && ++n === calls.length) resolve();
      });
    });
    for (const c of calls) l.backend.sendRaw(session, JSON.stringify(c));
    await answered;
    const lines = stderr.split('\n').filter(Boolean);
    const stamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[(info|warn|error|debug)\] /;
    for (const line of lines) {
      assert.match(line, stamp, `a line the logger did not write: ${JSON.stringify(line)}`);
      const control = [...line].find((c) => { const n = c.charCodeAt(0); return n < 0x20 || (n >= 0x7f && n <= 0x9f) || n === 0x2028 || n === 0x2029; });
      assert.equal(control, undefined, `a control character in ${JSON.stringify(line)}`);
    }
    assert.ok(!lines.some((line) => line.startsWith(forged)), 'a forged line');
    // Each message is on one line, its breaks written as escapes.
    assert.equal(lines.filter((line) => line.includes('read_file id1\\n2026-01-01T00:00:00.000Z [info] read_file ok') && line.endsWith(' started')).length, 1);
    assert.equal(lines.filter((line) => line.includes('trace=t\\r\\n2026-01-01') && line.includes('\\u2028x\\u001b[2J started')).length, 1);
    assert.equal(lines.filter((line) => line.includes(`nope\\n${forged}\\u0085 id3 failed: TOOL_NOT_FOUND`)).length, 1);
  } finally {
    await l.close();
  }
});
