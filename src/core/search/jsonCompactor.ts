/**
 * Shrinks one JSON text as it streams in, so that holding it costs a bounded number of bytes
 * however long it is: every string keeps only its first `maxStringBytes` bytes (cut at a character
 * boundary, never inside an escape, and closed again); at the first array that has more than
 * `maxArrayItems` items, the rest of the text is dropped and the open containers are closed. What
 * comes out is still valid JSON.
 *
 * ripgrep's `--json` writes a whole line of the searched file into one message, and one
 * `submatches` entry per hit: a long minified line searched for `.` is a single message many times
 * its size. The fields that matter (line number, offsets, the first submatches) come before the
 * bulk, and `submatches` is the message's last field, so nothing needed is dropped. The bulk is
 * passed over with `indexOf`, not byte by byte.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LETTER_U = 0x75;
/** Containers nested deeper than this make the text unusable (ripgrep's messages nest 4 deep). */
const MAX_DEPTH = 32;
/** `escape` right after a backslash, before its letter is known. */
const ESCAPE_START = -1;
/** In the container stack: an object (arrays hold their count of commas so far instead). */
const OBJECT = -1;

export class JsonCompactor {
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private inString = false;
  /** Bytes of an escape sequence still to come (ESCAPE_START right after the backslash). */
  private escape = 0;
  private stringBytes = 0;
  private cuttingString = false;
  private readonly containers: number[] = [];
  /** True once an array overflowed: everything after it is dropped. */
  private ended = false;
  /** True once a string was shortened (dropped array items do not count). */
  cutString = false;
  /** True when the text nests deeper than any message ripgrep writes: it is no longer followed. */
  unusable = false;

  constructor(
    private readonly maxStringBytes: number,
    private readonly maxArrayItems: number,
  ) {}

  /** Bytes held so far. */
  get size(): number {
    return this.keptBytes;
  }

  /** Feeds `chunk[from, to)`. */
  write(chunk: Buffer, from: number, to: number): void {
    let runStart = from;
    let i = from;
    while (i < to && !this.unusable && !this.ended) {
      if (this.cuttingString) {
        const close = this.closingQuote(chunk, i, to);
        if (close === -1) return;
        this.cuttingString = false;
        this.inString = false;
        runStart = close; // the closing quote is kept
        i = close + 1;
        continue;
      }
      const b = chunk[i] as number;
      if (this.inString) {
        if (this.startsCut(b)) {
          this.keep(chunk, runStart, i);
          this.cuttingString = true;
          this.cutString = true;
          continue; // closingQuote reads this byte (it may be a backslash)
        }
        this.stepInString(b);
      } else if (b === 0x2c && this.overflows()) {
        this.keep(chunk, runStart, i);
        this.ended = true;
        return;
      } else {
        this.step(b);
      }
      i++;
    }
    if (!this.unusable && !this.ended && !this.cuttingString) this.keep(chunk, runStart, to);
  }

  /** The shrunk text, with whatever was left open closed. */
  result(): Buffer {
    let tail = this.inString ? '"' : '';
    for (let d = this.containers.length - 1; d >= 0; d--) tail += this.containers[d] === OBJECT ? '}' : ']';
    const parts = tail ? [...this.kept, Buffer.from(tail, 'latin1')] : this.kept;
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }

  private keep(chunk: Buffer, from: number, to: number): void {
    if (to <= from) return;
    // A copy: the chunk belongs to the stream, and a small slice must not pin a large buffer.
    this.kept.push(Buffer.from(chunk.subarray(from, to)));
    this.keptBytes += to - from;
  }

  /** Whether string byte `b` is where the string must be cut: past the bound, where a character starts. */
  private startsCut(b: number): boolean {
    return this.escape === 0 && b !== QUOTE && this.stringBytes >= this.maxStringBytes && (b & 0xc0) !== 0x80;
  }

  /** A comma in an array that already holds its maximum of items. */
  private overflows(): boolean {
    const depth = this.containers.length;
    const top = this.containers[depth - 1];
    if (top === undefined || top === OBJECT) return false;
    this.containers[depth - 1] = top + 1;
    return top + 1 >= this.maxArrayItems;
  }

  private step(b: number): void {
    switch (b) {
      case QUOTE:
        this.inString = true;
        this.escape = 0;
        this.stringBytes = 0;
        return;
      case 0x5b: // [
      case 0x7b: // {
        if (this.containers.length >= MAX_DEPTH) this.unusable = true;
        else this.containers.push(b === 0x5b ? 0 : OBJECT);
        return;
      case 0x5d: // ]
      case 0x7d: // }
        this.containers.pop();
        return;
      default:
        return;
    }
  }

  private stepInString(b: number): void {
    this.stringBytes++;
    if (this.escape !== 0) {
      this.escape = this.escape === ESCAPE_START ? (b === LETTER_U ? 4 : 0) : this.escape - 1;
    } else if (b === QUOTE) {
      this.inString = false;
    } else if (b === BACKSLASH) {
      this.escape = ESCAPE_START;
    }
  }

  /**
   * The index of the quote that closes the string being cut, in `chunk[from, to)`, or -1 (then
   * whether the segment ended on an unpaired backslash is remembered for the next one).
   */
  private closingQuote(chunk: Buffer, from: number, to: number): number {
    const carried = this.escape === ESCAPE_START ? 1 : 0;
    const backslashesBefore = (end: number): number => {
      let j = end - 1;
      while (j >= from && chunk[j] === BACKSLASH) j--;
      return end - 1 - j + (j < from ? carried : 0);
    };
    for (let i = from; ; ) {
      const q = chunk.indexOf(QUOTE, i);
      if (q === -1 || q >= to) {
        this.escape = backslashesBefore(to) % 2 === 1 ? ESCAPE_START : 0;
        return -1;
      }
      if (backslashesBefore(q) % 2 === 0) return q;
      i = q + 1;
    }
  }
}
