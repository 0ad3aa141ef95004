import { query } from '../../router';
import { isWideScreen } from '../../screen-width';

/**
 * The container open beside the list (docs/ui.md "The side panel"): a state of the list, in its
 * address (`/containers?status=running&open=<id>`), so a reload or a shared link gives the same
 * view, while `/containers/<id>` stays the container's own page.
 */
const OPEN = 'open';

/** The id open beside the list, on a screen wide enough for both; undefined otherwise. */
export function openInPanel(search = query.value): string | undefined {
  if (!isWideScreen()) return undefined;
  return new URLSearchParams(search).get(OPEN) ?? undefined;
}

/** The list's address with this container open beside it (same filters). */
export function withOpen(id: string, search = query.value): string {
  const params = new URLSearchParams(search);
  params.set(OPEN, id);
  return `/containers?${params.toString()}`;
}

/** The list's address with the panel closed (same filters). */
export function withoutOpen(search = query.value): string {
  const params = new URLSearchParams(search);
  params.delete(OPEN);
  const rest = params.toString();
  return `/containers${rest ? `?${rest}` : ''}`;
}

/** Where a row's name leads: beside the list on a wide screen, else the container's page (with the list's filters for "back"). */
export function containerHref(id: string, search = query.value): string {
  if (isWideScreen()) return withOpen(id, search);
  const rest = withoutOpen(search).slice('/containers'.length);
  return `/containers/${encodeURIComponent(id)}${rest}`;
}
