/**
 * Cuts text to a service's documented limit (in characters), ending with `…` when cut, so an
 * over-long batch message is delivered shortened instead of refused with a 400.
 */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** For services whose message is HTML (Telegram `parse_mode=HTML`, Matrix `formatted_body`). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Title and body as one text, for services with a single text field. */
export function titled(title: string, body: string, formatTitle: (title: string) => string = (t) => t): string {
  if (!title) return body;
  if (!body) return formatTitle(title);
  return `${formatTitle(title)}\n${body}`;
}
