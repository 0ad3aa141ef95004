/** The sanitising layer of the release notes (ui/src/markdown/release-markdown.ts, issue 28 item 5): hostile Markdown in, an allow-listed tree out. */
import { describe, expect, it } from 'vitest';
import {
  decodeEntities,
  type MarkdownNode,
  releaseMarkdown,
  safeHref,
  TABLE_LIMITS,
} from '../../ui/src/markdown/release-markdown';

const BASE = 'https://github.com/acme/app/releases/tag/v1.1.0';

/** Every element of the tree, depth first. */
function elements(nodes: MarkdownNode[]): Exclude<MarkdownNode, string>[] {
  return nodes.flatMap((node) => (typeof node === 'string' ? [] : [node, ...elements(node.children)]));
}
const text = (nodes: MarkdownNode[]): string =>
  nodes.map((node) => (typeof node === 'string' ? node : text(node.children))).join('');
const links = (nodes: MarkdownNode[]) => elements(nodes).filter((node) => node.tag === 'a');

describe('releaseMarkdown, the sanitising layer of the release notes', () => {
  it('renders headings (from h3 down), emphasis, lists, code and quotes as elements', () => {
    const tree = releaseMarkdown(
      '## Breaking changes\n\n**Dark mode** and _more_\n\n- one\n- `two`\n\n> quoted\n\n```\n<b>x</b>\n```',
    );
    expect(tree[0]).toEqual({ tag: 'h4', children: ['Breaking changes'] });
    expect(elements(tree).map((node) => node.tag)).toEqual([
      'h4',
      'p',
      'strong',
      'em',
      'ul',
      'li',
      'li',
      'code',
      'blockquote',
      'p',
      'pre',
      'code',
    ]);
    // Code keeps its characters, as text.
    expect(text(tree)).toContain('<b>x</b>');
    expect(releaseMarkdown('# Title')[0]).toMatchObject({ tag: 'h3' });
    expect(releaseMarkdown('###### Deep')[0]).toMatchObject({ tag: 'h6' });
  });

  it('keeps no raw HTML: tags and comments dropped, their words kept as text', () => {
    const tree = releaseMarkdown(
      '<script>alert(1)</script>\n\nhello <img src=x onerror="alert(2)"> <b onclick="alert(3)">bold</b><!-- secret -->\n\n<iframe src="javascript:alert(4)"></iframe>',
    );
    const tags = elements(tree).map((node) => node.tag);
    expect(tags.every((tag) => tag === 'p')).toBe(true);
    expect(text(tree)).toContain('alert(1)');
    expect(text(tree)).toContain('hello');
    expect(text(tree)).toContain('bold');
    expect(text(tree)).not.toMatch(/<|onerror|onclick|secret/);
  });

  it('gives every link rel="noopener noreferrer" and a new tab, and drops javascript:, data: and other schemes', () => {
    const tree = releaseMarkdown(
      '[a](https://example.com/a) [b](javascript:alert(1)) [c](JaVaScRiPt:alert(1)) [d](data:text/html,<script>x</script>) ' +
        '[e](vbscript:x) [f](java\tscript:alert(1)) [g](mailto:dev@example.com) <https://example.com/auto> [h](/relative)',
      BASE,
    );
    expect(links(tree).map((link) => link.attrs)).toEqual([
      { href: 'https://example.com/a', rel: 'noopener noreferrer', target: '_blank' },
      { href: 'mailto:dev@example.com', rel: 'noopener noreferrer', target: '_blank' },
      { href: 'https://example.com/auto', rel: 'noopener noreferrer', target: '_blank' },
      { href: 'https://github.com/relative', rel: 'noopener noreferrer', target: '_blank' },
    ]);
    // The dropped links' words stay.
    expect(text(tree)).toMatch(/b c d e /);
  });

  it('resolves relative links against the release page only; without it they are text', () => {
    expect(links(releaseMarkdown('[diff](../compare/v1...v2)', BASE))[0]?.attrs?.href).toBe(
      'https://github.com/acme/app/releases/compare/v1...v2',
    );
    expect(links(releaseMarkdown('[diff](../compare/v1...v2)'))).toEqual([]);
    expect(links(releaseMarkdown('[diff](../compare)', 'javascript:alert(1)//'))).toEqual([]);
  });

  it('never makes an image: a link to it named by its alt text, or text', () => {
    const tree = releaseMarkdown('![screenshot](https://cdn.example.com/shot.png "Shot") ![bad](javascript:alert(1))');
    expect(elements(tree).some((node) => (node.tag as string) === 'img')).toBe(false);
    expect(links(tree)).toEqual([
      {
        tag: 'a',
        attrs: {
          href: 'https://cdn.example.com/shot.png',
          rel: 'noopener noreferrer',
          target: '_blank',
          title: 'Shot',
        },
        children: ['image: screenshot'],
      },
    ]);
    expect(text(tree)).toContain('image: bad');
  });

  it('bounds a huge table in a scroll container and cuts it at its limits', () => {
    const row = (make: (i: number) => string) => `| ${Array.from({ length: 200 }, (_, i) => make(i)).join(' | ')} |`;
    const rows = Array.from({ length: 300 }, (_, r) => row((i) => `${r}.${i}`));
    const tree = releaseMarkdown([row((i) => `c${i}`), row(() => ':-:'), ...rows].join('\n'));
    expect(tree[0]).toMatchObject({ tag: 'div', attrs: { class: 'table-scroll release-table' } });
    const all = elements(tree);
    expect(all.filter((node) => node.tag === 'th')).toHaveLength(TABLE_LIMITS.columns);
    expect(all.filter((node) => node.tag === 'tr')).toHaveLength(TABLE_LIMITS.rows + 1);
    expect(all.find((node) => node.tag === 'td')?.attrs).toEqual({ class: 'align-center' });
  });

  it('carries only allow-listed attributes, whatever the notes hold', () => {
    const hostile = [
      '[x](https://example.com "t\\" onmouseover=\\"alert(1)")',
      '<a href="https://example.com" onclick="alert(1)">y</a>',
      '- [x] done',
      '1. a',
    ].join('\n\n');
    const allowed = new Set(['href', 'rel', 'target', 'title', 'class', 'start', 'type', 'disabled', 'checked']);
    for (const node of elements(releaseMarkdown(hostile)))
      for (const name of Object.keys(node.attrs ?? {})) expect(allowed.has(name)).toBe(true);
  });

  it('flattens nesting past its depth to text instead of recursing without end', () => {
    const tree = releaseMarkdown(`${'> '.repeat(500)}deep`);
    expect(text(tree)).toContain('deep');
    expect(elements(tree).length).toBeLessThan(40);
  });
});

describe('safeHref and decodeEntities', () => {
  it('accepts http, https and mailto only', () => {
    expect(safeHref('https://example.com/x?y#z')).toBe('https://example.com/x?y#z');
    expect(safeHref(' javascript:alert(1)')).toBeUndefined();
    expect(safeHref('data:text/html,x')).toBeUndefined();
    expect(safeHref('file:///etc/passwd')).toBeUndefined();
    expect(safeHref('//evil.example/x')).toBeUndefined();
    expect(safeHref(undefined)).toBeUndefined();
  });

  it('decodes the entities marked leaves in text, never into markup', () => {
    expect(decodeEntities('a &amp; b &lt;script&gt; &#39;q&#x27; &nbsp;')).toBe("a & b <script> 'q' \u00a0");
    expect(decodeEntities('&#0; &#xD800; &unknown;')).toBe('\ufffd \ufffd &unknown;');
  });
});
