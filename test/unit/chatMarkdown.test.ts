/**
 * The chat's Markdown renderer (webview/render/markdown.ts) in a real DOM: the webview module is
 * bundled by esbuild exactly as for the webview and run inside jsdom, then hostile backend
 * Markdown is rendered and the resulting DOM is searched for anything that could run or load.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { build } from 'esbuild';
import { JSDOM } from 'jsdom';

type Render = (markdown: string) => string;

async function loadRenderer(): Promise<{ render: Render; dom: JSDOM }> {
  const out = await build({
    entryPoints: [path.join(__dirname, '..', '..', 'webview', 'render', 'markdown.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'chatMarkdown',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  const dom = new JSDOM('<!DOCTYPE html><div id="out"></div>', { runScripts: 'outside-only' });
  dom.window.eval(`${out.outputFiles[0].text};\nwindow.chatMarkdown = chatMarkdown;`);
  const lib = (dom.window as unknown as { chatMarkdown: { createMarkdownRenderer(win: unknown): Render } }).chatMarkdown;
  return { render: lib.createMarkdownRenderer(dom.window), dom };
}

const rendered = loadRenderer();

/** Renders into the document, as the webview does, and returns the container. */
async function show(markdown: string): Promise<Element> {
  const { render, dom } = await rendered;
  const out = dom.window.document.getElementById('out')!;
  out.innerHTML = render(markdown);
  return out;
}

function assertInert(root: Element): void {
  const forbidden = root.querySelectorAll('script, iframe, frame, object, embed, form, input, img, svg, style, link, meta, base');
  assert.equal(forbidden.length, 0, `found ${[...forbidden].map((e) => e.outerHTML).join(', ')}`);
  for (const el of root.querySelectorAll('*')) {
    for (const attr of el.getAttributeNames()) {
      assert.ok(!/^on/i.test(attr), `event attribute ${attr} on <${el.tagName}>`);
      assert.notEqual(attr, 'style');
    }
    const href = el.getAttribute('href');
    if (href !== null) assert.match(href, /^(https?:|mailto:)/i, `unsafe href ${href}`);
    const src = el.getAttribute('src');
    assert.equal(src, null, `src ${src} on <${el.tagName}>`);
  }
}

test('script tags, handlers, frames and forms in backend Markdown come out as plain text', async () => {
  const root = await show(
    [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(2)>',
      '<iframe src="https://evil.example"></iframe>',
      '<form action="https://evil.example"><input name=a></form>',
      '<a href="javascript:alert(3)" onclick="alert(4)">click</a>',
      '<svg onload=alert(5)></svg>',
    ].join('\n\n'),
  );
  assertInert(root);
  assert.match(root.textContent ?? '', /<script>alert\(1\)<\/script>/, 'shown as text');
});

test('javascript:, vbscript: and data: links lose their href; http(s) and mailto keep it', async () => {
  const root = await show(
    '[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c](vbscript:msgbox(1)) [d](data:text/html,<script>alert(1)</script>) ' +
      '[e](https://example.com/x) [f](mailto:dev@example.com) <javascript:alert(1)>',
  );
  assertInert(root);
  const hrefs = [...root.querySelectorAll('a[href]')].map((a) => a.getAttribute('href'));
  assert.deepEqual(hrefs, ['https://example.com/x', 'mailto:dev@example.com']);
});

test('a remote image becomes a link: nothing is fetched', async () => {
  const root = await show('![tracker](http://evil.example/pixel.png) ![x](javascript:alert(1))');
  assertInert(root);
  const links = [...root.querySelectorAll('a')];
  assert.equal(links[0].getAttribute('href'), 'http://evil.example/pixel.png');
  assert.equal(links[0].textContent, 'tracker');
});

test('code blocks are highlighted (java, ts, python, json, bash ...) and unknown languages stay plain', async () => {
  const root = await show('```java\npublic class A { int x = 1; }\n```\n\n```ts\nconst a: number = 1;\n```\n\n```nolang\n<b>x</b>\n```');
  assertInert(root);
  const codes = [...root.querySelectorAll('pre > code')];
  assert.equal(codes.length, 3);
  assert.ok(codes[0].classList.contains('language-java'));
  assert.ok(codes[0].querySelector('.hljs-keyword'), 'java keywords are marked');
  assert.ok(codes[1].querySelector('.hljs-keyword'), 'ts keywords are marked');
  assert.equal(codes[2].textContent, '<b>x</b>\n');
  assert.equal(codes[2].querySelector('b'), null);
});

test('ordinary Markdown renders: headings, lists, tables, emphasis, inline code', async () => {
  const root = await show('# Title\n\n- one\n- **two**\n\n| a | b |\n|---|---|\n| 1 | `2` |');
  assert.ok(root.querySelector('h1'));
  assert.equal(root.querySelectorAll('li').length, 2);
  assert.ok(root.querySelector('strong'));
  assert.ok(root.querySelector('table td code'));
  assertInert(root);
});
