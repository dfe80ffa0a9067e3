/**
 * What an answer costs on the wire, counted while tools build it: the UTF-8 bytes of a string once
 * JSON-escaped. String length is not enough: a control character is sent as `\u0001`, 6 bytes.
 */

/**
 * What one tool answer may cost, its Markdown and `structured` together: under the 10 MB message
 * limit with room for the envelope, so the bridge never has to cut (or serialize) a larger one.
 */
export const ANSWER_BUDGET_BYTES = 8 * 1024 * 1024;

/** The bytes `JSON.stringify(text)` would take, less its two quotes, without building it. */
export function wireCost(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20) bytes += c === 0x0a || c === 0x0d || c === 0x09 || c === 0x08 || c === 0x0c ? 2 : 6;
    else if (c === 0x22 || c === 0x5c) bytes += 2;
    else if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      // A pair is 4 bytes of UTF-8; a lone surrogate is written as a \uXXXX escape.
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 6;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Bytes an answer may still spend. Tools charge each piece before they add it, and stop (saying
 * what they left out) when a piece does not fit: no answer is built far over what can be sent.
 */
export class AnswerBudget {
  private spent = 0;

  constructor(
    readonly bytes: number = ANSWER_BUDGET_BYTES,
    /** The budget this one is a part of: what this one spends is charged there too. */
    private readonly whole?: AnswerBudget,
  ) {}

  get left(): number {
    const own = Math.max(0, this.bytes - this.spent);
    return this.whole ? Math.min(own, this.whole.left) : own;
  }

  /** Charges `cost` bytes if they fit and says so; charges nothing when they do not. */
  spend(cost: number): boolean {
    if (cost > this.left) return false;
    this.spent += cost;
    this.whole?.spend(cost);
    return true;
  }

  /** A budget for a part of this answer (one method's source, say): at most `bytes`, and within what is left here. */
  part(bytes: number): AnswerBudget {
    return new AnswerBudget(bytes, this);
  }
}
