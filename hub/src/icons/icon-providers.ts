import * as v from 'valibot';

/** The icon sets the hub proxies (http-interface §4.14), as they appear in the route's path. */
export const ICON_PROVIDERS = ['selfhst', 'simple-icons', 'dashboard-icons'] as const;
export type IconProvider = (typeof ICON_PROVIDERS)[number];

export type IconFormat = 'svg' | 'png';

/** Where each set lives by default: jsDelivr mirrors all three (DD_ICONS_<SET>_URL replaces the base). */
export const DEFAULT_ICON_BASES: Record<IconProvider, string> = {
  selfhst: 'https://cdn.jsdelivr.net/gh/selfhst/icons',
  'simple-icons': 'https://cdn.jsdelivr.net/npm/simple-icons@latest',
  'dashboard-icons': 'https://cdn.jsdelivr.net/gh/homarr-labs/dashboard-icons',
};

/** The variable that overrides each set's base URL. */
export const ICON_BASE_VARIABLES: Record<IconProvider, string> = {
  selfhst: 'DD_ICONS_SELFHST_URL',
  'simple-icons': 'DD_ICONS_SIMPLEICONS_URL',
  'dashboard-icons': 'DD_ICONS_DASHBOARDICONS_URL',
};

/** The path of one icon under its set's base: the sets lay out their files differently. */
const PATHS: Record<IconProvider, Partial<Record<IconFormat, (name: string) => string>>> = {
  selfhst: { svg: (name) => `svg/${name}.svg`, png: (name) => `png/${name}.png` },
  // Simple Icons publishes SVG only.
  'simple-icons': { svg: (name) => `icons/${name}.svg` },
  'dashboard-icons': { svg: (name) => `svg/${name}.svg`, png: (name) => `png/${name}.png` },
};

/**
 * A slug is a bare icon name, optionally with `.svg` or `.png` to ask for that format only.
 * Lower-case letters, digits and inner `-`, `_`, `.`: nothing that could leave the set's folder.
 */
export const IconSlugSchema = v.pipe(
  v.string(),
  v.maxLength(100, 'is longer than 100 characters'),
  v.regex(/^[a-z0-9]+(?:[-_.][a-z0-9]+)*$/, 'may hold only lower-case letters, digits and inner - _ .'),
);

export interface IconRequest {
  provider: IconProvider;
  /** The icon's name without extension. */
  name: string;
  /** The formats to try, in order. */
  formats: IconFormat[];
}

export function isIconProvider(value: string): value is IconProvider {
  return (ICON_PROVIDERS as readonly string[]).includes(value);
}

/** Splits a valid slug into its name and the formats to try (SVG first: it scales and is small). */
export function iconRequest(provider: IconProvider, slug: string): IconRequest {
  const match = /^(.+)\.(svg|png)$/.exec(slug);
  const wanted: IconFormat[] = match ? [match[2] as IconFormat] : ['svg', 'png'];
  const formats = wanted.filter((format) => PATHS[provider][format] !== undefined);
  return { provider, name: match ? (match[1] as string) : slug, formats };
}

/** The upstream URL of one icon in one format. */
export function iconUrl(base: string, provider: IconProvider, name: string, format: IconFormat): string {
  const path = PATHS[provider][format];
  if (!path) throw new Error(`${provider} has no ${format} icons`);
  return `${base.replace(/\/+$/, '')}/${path(name)}`;
}
