import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { escapeForLog, redactingLogger, REDACTED } from '../../src/core/log';

test('escapeForLog writes line breaks, C0 and C1 controls, ANSI escapes and bidi marks as escapes', () => {
  assert.equal(escapeForLog('a\nb\rc\td'), 'a\\nb\\rc\\td');
  assert.equal(escapeForLog('x\u001b[31mred\u0007'), 'x\\u001b[31mred\\u0007');
  assert.equal(escapeForLog('p\u2028q\u2029r\u0085s\u009bt\u007f'), 'p\\u2028q\\u2029r\\u0085s\\u009bt\\u007f');
  assert.equal(escapeForLog('evil\u202egnp.exe'), 'evil\\u202egnp.exe');
  assert.equal(escapeForLog('plain text, ünïcode, 😀 and C:\\path'), 'plain text, ünïcode, 😀 and C:\\path');
});

test('escapeForLog: any text comes out as one line with no control character, and escaping again changes nothing', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (s) => {
      const once = escapeForLog(s);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(once, /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      assert.equal(escapeForLog(once), once);
    }),
  );
});

test('redactingLogger escapes for a sink that does not, after taking the secret out', () => {
  const lines: string[] = [];
  const sink = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m), debug: (m: string) => lines.push(m) };
  const log = redactingLogger(sink, () => ['tok\nen-secret']);
  log.warn('call x\nforged tok\nen-secret');
  assert.deepEqual(lines, [`call x\\nforged ${REDACTED}`]);
});
