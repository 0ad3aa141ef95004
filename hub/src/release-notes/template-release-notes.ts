import type { TemplateReleaseNotes } from '../notifications/notification-service';
import type { Release } from './release-match';

/** Long enough for a release's headline changes, short enough for a chat message or a push title's body. */
const EXCERPT_CHARACTERS = 280;

/**
 * The body as one line of text: Markdown's headings, emphasis, list bullets, images and link targets
 * dropped (a notification may be plain text), whitespace collapsed, cut at a word near the limit.
 */
export function releaseExcerpt(body: string, limit = EXCERPT_CHARACTERS): string {
  const text = body
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|[-*+]|\d+\.)\s+/gm, '')
    .replace(/[*_`]{1,3}/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  const space = cut.lastIndexOf(' ');
  return `${(space > limit / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** A cached release as notification templates see it (`${container.releaseNotes.title}`). */
export function templateReleaseNotes(release: Release | undefined): TemplateReleaseNotes | undefined {
  if (!release) return undefined;
  return { tag: release.tag, title: release.title, url: release.url ?? '', excerpt: releaseExcerpt(release.body) };
}
