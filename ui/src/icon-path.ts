/**
 * `dd.display.icon` prefixes (What's Up Docker's, and the sets' own names) and the icon set of the
 * hub's proxy (docs/icons.md) each stands for. `mdi:` icons and URLs have none: the page may load
 * nothing from another origin (its CSP), so those get the fallback.
 */
const PREFIXES: Record<string, string> = {
  sh: 'selfhst',
  selfhst: 'selfhst',
  si: 'simple-icons',
  'simple-icons': 'simple-icons',
  hl: 'dashboard-icons',
  di: 'dashboard-icons',
  'dashboard-icons': 'dashboard-icons',
};
const SLUG = /^[a-z0-9]+(?:[-_.][a-z0-9]+)*$/;

/** The hub's icon route for a `dd.display.icon` value (`sh:nginx`, `si-redis`), or undefined. */
export function iconPath(displayIcon: string | undefined): string | undefined {
  const value = displayIcon?.trim().toLowerCase() ?? '';
  // `sh:nginx` names the set before a colon; the older `sh-nginx` before the first dash.
  const cut = value.includes(':') ? value.indexOf(':') : value.indexOf('-');
  const provider = cut > 0 ? PREFIXES[value.slice(0, cut)] : undefined;
  const slug = value.slice(cut + 1);
  if (!provider || !slug || slug.length > 100 || !SLUG.test(slug)) return undefined;
  return `/api/v1/icons/${provider}/${slug}`;
}
