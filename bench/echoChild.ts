// The protocol floor for the read_file round trip: a bare `ws` client in its own process (where
// the IDE would be) that answers every TOOL_CALL with the very bytes our host sent back for it
// (a TOOL_RESULT captured from the real run, its toolCallId swapped in). No tools, no files, no
// validation: what any implementation over `ws` on this machine pays at least.
//   node --import tsx bench/echoChild.ts URL TEMPLATE_FILE
import * as fs from 'node:fs';
import WebSocket from 'ws';

const [url, templateFile] = process.argv.slice(2);
if (!url || !templateFile) {
  process.stderr.write('usage: echoChild.ts URL TEMPLATE_FILE\n');
  process.exit(2);
}
const PLACEHOLDER = '@@TOOL_CALL_ID@@';
const [head, tail] = fs.readFileSync(templateFile, 'utf8').split(PLACEHOLDER) as [string, string];
const ws = new WebSocket(url);
ws.on('open', () => process.stdout.write(`${JSON.stringify({ pid: process.pid })}\n`));
ws.on('message', (data: Buffer) => {
  const call = JSON.parse(data.toString('utf8')) as { toolCallId?: string };
  ws.send(`${head}${call.toolCallId ?? ''}${tail}`);
});
ws.on('close', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
// CPU so far, on request, as hostChild.ts reports it
process.on('SIGUSR2', () => {
  const cpu = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ cpuUserMs: cpu.user / 1000, cpuSystemMs: cpu.system / 1000 })}\n`);
});
