import * as path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_PARSED_BYTES } from '../index/recordStore';
import { readProjectText } from '../../policy/projectText';
import { accessPolicy } from '../../policy/accessPolicy';
import { ToolError } from '../../protocol/errors';
import { runRipgrepText } from '../../search/ripgrep';
import type { Workspace } from '../../workspace/workspace';
import type { TypeEntry } from '../index/codeIndex';
import { languageForPath, LANGUAGES } from '../languages/registry';
import { IndexedPathRule, listSourceFiles } from '../languages/sourceFiles';
import type { FileSymbols, LanguageId } from '../model';
import { packedDeclarations } from '../packedSymbols';
import { NotParsedHere, packedAlone } from './coldParse';
import { codeStateOf } from './state';

/**
 * Before the workspace index is built (or loaded from its cache), read_class need not wait for
 * the whole project: the few files that can declare the class are found and parsed alone.
 *
 *  - A file given as relativePath, or a fully qualified name (`a.b.C` lives in `a/b/C.java`),
 *    names the file directly.
 *  - A simple or partly qualified name (`ArrayList`, `Map.Entry`): ripgrep lists the files whose
 *    text declares it (`class ArrayList`, `interface Entry`, …), and those are parsed. The answer
 *    is what the index would give: every type of that name, several when the name is ambiguous.
 *
 * Undefined means "ask the index": no ripgrep, a language whose declarations the search cannot
 * see whole (Go declares types in `type ( … )` groups; TypeScript and Python modules are named
 * after files), or nothing found (the index then explains, with similar names).
 */
export function quickTypes(ws: Workspace, className: string, relativePath?: string, signal?: AbortSignal): Promise<TypeEntry[] | undefined> {
  return codeStateOf(ws).foreground.run(() =>
    lookUp(ws, className, relativePath, signal).catch((e: unknown) => {
      // a file it needs could not be parsed here within the host's bounds: the index answers
      if (e instanceof NotParsedHere) return undefined;
      throw e;
    }),
  );
}

async function lookUp(ws: Workspace, className: string, relativePath?: string, signal?: AbortSignal): Promise<TypeEntry[] | undefined> {
  const name = className.trim().replace(/<.*$/s, '').replace(/\$/g, '.').replace(/\.(java|kt)$/, '');
  const parts = name.split('.');
  const simple = parts[parts.length - 1] ?? '';
  if (relativePath) {
    if (!languageForPath(relativePath)) return undefined; // a folder: the index narrows to it
    const file = await parse(ws, relativePath, signal);
    const type = file && (file.types.find((t) => t.fqn === name) ?? file.types.find((t) => t.name === simple));
    return file && type ? [{ path: normal(relativePath), file, type }] : undefined;
  }
  if (parts.length >= 2) {
    // a.b.C or a.b.C.Inner: the file is a.b/C.java or a/b/C.java — try each split from the end.
    const wanted = new Set<string>();
    for (let i = parts.length; i >= 2; i--) for (const ext of ['java', 'kt']) wanted.add(`${parts.slice(0, i).join('/')}.${ext}`);
    const named = filesNamed(await listSourceFiles(ws.root), wanted);
    if (named.length > QUICK_LOOKUP_LIMITS.maxDeclaringFiles) return undefined;
    const hits = await typesIn(ws, named, (t) => t.fqn === name, signal);
    if (hits.length === 1) return hits;
  }
  const files = await filesDeclaring(ws, simple, signal);
  if (!files?.length) return undefined;
  const hits = await typesIn(ws, files, (t) => t.name === simple && (parts.length === 1 || t.fqn === name || t.fqn.endsWith(`.${name}`)), signal);
  return hits.length ? hits : undefined;
}

/**
 * The files whose path is one of `wanted` or ends with `/` and one of them. Only files with one of
 * their names are compared whole: a project of 200,000 files against a name of 64 parts took a second.
 */
function filesNamed(all: readonly string[], wanted: ReadonlySet<string>): string[] {
  const baseName = (rel: string): string => rel.slice(rel.lastIndexOf('/') + 1);
  const names = new Set([...wanted].map(baseName));
  const out: string[] = [];
  for (const rel of all) {
    if (!names.has(baseName(rel))) continue;
    for (const w of wanted) {
      if (rel === w || rel.endsWith(`/${w}`)) {
        out.push(rel);
        break;
      }
    }
  }
  return out;
}

/** Languages whose every type declaration reads `<keyword> <Name>` on one line. */
const SEARCHABLE: ReadonlySet<LanguageId> = new Set(['java', 'kotlin', 'csharp']);
const DECLARATION_KEYWORDS = '(?:class|interface|enum|record|struct|object)';

/**
 * How long the search for declaring files may take: near the tool's own deadline (and bounded by
 * its signal), not a few seconds, since a cold disk or a build reading the same files slows
 * ripgrep a lot, and the index it would otherwise wait for takes far longer.
 */
const DECLARING_SEARCH_MS = 20_000;

/**
 * The bounds of a cold lookup (tests lower them): past `maxDeclaringFiles` files whose text declares
 * the name, the index answers (each would be judged, read and parsed here).
 */
export const QUICK_LOOKUP_LIMITS = { maxDeclaringFiles: 1000 };
/** How long the files a search found are judged before the event loop gets a turn. */
const TURN_MS = 20;

/**
 * Project-relative paths of the indexed files whose text declares a type named `simple`, found by
 * ripgrep with the index's own file rules (`rule`: one per question, so each folder is read once);
 * undefined when ripgrep cannot be used or finds more than a cold answer looks at (the index answers).
 */
export async function filesDeclaring(ws: Workspace, simple: string, signal?: AbortSignal, rule = new IndexedPathRule(ws.root, signal)): Promise<string[] | undefined> {
  const rg = ws.ripgrepPath();
  if (!rg) return undefined;
  // not a name a searched language can declare a type by
  if (!/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(simple)) return [];
  const globs = LANGUAGES.filter((l) => SEARCHABLE.has(l.id)).flatMap((l) => l.extensions.flatMap((e) => ['--iglob', `*${e}`]));
  const args = [
    '--files-with-matches', '--no-config', '--no-messages', '--null',
    // the index reads ignored files too (its own folder rules apply below), and skips hidden folders
    '--no-ignore', '-g', '!node_modules/', ...globs,
    '-e', `\\b${DECLARATION_KEYWORDS}\\s+${simple.replace(/\$/g, '\\$')}\\b`, '--', '.',
  ];
  // Bounded in time and bytes like every search; undefined (an error, too slow, too much): the index answers.
  const out = await runRipgrepText(rg, args, { cwd: ws.root, timeoutMs: DECLARING_SEARCH_MS, maxBytes: 4 * 1024 * 1024, ...(signal ? { signal } : {}) });
  if (out === undefined) return undefined;
  const found = out.split('\0').filter(Boolean);
  // More files than a cold answer parses: the index answers, as it does past its other bounds.
  if (found.length > QUICK_LOOKUP_LIMITS.maxDeclaringFiles) return undefined;
  const policy = accessPolicy(ws);
  const kept: string[] = [];
  let turnStarted = Date.now();
  for (const p of found) {
    if (signal?.aborted) throw new ToolError('CANCELLED', 'Cancelled while looking for the files that declare the class.');
    const rel = normal(p).replace(/^\.\//, '');
    if ((await rule.includes(rel)) && !policy.hides(rel)) kept.push(rel);
    // a cached folder answers without a turn of the event loop: give one back now and then
    if (Date.now() - turnStarted > TURN_MS) {
      await nextTurn();
      turnStarted = Date.now();
    }
  }
  return kept.sort();
}

async function typesIn(ws: Workspace, files: readonly string[], want: (t: TypeEntry['type']) => boolean, signal: AbortSignal | undefined): Promise<TypeEntry[]> {
  const hits: TypeEntry[] = [];
  for (const rel of files) {
    const file = await parse(ws, rel, signal);
    for (const type of file?.types ?? []) if (file && want(type)) hits.push({ path: normal(rel), file, type });
  }
  return hits;
}

/**
 * The file's declarations, parsed now (off the host's thread unless small: coldParse.ts), as the
 * index would hold them; undefined when it is gone or in no indexed language. Throws NotParsedHere, or
 * CANCELLED once `signal` aborts.
 */
async function parse(ws: Workspace, rel: string, signal: AbortSignal | undefined): Promise<FileSymbols | undefined> {
  if (!languageForPath(rel)) return undefined;
  let text: string;
  try {
    text = (await readProjectText(ws, rel)).text;
  } catch (e) {
    // Gone, or not the agent's to see (a secret file, a link out of the project): as if not there.
    if (e instanceof ToolError && (e.code === 'NOT_FOUND' || e.code === 'PERMISSION_DENIED')) return undefined;
    throw e;
  }
  // As the index leaves it out.
  if (Buffer.byteLength(text, 'utf8') > MAX_PARSED_BYTES) return undefined;
  // Declarations alone, as the index's first pass has them (read_class and read_method read no call sites).
  const packed = await packedAlone(normal(rel), text, 'outline', signal);
  return packed && packedDeclarations(packed);
}

const normal = (rel: string): string => rel.split(path.sep).join('/');
