import { signal } from '@preact/signals';

/** The current path and query; the History API moves them, the server answers every such path with the page. */
export const path = signal(location.pathname);
export const query = signal(location.search);

function sync(): void {
  path.value = location.pathname;
  query.value = location.search;
}

export function navigate(to: string, replace = false): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  sync();
}

addEventListener('popstate', sync);

/** Same-origin links are followed without a page load; modified clicks keep the browser's meaning. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as Element | null)?.closest('a');
  if (!anchor || anchor.origin !== location.origin || anchor.target || anchor.hasAttribute('download')) return;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (anchor.pathname.startsWith('/api/') || anchor.hash) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}
