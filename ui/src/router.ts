import { signal } from '@preact/signals';

/** The current path; the History API moves it, the server answers every such path with the page. */
export const path = signal(location.pathname);

export function navigate(to: string, replace = false): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  path.value = location.pathname;
}

addEventListener('popstate', () => {
  path.value = location.pathname;
});

/** Same-origin links are followed without a page load; modified clicks keep the browser's meaning. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as Element | null)?.closest('a');
  if (!anchor || anchor.origin !== location.origin || anchor.target || anchor.hasAttribute('download')) return;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (anchor.pathname.startsWith('/api/')) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}
