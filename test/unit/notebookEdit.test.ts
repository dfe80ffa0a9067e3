/** The notebook edit engine (src/core/edit/notebook.ts) directly: cell ids and its refusals. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { editNotebookText } from '../../src/core/edit/notebook';

interface Cell { cell_type: string; id?: string; source: string[] }
const notebook = (minor: number, cells: string[]) => `{\n "cells": [\n  ${cells.join(',\n  ')}\n ],\n "metadata": {},\n "nbformat": 4,\n "nbformat_minor": ${minor}\n}\n`;
const code = (source: string, id?: string) => `{"cell_type": "code", "execution_count": null,${id ? ` "id": "${id}",` : ''} "metadata": {}, "outputs": [], "source": ["${source}"]}`;
const cellsOf = (text: string) => (JSON.parse(text) as { cells: Cell[] }).cells;

test('in an nbformat 4.5 notebook every cell the edit writes has an id, unique in the notebook; older notebooks get none', () => {
  const v45 = notebook(5, [code('a', 'aaaaaaaa'), code('b')]);
  const inserted = cellsOf(editNotebookText(v45, { mode: 'insert', index: 0, source: 'new' }, 'nb.ipynb').text);
  assert.match(inserted[0].id ?? '', /^[0-9a-f]{8}$/);
  assert.notEqual(inserted[0].id, 'aaaaaaaa');
  // A replaced cell of the same type keeps its id, and one without an id gets one.
  const kept = editNotebookText(v45, { mode: 'replace', index: 0, source: 'a2' }, 'nb.ipynb').text;
  assert.equal(cellsOf(kept)[0].id, 'aaaaaaaa');
  assert.equal(kept, v45.replace('"source": ["a"]}', '"source": [\n    "a2"\n   ]}'), 'nothing else changes');
  assert.match(cellsOf(editNotebookText(v45, { mode: 'replace', index: 1, source: 'b2' }, 'nb.ipynb').text)[1].id ?? '', /^[0-9a-f]{8}$/);
  // A cell replaced by another type keeps the old cell's id.
  const retyped = cellsOf(editNotebookText(v45, { mode: 'replace', index: 0, source: '# t', cellType: 'markdown' }, 'nb.ipynb').text);
  assert.deepEqual([retyped[0].cell_type, retyped[0].id], ['markdown', 'aaaaaaaa']);
  const v44 = notebook(4, [code('a')]);
  assert.equal(cellsOf(editNotebookText(v44, { mode: 'insert', index: 1, source: 'new' }, 'nb.ipynb').text)[1].id, undefined);
  assert.equal(cellsOf(editNotebookText(v44, { mode: 'replace', index: 0, source: 'x' }, 'nb.ipynb').text)[0].id, undefined);
});

test('invalid notebook JSON is refused saying where, never quoting the text (the notebook may be a secret file)', () => {
  for (const text of ['{"cells": [], "token": CANARY-NB-31]}', '{"cells": [], "token": "CANARY-NB-31"', '{"cells": [], "token": "CANARY-NB-31",}']) {
    assert.throws(
      () => editNotebookText(text, { mode: 'insert', index: 0, source: 'x' }, 'nb.ipynb'),
      (e: Error) => /^nb\.ipynb is not valid notebook JSON( \(at character \d+\))?\.$/.test(e.message) && !e.message.includes('CANARY'),
    );
  }
});

test('a notebook on one line keeps every byte but the edited cell, written compact like the rest', () => {
  const minified = '{"cells":[{"cell_type":"code","execution_count":null,"metadata":{"scale":1.0},"outputs":[],"source":["a"]},{"cell_type":"code","execution_count":12345678901234567890,"metadata":{},"outputs":[],"source":["b"]}],"metadata":{"x":1.0},"nbformat":4,"nbformat_minor":4}';
  const out = editNotebookText(minified, { mode: 'replace', index: 1, source: 'b2' }, 'nb.ipynb').text;
  assert.equal(out, minified.replace('"execution_count":12345678901234567890,"metadata":{},"outputs":[],"source":["b"]', '"execution_count":null,"metadata":{},"outputs":[],"source":["b2"]'));
});
