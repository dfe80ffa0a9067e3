/**
 * Backend Markdown to safe HTML. The backend is not trusted: markdown-it runs with raw HTML off
 * (tags come out as text), images become plain links (no remote fetches), and DOMPurify then keeps
 * only harmless elements and http(s)/mailto links, so no script, handler, frame or form survives.
 */
import createDOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import csharp from 'highlight.js/lib/languages/csharp';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import python from 'highlight.js/lib/languages/python';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import markdownit, { type MarkdownIt } from 'markdown-it';

const LANGUAGES = { bash, csharp, go, java, javascript, json, kotlin, python, sql, typescript, xml, yaml };
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);
hljs.registerAliases(['sh', 'shell', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['js', 'jsx', 'mjs', 'cjs'], { languageName: 'javascript' });

/** Elements that could run code, load something, or submit: never kept, whatever the input. */
const FORBID_TAGS = ['script', 'style', 'iframe', 'frame', 'object', 'embed', 'form', 'input', 'button', 'textarea', 'select', 'img', 'video', 'audio', 'source', 'svg', 'math', 'link', 'meta', 'base'];
const FORBID_ATTR = ['style', 'srcset', 'action', 'formaction', 'target', 'ping'];
const SAFE_LINK = /^(?:https?:|mailto:)/i;

export type RenderMarkdown = (markdown: string) => string;

/** Builds the renderer for a window (the webview's, or jsdom's in a unit test). */
export function createMarkdownRenderer(win: Window & typeof globalThis): RenderMarkdown {
  const md: MarkdownIt = markdownit({
    html: false,
    linkify: true,
    breaks: false,
    highlight: (code, lang) => {
      const language = lang && hljs.getLanguage(lang) ? lang : undefined;
      if (!language) return '';
      const body = hljs.highlight(code, { language, ignoreIllegals: true }).value;
      return `<pre><code class="hljs language-${md.utils.escapeHtml(language)}">${body}</code></pre>`;
    },
  });
  // An image would be a request to wherever the backend points; show it as a link instead.
  md.renderer.rules.image = (tokens, idx) => {
    const token = tokens[idx];
    const src = String(token.attrGet('src') ?? '');
    const alt = String(token.content || src);
    return `<a href="${md.utils.escapeHtml(src)}">${md.utils.escapeHtml(alt)}</a>`;
  };
  const purify = createDOMPurify(win);
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName !== 'A') return;
    const href = node.getAttribute('href');
    if (href === null) return;
    if (!SAFE_LINK.test(href.trim())) node.removeAttribute('href');
    else node.setAttribute('title', href);
  });
  return (markdown) =>
    purify.sanitize(md.render(markdown), {
      FORBID_TAGS,
      FORBID_ATTR,
      ALLOW_DATA_ATTR: false,
      ALLOWED_URI_REGEXP: SAFE_LINK,
    });
}
