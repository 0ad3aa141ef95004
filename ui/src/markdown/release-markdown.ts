import { Lexer, type Token, type Tokens } from 'marked';

/**
 * Release notes (docs/release-notes.md) are Markdown written by whoever publishes the image: hostile
 * until proven otherwise. marked only tokenises them here; its HTML output is never used. Each token
 * becomes a node of this small tree, built from an allow-list of elements and attributes, and the
 * component (components/release-body.tsx) turns the tree into Preact elements, which set text as
 * text. So raw HTML, event attributes and `javascript:` links have nowhere to go.
 */
export type MarkdownNode = string | MarkdownElement;
export interface MarkdownElement {
  tag: MarkdownTag;
  /** Only `href` (http, https or mailto), `rel`, `target`, `class`, `start`, `checked`, `title`. */
  attrs?: Record<string, string | number | boolean>;
  children: MarkdownNode[];
}
export type MarkdownTag =
  | 'h3'
  | 'h4'
  | 'h5'
  | 'h6'
  | 'p'
  | 'blockquote'
  | 'pre'
  | 'code'
  | 'ul'
  | 'ol'
  | 'li'
  | 'input'
  | 'hr'
  | 'br'
  | 'strong'
  | 'em'
  | 'del'
  | 'a'
  | 'div'
  | 'table'
  | 'thead'
  | 'tbody'
  | 'tr'
  | 'th'
  | 'td';

/** A table past these is cut (the rest is one link away): its scroll container bounds the rest. */
export const TABLE_LIMITS = { columns: 50, rows: 200 } as const;
/** Nesting deeper than this (lists in quotes in lists…) is flattened to text. */
const MAX_DEPTH = 12;
const SAFE_SCHEME = /^(?:https?:|mailto:)/i;

/** The link target a release may carry: http(s) or mailto, absolute; anything else is no link. */
export function safeHref(href: string | undefined, base?: string | null): string | undefined {
  if (!href) return undefined;
  let url: URL;
  try {
    url = base ? new URL(href.trim(), base) : new URL(href.trim());
  } catch {
    return undefined;
  }
  return SAFE_SCHEME.test(url.protocol) ? url.href : undefined;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** marked keeps entities as written (`&amp;`, `&#39;`); text nodes want the characters. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] !== '#') return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
  });
}

/** Raw HTML in the notes: its tags and comments dropped, the words between them kept as text. */
function htmlAsText(raw: string): string {
  return decodeEntities(raw.replace(/<!--[\s\S]*?(?:-->|$)/g, '').replace(/<\/?[a-z][^>]*>?/gi, ''));
}

function link(href: string, children: MarkdownNode[], title?: string | null): MarkdownElement {
  const attrs: Record<string, string> = { href, rel: 'noopener noreferrer', target: '_blank' };
  if (title) attrs.title = decodeEntities(title);
  return { tag: 'a', attrs, children };
}

interface Context {
  base: string | null;
  depth: number;
}

function inline(tokens: Token[] | undefined, context: Context): MarkdownNode[] {
  return (tokens ?? []).flatMap((token) => inlineToken(token, context));
}

function inlineToken(token: Token, context: Context): MarkdownNode[] {
  const inner = { ...context, depth: context.depth + 1 };
  if (context.depth > MAX_DEPTH) return [decodeEntities(token.raw)];
  switch (token.type) {
    case 'text':
      return token.tokens ? inline(token.tokens, inner) : [decodeEntities(token.text)];
    case 'escape':
      return [decodeEntities(token.text)];
    case 'strong':
    case 'em':
    case 'del':
      return [{ tag: token.type, children: inline(token.tokens, inner) }];
    case 'codespan':
      // Code keeps its characters as written (CommonMark decodes no entity in code).
      return [{ tag: 'code', children: [token.text] }];
    case 'br':
      return [{ tag: 'br', children: [] }];
    case 'link': {
      const href = safeHref(token.href, context.base);
      const children = inline(token.tokens, inner);
      return href ? [link(href, children, token.title)] : children;
    }
    case 'image': {
      // Never an <img>: the page's CSP allows images from itself only, and loading one would tell
      // another host who reads the notes. The image becomes a link to it, named by its alt text.
      const href = safeHref(token.href, context.base);
      const words = `image: ${decodeEntities(token.text) || 'untitled'}`;
      return href ? [link(href, [words], token.title)] : [words];
    }
    case 'html':
      return [htmlAsText(token.raw)];
    case 'checkbox':
      return [{ tag: 'input', attrs: { type: 'checkbox', disabled: true, checked: token.checked }, children: [] }];
    default:
      return [decodeEntities(token.raw)];
  }
}

function table(token: Tokens.Table, context: Context): MarkdownElement {
  const columns = Math.min(token.header.length, TABLE_LIMITS.columns);
  const cell = (tag: 'th' | 'td', value: Tokens.TableCell): MarkdownElement => ({
    tag,
    ...(value.align ? { attrs: { class: `align-${value.align}` } } : {}),
    children: inline(value.tokens, context),
  });
  const body = token.rows.slice(0, TABLE_LIMITS.rows).map((row) => ({
    tag: 'tr' as const,
    children: row.slice(0, columns).map((value) => cell('td', value)),
  }));
  return {
    tag: 'div',
    attrs: { class: 'table-scroll release-table' },
    children: [
      {
        tag: 'table',
        children: [
          {
            tag: 'thead',
            children: [{ tag: 'tr', children: token.header.slice(0, columns).map((v) => cell('th', v)) }],
          },
          { tag: 'tbody', children: body },
        ],
      },
    ],
  };
}

function block(tokens: Token[], context: Context): MarkdownNode[] {
  return tokens.flatMap((token) => blockToken(token, context));
}

function blockToken(token: Token, context: Context): MarkdownNode[] {
  const inner = { ...context, depth: context.depth + 1 };
  if (context.depth > MAX_DEPTH) return [decodeEntities(token.raw)];
  switch (token.type) {
    case 'space':
    case 'def':
      return [];
    case 'heading': {
      // The notes sit under the page's own h2/h3: their headings start at h3 and keep their order.
      const level = Math.min(6, Math.max(3, token.depth + 2)) as 3 | 4 | 5 | 6;
      return [{ tag: `h${level}`, children: inline(token.tokens, inner) }];
    }
    case 'paragraph':
      return [{ tag: 'p', children: inline(token.tokens, inner) }];
    case 'code':
      return [{ tag: 'pre', children: [{ tag: 'code', children: [token.text] }] }];
    case 'blockquote':
      return [{ tag: 'blockquote', children: block(token.tokens ?? [], inner) }];
    case 'hr':
      return [{ tag: 'hr', children: [] }];
    case 'list': {
      const start = token.ordered && typeof token.start === 'number' && token.start !== 1 ? { start: token.start } : {};
      return [
        {
          tag: token.ordered ? 'ol' : 'ul',
          ...(token.ordered ? { attrs: start } : {}),
          children: (token.items as Tokens.ListItem[]).map((item) => ({
            tag: 'li' as const,
            children: block(item.tokens, inner),
          })),
        },
      ];
    }
    case 'table':
      return [table(token as Tokens.Table, inner)];
    case 'html': {
      const text = htmlAsText(token.raw).trim();
      return text ? [{ tag: 'p', children: [text] }] : [];
    }
    case 'text':
      return token.tokens ? inline(token.tokens, inner) : [decodeEntities(token.text)];
    default:
      return inlineToken(token, context);
  }
}

/**
 * The notes as a tree of allowed elements. `base` (the release's page) resolves relative links;
 * without it they are text.
 */
export function releaseMarkdown(source: string, base?: string | null): MarkdownNode[] {
  const tokens = new Lexer({ gfm: true }).lex(source);
  return block(tokens, { base: base && safeHref(base) ? base : null, depth: 0 });
}
