import { JsonCompactor } from './jsonCompactor';
import { ripgrepRelative } from './ripgrepPath';
import { MAX_LINE_BYTES, shownLine, type EngineRequest, type ResultSink } from './types';

/**
 * ripgrep's `--json` output, read as it streams: split into lines (holding at most one, and not
 * even that one when its first bytes show it is not needed), then turned into per-file results
 * for the sink, with the context lines around each kept match. The spawning and the command line
 * are in ripgrep.ts.
 */

type LineKind = 'begin' | 'match' | 'context' | 'end' | 'other';

interface LineConsumer {
  /** Whether a line of this kind must be parsed; when false it is only counted (`skipped`). */
  wants(kind: LineKind): boolean;
  /** `cut`: a string in the line was shortened (in ripgrep's messages only the line's text, or a match within it, can be that long). */
  line(buf: Buffer, cut: boolean): void;
  skipped(kind: LineKind): void;
}

const HEAD = 24;

const PREFIXES: ReadonlyArray<readonly [Buffer, LineKind]> = (
  [
    ['{"type":"match"', 'match'],
    ['{"type":"context"', 'context'],
    ['{"type":"begin"', 'begin'],
    ['{"type":"end"', 'end'],
  ] as const
).map(([prefix, kind]) => [Buffer.from(prefix, 'latin1'), kind] as const);

/** The kind of a JSON line from its first bytes (rg writes `type` first in these four messages). */
function kindOf(head: Buffer): LineKind {
  for (const [prefix, kind] of PREFIXES) {
    if (head.length >= prefix.length && head.compare(prefix, 0, prefix.length, 0, prefix.length) === 0) return kind;
  }
  return 'other';
}

/** A line whose shrunk text is still over this many bytes is not kept: a path, a text and 4 submatches cut to MAX_LINE_BYTES each fit. */
const MAX_KEPT_LINE_BYTES = 8 * MAX_LINE_BYTES;
/** Submatches kept per line: only the first one's position is used. */
const MAX_SUBMATCHES = 4;

/**
 * Splits a byte stream into lines without ever holding more than one line, and without even
 * holding that one when its first bytes show it is not needed (a match beyond the limit can be a
 * multi-megabyte minified line: it is counted, not stored). A kept line that grows past
 * MAX_LINE_BYTES is shrunk as it streams in (JsonCompactor: each string to MAX_LINE_BYTES, nothing
 * after the MAX_SUBMATCHES-th submatch), so a single huge line costs a bounded number of bytes too;
 * shorter lines, nearly all of them, are kept as they come.
 */
export class JsonLineReader {
  private head: Buffer[] = [];
  private headSize = 0;
  /** A kept line while it is short: its bytes as they came. */
  private parts: Buffer[] = [];
  private size = 0;
  /** A kept line once it grew past MAX_LINE_BYTES. */
  private compactor: JsonCompactor | undefined;
  private mode: 'undecided' | 'keep' | 'skip' = 'undecided';
  private kind: LineKind = 'other';

  constructor(private readonly consumer: LineConsumer) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      if (end > start) {
        if (this.mode === 'undecided') {
          this.head.push(chunk.subarray(start, end));
          this.headSize += end - start;
          if (this.headSize >= HEAD || nl !== -1) this.decide();
        } else if (this.mode === 'keep') {
          this.feed(chunk, start, end);
        }
      }
      if (nl === -1) return;
      this.finishLine();
      start = nl + 1;
    }
  }

  end(): void {
    if (this.mode === 'undecided' && this.headSize > 0) this.decide();
    this.finishLine();
  }

  private decide(): void {
    const head = this.head.length === 1 ? (this.head[0] as Buffer) : Buffer.concat(this.head, this.headSize);
    this.head = [];
    this.headSize = 0;
    this.kind = kindOf(head.subarray(0, HEAD));
    if (this.consumer.wants(this.kind)) {
      this.mode = 'keep';
      this.feed(head, 0, head.length);
    } else {
      this.mode = 'skip';
    }
  }

  private feed(chunk: Buffer, from: number, to: number): void {
    if (this.compactor === undefined) {
      this.parts.push(chunk.subarray(from, to));
      this.size += to - from;
      if (this.size <= MAX_LINE_BYTES) return;
      this.compactor = new JsonCompactor(MAX_LINE_BYTES, MAX_SUBMATCHES);
      for (const part of this.parts) this.compactor.write(part, 0, part.length);
      this.parts = [];
      this.size = 0;
    } else {
      this.compactor.write(chunk, from, to);
    }
    const c = this.compactor;
    if (c.unusable || c.size > MAX_KEPT_LINE_BYTES) {
      this.mode = 'skip';
      this.compactor = undefined;
    }
  }

  private finishLine(): void {
    if (this.mode === 'keep' && this.compactor) {
      this.consumer.line(this.compactor.result(), this.compactor.cutString);
    } else if (this.mode === 'keep' && this.size > 0) {
      this.consumer.line(this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.size), false);
    } else if (this.mode === 'skip') {
      this.consumer.skipped(this.kind);
    }
    this.head = [];
    this.headSize = 0;
    this.parts = [];
    this.size = 0;
    this.compactor = undefined;
    this.mode = 'undecided';
    this.kind = 'other';
  }
}

// --- JSON message access (rg's --json format; checked, never trusted blindly) ----------------

type Json = Record<string, unknown>;

function asObject(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

/** `{"text": "..."}` or `{"bytes": "<base64>"}` → raw bytes or text. */
function dataText(v: unknown): { text: string; bytes?: Buffer } | undefined {
  const o = asObject(v);
  if (!o) return undefined;
  if (typeof o.text === 'string') return { text: o.text };
  if (typeof o.bytes === 'string') {
    const bytes = Buffer.from(o.bytes, 'base64');
    return { text: bytes.toString('utf8'), bytes };
  }
  return undefined;
}

/**
 * The project-relative path of rg's `path` field: shown with `/`, and, when the name is not valid
 * UTF-8 (rg sends it as `bytes`), its bytes too, for the policy to find the file that was searched.
 */
function projectPath(v: unknown): { path: string; nameBytes?: Buffer } | undefined {
  const o = asObject(v);
  if (typeof o?.text === 'string') return { path: ripgrepRelative(o.text) };
  if (typeof o?.bytes !== 'string') return undefined;
  let bytes = Buffer.from(o.bytes, 'base64');
  while (bytes.length >= 2 && bytes[0] === 0x2e && bytes[1] === 0x2f) bytes = bytes.subarray(2);
  return { path: bytes.toString('utf8'), nameBytes: bytes };
}

/**
 * Byte offset within a line → UTF-16 offset. Past the end of a cut line's text the bytes are
 * unknown and counted one unit each (exact for ASCII, the usual content of such lines).
 */
function utf16Offset(line: { text: string; bytes?: Buffer }, byteOffset: number): number {
  if (byteOffset <= 0) return 0;
  const bytes = line.bytes ?? Buffer.from(line.text, 'utf8');
  if (byteOffset > bytes.length) return utf16Offset(line, bytes.length) + (byteOffset - bytes.length);
  if (bytes.length === line.text.length) return byteOffset; // pure ASCII
  return bytes.subarray(0, byteOffset).toString('utf8').length;
}

interface PendingMatch {
  readonly line: number;
  readonly column: number;
  readonly text: string;
  readonly cut: boolean;
  readonly before: string[];
  readonly after: string[];
}

interface FileState {
  readonly path: string;
  readonly nameBytes: Buffer | undefined;
  readonly detail: boolean;
  count: number;
  readonly matches: PendingMatch[];
  /** Kept matches still collecting after-context. */
  pending: PendingMatch[];
  /** The last `contextLines` lines seen (before-context of the next match). */
  readonly recent: Array<{ line: number; text: string }>;
}

/** Turns rg's JSON messages into per-file results for the sink. */
export class RgJsonConsumer implements LineConsumer {
  sawSummary = false;
  private file: FileState | undefined;

  constructor(
    private readonly req: EngineRequest,
    private readonly sink: ResultSink,
  ) {}

  private needsLines(f: FileState): boolean {
    return f.detail && (f.matches.length < this.req.perFileLimit || f.pending.length > 0);
  }

  wants(kind: LineKind): boolean {
    const f = this.file;
    if (kind === 'match' || kind === 'context') return f === undefined || this.needsLines(f);
    return true;
  }

  skipped(kind: LineKind): void {
    if (kind === 'match' && this.file) this.file.count++;
  }

  line(buf: Buffer, cut: boolean): void {
    const msg = asObject(JSON.parse(buf.toString('utf8')));
    if (!msg) return;
    const data = asObject(msg.data);
    switch (msg.type) {
      case 'begin': {
        const p = projectPath(data?.path);
        if (!p) return;
        this.file = {
          path: p.path,
          nameBytes: p.nameBytes,
          detail: this.sink.wantDetails(p.path),
          count: 0,
          matches: [],
          pending: [],
          recent: [],
        };
        return;
      }
      case 'match':
      case 'context':
        if (data) this.onLine(data, msg.type === 'match', cut);
        return;
      case 'end': {
        const f = this.file;
        this.file = undefined;
        if (!f || !data) return;
        const binary = data.binary_offset;
        if (binary !== null && binary !== undefined) return; // a binary file: dropped entirely
        if (f.count > 0) {
          const matches = f.matches.map(({ cut: lineCut, ...m }) => (lineCut ? { ...m, cut: true as const } : m));
          this.sink.addFile({ path: f.path, ...(f.nameBytes ? { nameBytes: f.nameBytes } : {}), count: f.count, matches });
        }
        return;
      }
      case 'summary':
        this.sawSummary = true;
        return;
      default:
        return;
    }
  }

  private onLine(data: Json, isMatch: boolean, cut: boolean): void {
    const f = this.file;
    if (!f) return;
    if (isMatch) f.count++;
    const lineNo = typeof data.line_number === 'number' ? data.line_number : undefined;
    const raw = dataText(data.lines);
    if (lineNo === undefined || !raw || !f.detail) return;
    const full = raw.text.endsWith('\n') ? raw.text.slice(0, -1) : raw.text;
    const ctx = this.req.contextLines;
    // Only what will be shown is kept: a line clipped for display (a context line from its start).
    const text = shownLine(full);

    if (f.pending.length > 0) {
      for (const p of f.pending) {
        if (lineNo > p.line && lineNo <= p.line + ctx) p.after.push(text);
      }
      f.pending = f.pending.filter((p) => lineNo < p.line + ctx);
    }
    if (isMatch && f.matches.length < this.req.perFileLimit) {
      const first = Array.isArray(data.submatches) ? asObject(data.submatches[0]) : undefined;
      const start = typeof first?.start === 'number' ? first.start : 0;
      const column = utf16Offset(raw, start) + 1;
      const m: PendingMatch = {
        line: lineNo,
        column,
        text: shownLine(full, column),
        cut,
        before: f.recent.filter((r) => r.line >= lineNo - ctx && r.line < lineNo).map((r) => r.text),
        after: [],
      };
      f.matches.push(m);
      if (ctx > 0) f.pending.push(m);
    }
    if (ctx > 0) {
      f.recent.push({ line: lineNo, text });
      if (f.recent.length > ctx) f.recent.shift();
    }
  }
}
