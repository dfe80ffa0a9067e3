/**
 * `path:line` links in the chat (webview/view/fileLinks.ts), bundled as for the webview and run in
 * jsdom: which text becomes a link, what a click asks the extension for, and that code blocks,
 * existing links and hostile text are left as they are.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { build } from 'esbuild';
import { JSDOM } from 'jsdom';

interface Lib {
  linkFileRefs(root: unknown, title: (p: string, line: number | undefined) => string): void;
  handleFileRefClicks(root: unknown): void;
}

async function load(): Promise<{ lib: Lib; dom: JSDOM; posted: unknown[] }> {
  const out = await build({
    entryPoints: [path.join(__dirname, '..', '..', 'webview', 'view', 'fileLinks.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'fileLinks',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  const dom = new JSDOM('<!DOCTYPE html><div id="out"></div>', { runScripts: 'outside-only' });
  const posted: unknown[] = [];
  (dom.window as unknown as { acquireVsCodeApi: () => unknown }).acquireVsCodeApi = () => ({ postMessage: (m: unknown) => posted.push(m), getState: () => undefined, setState: () => undefined });
  dom.window.eval(`${out.outputFiles[0].text};\nwindow.fileLinks = fileLinks;`);
  return { lib: (dom.window as unknown as { fileLinks: Lib }).fileLinks, dom, posted };
}

test('path:line and dir/file references become links; bare words, code blocks and existing links do not', async () => {
  const { lib, dom } = await load();
  const root = dom.window.document.getElementById('out')!;
  root.innerHTML =
    '<p>See src/app/Main.java:12 and <code>Greeter.java:5</code>, also docs/notes.txt, not e.g. or v1.2 or Main.java.</p>' +
    '<pre><code>src/app/Main.java:12 in a code block</code></pre><p><a href="https://x.test/a/b.txt">https://x.test/a/b.txt</a></p>';
  lib.linkFileRefs(root, (p, line) => `Open ${p}${line ? `:${line}` : ''}`);
  const links = [...root.querySelectorAll('a.file-ref')].map((a) => [a.textContent, (a as HTMLElement).dataset.path, (a as HTMLElement).dataset.line ?? null, a.getAttribute('title')]);
  assert.deepEqual(links, [
    ['src/app/Main.java:12', 'src/app/Main.java', '12', 'Open src/app/Main.java:12'],
    ['Greeter.java:5', 'Greeter.java', '5', 'Open Greeter.java:5'],
    ['docs/notes.txt', 'docs/notes.txt', null, 'Open docs/notes.txt'],
  ]);
  assert.equal(root.querySelector('pre a'), null, 'code blocks untouched');
  assert.equal(root.querySelectorAll('a').length, 4, 'the existing link kept, not nested');
  assert.match(root.textContent ?? '', /See src\/app\/Main\.java:12 and Greeter\.java:5, also docs\/notes\.txt, not e\.g\. or v1\.2 or Main\.java\./);
});

test('a click asks the extension to open the file at the line, and nothing else', async () => {
  const { lib, dom, posted } = await load();
  const root = dom.window.document.getElementById('out')!;
  root.innerHTML = '<p>at src/app/Main.java:12:7 and src/app/Greeter.java</p>';
  lib.linkFileRefs(root, () => 'open');
  lib.handleFileRefClicks(root);
  for (const a of root.querySelectorAll('a.file-ref')) (a as HTMLElement).click();
  assert.deepEqual(JSON.parse(JSON.stringify(posted)), [
    { type: 'openFile', path: 'src/app/Main.java', line: 12 },
    { type: 'openFile', path: 'src/app/Greeter.java' },
  ]);
});

test('hostile text stays text: markup-like names are not turned into elements', async () => {
  const { lib, dom } = await load();
  const root = dom.window.document.getElementById('out')!;
  const p = dom.window.document.createElement('p');
  p.textContent = '<img src=x onerror=alert(1)>.js:1 a/<script>.ts:2 ../../etc/passwd.txt:3';
  root.append(p);
  lib.linkFileRefs(root, () => 'open');
  assert.equal(root.querySelectorAll('img, script').length, 0);
  assert.equal(p.textContent, '<img src=x onerror=alert(1)>.js:1 a/<script>.ts:2 ../../etc/passwd.txt:3');
  // A path that climbs out is not linked (and the extension refuses such paths anyway).
  for (const a of root.querySelectorAll('a.file-ref')) assert.ok(!((a as HTMLElement).dataset.path ?? '').split('/').includes('..'), (a as HTMLElement).dataset.path);
});
