/** Longest template read and longest link produced; longer is not a link anyone typed on purpose. */
export const LINK_MAX_LENGTH = 2048;

/** The values a `dd.link.template` may use. Numbers stay strings so `2024.01.05` keeps its leading zero. */
export type LinkVersion = { raw: string; major?: string; minor?: string; patch?: string; prerelease?: string };

const LINK_VARIABLES = ['raw', 'major', 'minor', 'patch', 'prerelease'] as const;
type LinkVariable = (typeof LINK_VARIABLES)[number];

/** `v1.2.3`, `1.2`, `1`, `1.2.3-alpine`; anything else (four parts, `2.5.0p13`, `latest`) gives only `raw`. */
const SIMPLE_VERSION = /^[vV]?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?$/;

/**
 * Splits a tag for link templates with one simple pattern. Deliberately not the tag logic's parser: a
 * link only needs the common shapes, and a tag it does not understand still renders through `${raw}`.
 */
export function linkVersionFromTag(tag: string): LinkVersion {
  const match = SIMPLE_VERSION.exec(tag);
  const version: LinkVersion = { raw: tag };
  if (!match) return version;
  const [, major, minor, patch, prerelease] = match;
  if (major !== undefined) version.major = major;
  if (minor !== undefined) version.minor = minor;
  if (patch !== undefined) version.patch = patch;
  if (prerelease !== undefined) version.prerelease = prerelease;
  return version;
}

function isLinkVariable(name: string): name is LinkVariable {
  return (LINK_VARIABLES as readonly string[]).includes(name);
}

/** Only http and https links, and none with credentials (`https://github.com@evil.example/` looks like GitHub). */
function safeLink(candidate: string): string | undefined {
  if (!URL.canParse(candidate)) return undefined;
  const url = new URL(candidate);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  return url.href.length <= LINK_MAX_LENGTH ? url.href : undefined;
}

/**
 * Renders a WUD-style link template such as `https://github.com/traefik/traefik/releases/tag/v${major}.${minor}.${patch}`.
 *
 * Plain text substitution, never evaluation: `${name}` is replaced when name is one of raw, major, minor, patch,
 * prerelease (a known name without a value gives an empty string); any other `${...}` stays as written, so a
 * typo shows in the link instead of yielding a plausible wrong one, and `${constructor}` or `${__proto__}` reach
 * nothing. Values are percent-encoded, so a tag cannot add a path, query or host. The result must be an http(s)
 * URL of bounded length, else undefined.
 */
export function renderLinkTemplate(template: string | undefined, version: LinkVersion): string | undefined {
  if (!template || template.length > LINK_MAX_LENGTH) return undefined;
  const rendered = template.replace(/\$\{([^{}]*)\}/g, (whole: string, rawName: string) => {
    const name = rawName.trim();
    if (!isLinkVariable(name)) return whole;
    return encodeURIComponent(version[name] ?? '');
  });
  return safeLink(rendered);
}
