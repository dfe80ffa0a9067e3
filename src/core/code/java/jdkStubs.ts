import type { TypeEntry } from '../entries';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeStub } from './jdkSignatures';

/**
 * The JDK's most used classes as declarations without bodies ("stubs"), built from the signature
 * table `jdk-signatures.txt` (generated from javap by scripts/gen-jdk-signatures.mjs; beside this
 * file in the sources, copied beside the bundles into dist/ by esbuild.mjs). The Java
 * resolver falls back to them for a type the project does not declare, so a receiver of a JDK type
 * has its methods' return types and its supertypes even when the JDK's sources are not in the
 * project. A stub is never a call target: calls into it are reported as calls leaving the project.
 */

/** The `path` of every stub's TypeEntry: not a file. */
const JDK_STUB_PATH = '<jdk>';

export const isJdkStub = (e: TypeEntry): boolean => e.path === JDK_STUB_PATH;

let blocks: Map<string, readonly string[]> | undefined;
const built = new Map<string, TypeEntry | undefined>();

const JDK_SIGNATURES_FILE = 'jdk-signatures.txt';

/** The table's text, or '' when it cannot be read (then no stubs: JDK calls resolve as before). */
function readTable(): string {
  try {
    return fs.readFileSync(path.join(__dirname, JDK_SIGNATURES_FILE), 'utf8');
  } catch {
    return '';
  }
}

function table(): Map<string, readonly string[]> {
  if (blocks) return blocks;
  const raw = readTable();
  const head = raw.slice(0, raw.indexOf('\n'));
  // First line: `a=java.lang b=java.util …`, the packages `~a.` and so on abbreviate.
  const prefixes = new Map(head.split(' ').map((kv) => kv.split('=') as [string, string]));
  const text = raw.slice(head.length + 1).replace(/~([a-z])\./g, (_, c: string) => `${prefixes.get(c) ?? c}.`);
  blocks = new Map();
  let cur: string[] | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('=')) blocks.set(line.slice(1, line.indexOf('|')), (cur = [line]));
    else if (line && cur) cur.push(line);
  }
  return blocks;
}

/** The stub of a JDK class in the table (`java.util.Map.Entry`), or undefined. */
export function jdkStub(fqn: string): TypeEntry | undefined {
  if (built.has(fqn)) return built.get(fqn);
  const lines = table().get(fqn);
  const entry = lines ? { path: JDK_STUB_PATH, ...decodeStub(fqn, lines) } : undefined;
  built.set(fqn, entry);
  return entry;
}
