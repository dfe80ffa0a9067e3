/* global process */
// Size rules of the source, run by `npm run lint` after the import rules (.dependency-cruiser.cjs):
// no file in src/ over 400 lines (a file that long is usually two things), and the median file
// length is printed against its target (90 lines). Exits 1 on a file over the limit.
import * as fs from 'node:fs';
import * as path from 'node:path';

const MAX_LINES = 400;
const MEDIAN_TARGET = 90;

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const sizes = sourceFiles('src').map((file) => ({ file, lines: fs.readFileSync(file, 'utf8').split('\n').length - 1 }));
const over = sizes.filter((s) => s.lines > MAX_LINES).sort((a, b) => b.lines - a.lines);
const sorted = sizes.map((s) => s.lines).sort((a, b) => a - b);
const median = sorted[Math.floor((sorted.length - 1) / 2)];
for (const s of over) process.stderr.write(`layout: ${s.file} has ${s.lines} lines (limit ${MAX_LINES}): split it by what it does\n`);
process.stdout.write(`layout: ${sizes.length} files in src/, median ${median} lines (target ≤ ${MEDIAN_TARGET}), ${over.length} over ${MAX_LINES}\n`);
process.exitCode = over.length ? 1 : 0;
