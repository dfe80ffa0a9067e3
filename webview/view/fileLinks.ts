/**
 * `path:line` and `dir/file.ext` references in answers and tool results, made links that open the
 * file at that line (the extension checks the path: inside the served folder, a file). Text nodes
 * are split and wrapped through the DOM, never through innerHTML, and code blocks are left alone.
 */
import { post } from '../vscodeApi';

/** A path with an extension, then an optional `:line` (and `:column`, ignored). */
const REF = /(?<![\w./\\-])((?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,9})(?::(\d{1,7})(?::\d{1,5})?)?(?![\w/])/g;

/** Wraps the references found under `root` in links. A bare name counts only with a line (`Main.java:12`), a path with a folder always. */
export function linkFileRefs(root: HTMLElement, title: (path: string, line: number | undefined) => string): void {
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement?.closest('a, pre') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const nodes: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
  for (const node of nodes) {
    const text = node.data;
    const parts: (string | HTMLAnchorElement)[] = [];
    let last = 0;
    for (const m of text.matchAll(REF)) {
      const [whole, path, line] = m;
      if (line === undefined && !path.includes('/')) continue;
      // A path that climbs out (`../`) is no reference into this workspace.
      if (path.split('/').some((seg) => seg === '..' || seg === '.')) continue;
      const at = m.index ?? 0;
      parts.push(text.slice(last, at));
      const a = root.ownerDocument.createElement('a');
      a.className = 'file-ref';
      a.href = '#';
      a.textContent = whole;
      a.dataset.path = path;
      if (line !== undefined) a.dataset.line = line;
      a.title = title(path, line === undefined ? undefined : Number(line));
      parts.push(a);
      last = at + whole.length;
    }
    if (!parts.length) continue;
    parts.push(text.slice(last));
    node.replaceWith(...parts.filter((p) => p !== ''));
  }
}

/** One listener for the whole chat: a click on a reference asks the extension to open it. */
export function handleFileRefClicks(root: HTMLElement): void {
  root.addEventListener('click', (e) => {
    const a = (e.target as Element | null)?.closest?.('a.file-ref');
    if (!(a instanceof HTMLAnchorElement)) return;
    e.preventDefault();
    const line = a.dataset.line ? Number(a.dataset.line) : undefined;
    post({ type: 'openFile', path: a.dataset.path ?? '', ...(line ? { line } : {}) });
  });
}
