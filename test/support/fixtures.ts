import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after } from 'node:test';

/** A real temporary folder with the given files, removed when the test file ends. */
export function makeTree(files: Record<string, string | Uint8Array>, prefix = 'ab-test-'): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  return root;
}
