/** Decoding of file bytes as editors do: BOM-aware, UTF-8 by default, binary detected by NUL bytes. */

export type Encoding = 'utf8' | 'utf8bom' | 'utf16le' | 'utf16be';

export interface DecodedText {
  readonly text: string;
  readonly encoding: Encoding;
}

const SNIFF_BYTES = 8000;

function detectEncoding(bytes: Uint8Array): Encoding {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf8bom';
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf16le';
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf16be';
  return 'utf8';
}

/** A file is binary when a NUL byte appears in its first 8 KB (git's and ripgrep's rule), unless it is UTF-16. */
export function isBinary(bytes: Uint8Array): boolean {
  const enc = detectEncoding(bytes);
  if (enc === 'utf16le' || enc === 'utf16be') return false;
  // memchr, not a loop in JavaScript: this runs on every file read
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, SNIFF_BYTES)).indexOf(0) !== -1;
}

export function decodeText(bytes: Uint8Array): DecodedText {
  const encoding = detectEncoding(bytes);
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (encoding) {
    case 'utf8bom':
      return { text: buf.subarray(3).toString('utf8'), encoding };
    case 'utf16le':
      return { text: buf.subarray(2).toString('utf16le'), encoding };
    case 'utf16be': {
      // An odd byte count is not UTF-16: the dangling last byte reads as U+FFFD (swap16 would
      // throw), and a write refuses the file since its text would not encode back to these bytes.
      const even = (buf.length - 2) & ~1;
      const body = Buffer.from(buf.subarray(2, 2 + even));
      body.swap16();
      return { text: body.toString('utf16le') + (buf.length - 2 > even ? '\uFFFD' : ''), encoding };
    }
    default:
      return { text: buf.toString('utf8'), encoding };
  }
}

export function encodeText(text: string, encoding: Encoding): Uint8Array {
  switch (encoding) {
    case 'utf8bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'utf16le':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    case 'utf16be': {
      const body = Buffer.from(text, 'utf16le');
      body.swap16();
      return Buffer.concat([Buffer.from([0xfe, 0xff]), body]);
    }
    default:
      return Buffer.from(text, 'utf8');
  }
}

/** Splits text into lines without their terminators; a final newline does not make an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  // Splitting on a string is several times faster than on a regular expression; most files have no CR.
  const lines = text.includes('\r') ? text.split(/\r\n|\n|\r/) : text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A Markdown code fence longer than any run of backticks inside `body`. */
export function fenceFor(body: string): string {
  if (!body.includes('```')) return '```'; // the usual case, without scanning every backtick
  let longest = 0;
  for (const m of body.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

const LANGUAGE_BY_EXT: Record<string, string> = {
  java: 'java', kt: 'kotlin', kts: 'kotlin', scala: 'scala', groovy: 'groovy', gradle: 'groovy',
  ts: 'typescript', tsx: 'tsx', js: 'javascript', jsx: 'jsx', mjs: 'javascript', cjs: 'javascript',
  py: 'python', go: 'go', rs: 'rust', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', cs: 'csharp',
  rb: 'ruby', php: 'php', swift: 'swift', sh: 'bash', bash: 'bash', sql: 'sql', json: 'json',
  yml: 'yaml', yaml: 'yaml', xml: 'xml', html: 'html', css: 'css', scss: 'scss', md: 'markdown',
  properties: 'properties', toml: 'toml', vue: 'vue', ipynb: 'json',
};

/** Markdown fence language for a file name ('' when unknown). */
export function languageOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? '' : (LANGUAGE_BY_EXT[fileName.slice(dot + 1).toLowerCase()] ?? '');
}
