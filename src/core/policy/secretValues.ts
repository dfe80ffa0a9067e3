/**
 * What the secret files hold as values, so that no text a language service wrote can carry one out.
 *
 * A diagnostic quotes what it types: `Type '"sk-live-…"' is not assignable to type '1'` in a normal
 * file that imports a secret one. The value reaches that message through any chain the type checker
 * follows (imports, `require`, `export *` through a normal module, globals, `typeof import(…)`,
 * inferred literal types), so no rule over a file's imports is sound. The message itself is
 * checked instead: every run of it that a secret file holds as a value is cut out, whatever
 * language service wrote it. When the secret files cannot all be read within the bounds here,
 * every quoted literal and long number of every message is cut out instead (fail closed).
 */
import * as fs from 'node:fs';
import type { SecretGuard } from '../workspace/globSet';
import { readHead, readRegularFile } from './safeRead';
import type { SecretFileList } from './secretFiles';

/** A value shorter than this is not looked for (a one- to three-character value is no secret). */
const MIN_VALUE = 4;
/** Values at least this long are matched by their runs of this many characters, so a cut-off quote is caught too. */
const GRAM = 8;
/** Bounds of the secret files read for values: bytes of one file, of all files, characters of all values. */
const MAX_SECRET_FILE_BYTES = 1024 * 1024;
const MAX_SECRET_BYTES = 16 * 1024 * 1024;
const MAX_VALUE_CHARS = 256 * 1024;
/** A file changed this recently is read again each time (a coarse clock may not show a second change). */
const RACY_MS = 2_000;
/** Only this much of one message is checked and kept. */
const MAX_MESSAGE_SCAN = 16 * 1024;
/** What a cut-out value is replaced with. */
const REDACTED = '[secret]';

/** The secret values of a project, ready to be looked for in text. */
export interface SecretValues {
  /** False when a bound was hit: then every quoted literal is cut out. */
  readonly complete: boolean;
  /** A secret file is one a type checker computes on (TypeScript, JavaScript): see `withholdsMessage`. */
  readonly computedOn?: boolean;
  /** Every GRAM-long run of every long value. */
  readonly grams: ReadonlySet<string>;
  /** The values shorter than GRAM, whole. */
  readonly short: ReadonlySet<string>;
}

const FAIL_CLOSED: SecretValues = { complete: false, grams: new Set(), short: new Set() };
const COMPUTED: SecretValues = { ...FAIL_CLOSED, computedOn: true };

/**
 * Secret files a type checker computes on: TypeScript's types can rebuild a value character by
 * character (`Sp<typeof KEY>` printing `"s_k_-_…"`), upper-case it, print it in another base or as
 * a bare property name (`{ sk_live_…: 1 }`), so no matching of its values can be trusted: while
 * such a file exists, messages about files that can import it are withheld (`withholdsMessage`).
 */
const COMPUTED_ON = /\.(?:[cm]?[jt]sx?)$/i;
/** Files whose checkers (TypeScript, typed lint rules, the frameworks' TS plugins) can print a value computed from a TS/JS file. */
const IMPORTS_COMPUTED = /\.(?:[cm]?[jt]sx?|vue|svelte|astro|mdx|html?)$/i;

/** Whether a diagnostic's whole message must be withheld: a secret file is computed on, and the diagnostic's file can import it. */
export function withholdsMessage(file: string, values: SecretValues): boolean {
  return values.computedOn === true && IMPORTS_COMPUTED.test(file);
}

/** One secret file's values as last read, with what its stat said then. */
interface FileValues {
  readonly stamp: string;
  readonly bytes: number;
  /** Over MAX_SECRET_FILE_BYTES of text: its values cannot be looked for. */
  /** Its values could not all be read (too large, or refused): every quoted literal is cut instead. */
  readonly unread: boolean;
  readonly values: readonly string[];
}

/** One project's secret values: its AccessPolicy keeps one (AccessPolicy.secretValues), so what was read lives as long as the workspace. */
export class ProjectSecretValues {
  /** Each secret file's values, as last read. */
  private readonly files = new Map<string, FileValues>();
  /** The values of them all as last put together, and the files' stamps they were put together from. */
  private built: { readonly stamps: string; readonly values: SecretValues } | undefined;

  constructor(private readonly fileList: SecretFileList) {}

  /**
   * The project's secret values as they are now: the secret files are listed again (secretFiles.ts)
   * and each is read again when its stat changed; fail closed on any error or bound.
   */
  async current(guard: SecretGuard): Promise<SecretValues> {
    try {
      return await this.collect(guard);
    } catch {
      return FAIL_CLOSED;
    }
  }

  private async collect(guard: SecretGuard): Promise<SecretValues> {
    const files = await this.fileList.list(guard);
    if (!files) return FAIL_CLOSED;
    const now = new Map<string, FileValues>();
    let bytes = 0;
    for (const abs of files) {
      if (COMPUTED_ON.test(abs)) return COMPUTED;
      const read = await valuesOf(abs, this.files.get(abs));
      if (!read) continue;
      now.set(abs, read);
      bytes += read.bytes;
      if (read.unread || bytes > MAX_SECRET_BYTES) return FAIL_CLOSED;
    }
    this.files.clear();
    for (const [abs, read] of now) this.files.set(abs, read);
    const stamps = [...now].map(([abs, read]) => `${abs}\u0000${read.stamp}`).join('\u0000');
    if (this.built?.stamps === stamps) return this.built.values;
    const values = gather(now.values());
    this.built = { stamps, values };
    return values;
  }
}

/** Every value of every file, as GRAM-long runs and short values; fail closed past MAX_VALUE_CHARS. */
function gather(files: Iterable<FileValues>): SecretValues {
  const grams = new Set<string>();
  const short = new Set<string>();
  let chars = 0;
  for (const { values } of files) {
    for (const v of values) {
      chars += v.length;
      if (chars > MAX_VALUE_CHARS) return FAIL_CLOSED;
      if (v.length < GRAM) short.add(v);
      else for (let i = 0; i + GRAM <= v.length; i++) grams.add(v.slice(i, i + GRAM));
    }
  }
  return { complete: true, grams, short };
}

/** A secret file's values: as read last time when its stat is the same (and not just changed), else read now; undefined when it is gone, not a file, or binary. */
async function valuesOf(abs: string, last: FileValues | undefined): Promise<FileValues | undefined> {
  let st: fs.Stats;
  try {
    st = await fs.promises.stat(abs);
  } catch {
    return undefined;
  }
  if (!st.isFile()) return undefined;
  const stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  if (last?.stamp === stamp && Date.now() - st.mtimeMs > RACY_MS) return last;
  const read = await secretText(abs);
  if (read.kind === 'skipped') return undefined;
  if (read.kind === 'unread') return { stamp, bytes: st.size, unread: true, values: [] };
  return { stamp, bytes: read.text.length, unread: false, values: [...valuesIn(read.text)] };
}

type SecretRead = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'skipped' } | { readonly kind: 'unread' };

/** A secret file's text (a link's target, wherever it is: a language service follows it too); skipped when gone, not a file, or binary; unread when its values cannot be known. */
async function secretText(abs: string): Promise<SecretRead> {
  let real: string;
  try {
    real = await fs.promises.realpath(abs);
  } catch {
    return { kind: 'skipped' };
  }
  let bytes: Buffer;
  // Read only to cut its values out of messages: a secret with other names (hard links) is read
  // all the same; refusing it, as reads for an answer do, would let its values through.
  const anyNames = (): boolean => true;
  try {
    bytes = await readRegularFile(real, MAX_SECRET_FILE_BYTES, anyNames);
  } catch (e) {
    const code = (e as { code?: string }).code;
    // Gone or not a file: nothing a language service could read either.
    if (code === 'ENOENT' || code === 'ENOTREG') return { kind: 'skipped' };
    // Too large, or refused for another reason (permissions, swapped while read): its values are unknown.
    if (code !== 'EFBIG') return { kind: 'unread' };
    const head = await readHead(real, 8192, anyNames);
    return head && !head.includes(0) ? { kind: 'unread' } : { kind: 'skipped' };
  }
  return bytes.includes(0) ? { kind: 'skipped' } : { kind: 'text', text: bytes.toString('utf8') };
}

/**
 * The values a text holds, in any language: every quoted string (as written, with its escapes
 * read, and escaped again as a checker prints it), the value of every `key = value` / `key: value` line (dotenv, YAML, properties, object
 * literals), and every number of MIN_VALUE digits or more (a literal type prints it).
 */
function valuesIn(text: string): Set<string> {
  const out = new Set<string>();
  const add = (v: string): void => {
    const s = v.trim();
    if (s.length < MIN_VALUE || NEVER_SECRET.has(s)) return;
    out.add(s);
    // As a checker prints it back: quotes, backslashes and control characters escaped.
    const printed = JSON.stringify(s).slice(1, -1);
    if (printed !== s) out.add(printed);
  };
  for (const m of text.matchAll(/"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`/gs)) {
    const raw = m[1] ?? m[2] ?? m[3] ?? '';
    add(raw);
    if (raw.includes('\\')) add(unescape(raw));
  }
  for (const m of text.matchAll(/^[ \t]*(?:export[ \t]+)?[\w.$-]+[ \t]*[=:][ \t]*(.+)$/gm)) {
    add(m[1].replace(/[ \t]*[;,]?[ \t]*$/, '').replace(/^(["'`])(.*)\1$/, '$2'));
  }
  for (const m of text.matchAll(/\d{4,}/g)) add(m[0]);
  return out;
}

/** Words a `key: value` line often holds that are no one's secret (types, literals): cutting them would blind ordinary messages. */
const NEVER_SECRET: ReadonlySet<string> = new Set(['true', 'false', 'null', 'undefined', 'string', 'number', 'boolean', 'object', 'bigint', 'symbol', 'unknown', 'never', 'void']);

const SHORT_VALUE_PLACES: readonly RegExp[] = [/"([^"\n]*)"/g, /'([^'\n]*)'/g, /`([^`\n]*)`/g, /[^\s"'`,;()[\]{}<>|&=]+/g];

function unescape(raw: string): string {
  return raw.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/gs, (_, e: string) => {
    if (e.startsWith('u{')) return String.fromCodePoint(Math.min(parseInt(e.slice(2, -1), 16), 0x10ffff));
    if (e.length > 1) return String.fromCharCode(parseInt(e.slice(1), 16));
    return ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', 0: '\0' } as Record<string, string>)[e] ?? e;
  });
}

/**
 * The message with every run a secret file holds as a value replaced by REDACTED, checked over at
 * most MAX_MESSAGE_SCAN characters (the rest is dropped). Without the full list of values
 * (`complete` false), every double-quoted or backquoted literal and every number of MIN_VALUE digits
 * or more is replaced instead: that is how TypeScript, Go, Rust and Pyright print a value.
 */
export function redactSecretValues(message: string, values: SecretValues): string {
  const text = message.length > MAX_MESSAGE_SCAN ? message.slice(0, MAX_MESSAGE_SCAN) : message;
  if (!values.complete) {
    return text.replace(/"[^"\n]*"|`[^`\n]*`/g, (q) => `${q[0]}${REDACTED}${q[0]}`).replace(/\d{4,}/g, REDACTED);
  }
  const hidden = new Uint8Array(text.length);
  for (let i = 0; i + GRAM <= text.length; i++) {
    if (values.grams.has(text.slice(i, i + GRAM))) hidden.fill(1, i, i + GRAM);
  }
  if (values.short.size) {
    // A short value is looked for as a whole quoted literal or a whole word, not inside other words;
    // each kind of quote on its own, since TypeScript nests them ('"abc"').
    for (const pattern of SHORT_VALUE_PLACES) {
      for (const m of text.matchAll(pattern)) {
        const found = m[1] ?? m[0];
        const start = (m.index ?? 0) + (m[1] === undefined ? 0 : 1);
        if (values.short.has(found.trim())) hidden.fill(1, start, start + found.length);
      }
    }
  }
  if (!hidden.includes(1)) return text;
  let out = '';
  for (let i = 0; i < text.length; ) {
    if (!hidden[i]) {
      out += text[i++];
      continue;
    }
    while (i < text.length && hidden[i]) i++;
    out += REDACTED;
  }
  return out;
}
