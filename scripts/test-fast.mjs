/* global process */
// `npm run test:fast`: the inner loop. Every test/unit and test/security file that needs no JDK and
// no VS Code, three files at a time (most wait on timers or children part of the time), leaving out `*.slow.test.ts`: hostile-agent tests that take
// seconds each stay in test/security (one home for that suite) and run in `npm test` and CI.
// Extra arguments go to node --test, e.g. `npm run test:fast -- --test-name-pattern=glob`.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const files = ['unit', 'security'].flatMap((folder) =>
  fs
    .readdirSync(path.join(root, 'test', folder))
    .filter((name) => name.endsWith('.test.ts') && !name.endsWith('.slow.test.ts'))
    .sort()
    .map((name) => path.join('test', folder, name)),
);
const args = ['--import', 'tsx', '--test', '--test-concurrency=3', ...process.argv.slice(2), ...files];
const run = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
process.exitCode = run.status ?? 1;
