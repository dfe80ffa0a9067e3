import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { JsonCompactor } from '../../src/core/search/jsonCompactor';
import { JsonLineReader } from '../../src/core/search/ripgrepJson';

/** Feeds `text` to a compactor in the given chunk sizes and returns what it kept. */
function compact(text: string, maxString: number, maxItems: number, cuts: readonly number[]): { out: string; cut: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  const c = new JsonCompactor(maxString, maxItems);
  let at = 0;
  for (const n of cuts) {
    if (at >= bytes.length) break;
    const end = Math.min(bytes.length, at + n);
    c.write(bytes, at, end);
    at = end;
  }
  if (at < bytes.length) c.write(bytes, at, bytes.length);
  return { out: c.result().toString('utf8'), cut: c.cutString };
}

const chunks = fc.array(fc.integer({ min: 1, max: 7 }), { maxLength: 40 });

test('JsonCompactor: with bounds nothing reaches, the text comes out byte for byte, however it is split', () => {
  fc.assert(
    fc.property(fc.json(), chunks, (text, cuts) => {
      const { out, cut } = compact(text, 1 << 20, 1 << 20, cuts);
      assert.equal(out, text);
      assert.equal(cut, false);
    }),
  );
});

test('JsonCompactor: with small bounds the text stays valid JSON, and a cut string is a prefix of the original', () => {
  const tricky = fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', 'é', '😀', '\u0001', '/') , maxLength: 30 });
  fc.assert(
    fc.property(tricky, fc.array(fc.integer(), { maxLength: 6 }), chunks, (s, items, cuts) => {
      const text = JSON.stringify({ s, items, after: 7 });
      const { out, cut } = compact(text, 8, 3, cuts);
      const parsed = JSON.parse(out) as { s: string; items: number[]; after?: number };
      assert.ok(s.startsWith(parsed.s), `${JSON.stringify(parsed.s)} is not a prefix of ${JSON.stringify(s)}`);
      assert.equal(cut, parsed.s !== s);
      assert.deepEqual(parsed.items, items.slice(0, 3));
      // Past an array that overflowed, the rest is dropped.
      assert.equal(parsed.after, items.length > 3 ? undefined : 7);
    }),
  );
});

test('JsonLineReader: a 3 MB match line is handed on shrunk and marked cut; the next line is read whole', () => {
  const lines: Array<{ text: string; cut: boolean }> = [];
  const reader = new JsonLineReader({ wants: () => true, line: (buf, cut) => lines.push({ text: buf.toString('utf8'), cut }), skipped: () => undefined });
  const long = 'x'.repeat(3 * 1024 * 1024);
  const submatches = Array.from({ length: 1000 }, (_, i) => ({ match: { text: 'x' }, start: i, end: i + 1 }));
  const big = JSON.stringify({ type: 'match', data: { path: { text: 'a.js' }, lines: { text: long }, line_number: 1, absolute_offset: 0, submatches } });
  const small = JSON.stringify({ type: 'end', data: { path: { text: 'a.js' } } });
  const stream = Buffer.from(`${big}\n${small}\n`);
  for (let at = 0; at < stream.length; at += 65536) reader.push(stream.subarray(at, at + 65536));
  reader.end();
  assert.equal(lines.length, 2);
  assert.ok(lines[0]?.cut);
  assert.ok((lines[0]?.text.length ?? 0) < 300 * 1024);
  const msg = JSON.parse(lines[0]?.text ?? '') as { data: { line_number: number; lines: { text: string }; submatches: unknown[] } };
  assert.equal(msg.data.line_number, 1);
  assert.equal(msg.data.lines.text, 'x'.repeat(256 * 1024));
  assert.equal(msg.data.submatches.length, 4);
  assert.deepEqual(lines[1], { text: small, cut: false });
});

test('JsonLineReader: a match line whose first submatches are each longer than the bound is still handed on, not dropped', () => {
  const lines: Buffer[] = [];
  const skipped: string[] = [];
  const reader = new JsonLineReader({ wants: () => true, line: (buf) => lines.push(buf), skipped: (kind) => skipped.push(kind) });
  const long = 'y'.repeat(400 * 1024);
  const submatches = Array.from({ length: 6 }, (_, i) => ({ match: { text: long }, start: i, end: long.length }));
  reader.push(Buffer.from(`${JSON.stringify({ type: 'match', data: { path: { text: 'b.js' }, lines: { text: long }, line_number: 7, submatches } })}\n`));
  reader.end();
  assert.deepEqual(skipped, []);
  const msg = JSON.parse(lines[0]?.toString('utf8') ?? '') as { data: { line_number: number; submatches: Array<{ start: number }> } };
  assert.equal(msg.data.line_number, 7);
  assert.deepEqual(msg.data.submatches.map((s) => s.start), [0, 1, 2, 3]);
});
