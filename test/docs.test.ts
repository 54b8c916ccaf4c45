// The README, CHANGELOG and docs/ as a reader follows them: every relative link and
// image leads to a file that exists, and a link with #anchor to a heading of
// that page, slugged as GitHub slugs it (github-slugger). Pages stay
// readable: none over 400 lines, and one over 150 opens with a contents list.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import { marked, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGES = ['README.md', 'CHANGELOG.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The text a heading renders to: code spans, links and emphasis reduced to their words. */
function plain(tokens: Token[] | undefined): string {
  return (tokens ?? []).map((t) => ('tokens' in t && t.tokens ? plain(t.tokens) : 'text' in t ? String(t.text) : '')).join('');
}

interface Page {
  anchors: Set<string>;
  links: string[];
  lines: string[];
}

const pages = new Map<string, Page>();
function page(path: string): Page {
  let found = pages.get(path);
  if (!found) {
    const text = readFileSync(join(ROOT, path), 'utf8');
    const tokens = marked.lexer(text);
    const slugger = new GithubSlugger();
    const anchors = new Set<string>();
    const links: string[] = [];
    marked.walkTokens(tokens, (t) => {
      if (t.type === 'heading') anchors.add(slugger.slug(plain((t as Tokens.Heading).tokens)));
      if (t.type === 'link' || t.type === 'image') links.push((t as Tokens.Link | Tokens.Image).href);
    });
    found = { anchors, links, lines: text.split('\n') };
    pages.set(path, found);
  }
  return found;
}

describe('the README, CHANGELOG and docs/', () => {
  it('has pages to check', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/emulator.md', 'docs/performance.md']));
  });

  it.each(PAGES)('%s: every relative link leads to a file, and its #anchor to a heading there', (path) => {
    const broken: string[] = [];
    for (const href of page(path).links) {
      if (/^[a-z][a-z+.-]*:/i.test(href)) continue; // https:, mailto: ...
      const [file, anchor] = href.split('#', 2) as [string, string | undefined];
      const target = file === '' ? path : relative(ROOT, resolve(ROOT, dirname(path), decodeURIComponent(file)));
      if (!existsSync(join(ROOT, target))) {
        broken.push(`${href}: no file ${target}`);
        continue;
      }
      if (anchor !== undefined && target.endsWith('.md') && !page(target).anchors.has(decodeURIComponent(anchor))) {
        broken.push(`${href}: ${target} has no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it.each(PAGES)('%s: at most 400 lines, with a contents list at its top when over 150', (path) => {
    const { lines, anchors } = page(path);
    expect(lines.length).toBeLessThanOrEqual(400);
    if (lines.length <= 150) return;
    // Before the first section: links to at least three of the page's own headings.
    const top = lines.slice(0, lines.findIndex((l) => l.startsWith('## '))).join('\n');
    const own = [...top.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]).filter((a) => anchors.has(a));
    expect(own.length, `${path} is ${lines.length} lines: it needs a contents list before its first ## heading`).toBeGreaterThanOrEqual(3);
  });
});
