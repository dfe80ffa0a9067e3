/**
 * Every relative link in README.md and docs/*.md leads somewhere: the file exists, and a `#anchor`
 * names a heading of that file as GitHub makes its id. The reference lives across several files,
 * so a moved section or a renamed heading would otherwise leave links dead without anyone seeing.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.join(__dirname, '..', '..');

const markdownFiles = (): string[] => [
  path.join(root, 'README.md'),
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(root, 'docs', f)),
];

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = (m[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1] as string);
  return anchors;
}

/** The relative targets of inline links and images (`[text](target)`), with where they appear. */
function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const m of prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
    targets.push(target);
  }
  return targets;
}

test('every relative link in README.md and docs/*.md points to an existing file and heading', () => {
  const dead: string[] = [];
  let checked = 0;
  for (const file of markdownFiles()) {
    const text = fs.readFileSync(file, 'utf8');
    for (const target of relativeLinks(text)) {
      checked++;
      const [rel = '', anchor] = target.split('#', 2);
      const dest = rel ? path.resolve(path.dirname(file), decodeURIComponent(rel)) : file;
      const where = `${path.relative(root, file)}: (${target})`;
      if (!fs.existsSync(dest)) {
        dead.push(`${where}: no such file`);
        continue;
      }
      if (anchor && dest.endsWith('.md') && !anchorsOf(fs.readFileSync(dest, 'utf8')).has(anchor)) dead.push(`${where}: no heading with that anchor`);
    }
  }
  assert.ok(checked > 20, `only ${checked} links found: the link pattern no longer matches the docs`);
  assert.deepEqual(dead, []);
});

test('the anchors are made as GitHub makes them', () => {
  const anchors = anchorsOf("# Top\n## 9. The dev backend's HTTP tool API\n## `read_file` and more\n## Top\n```\n# not a heading\n```\n");
  assert.deepEqual([...anchors], ['top', '9-the-dev-backends-http-tool-api', 'read_file-and-more', 'top-1']);
});
