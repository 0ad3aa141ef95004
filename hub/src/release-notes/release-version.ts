/**
 * Versions as release notes need them: semver (`1.2.3`, `1.2.3-rc.1`) behind the prefixes repositories
 * put on their release tags (`v1.2.3`, `app@1.2.3`, `app-v1.2.3`, `component/v1.2.3`). Deliberately
 * not the tag logic of shared/tags: release tags are git tags, not image tags, and only semver is asked
 * for (http-interface §4.8).
 */
export interface ReleaseVersion {
  /** What stood before the version, without its separator: `app` for `app@1.2.3`, '' for `v1.2.3`. */
  prefix: string;
  major: number;
  minor: number;
  patch: number;
  /** Semver prerelease identifiers (`rc.1` → ['rc', '1']); empty for a release. */
  prerelease: string[];
}

/** An optional prefix ending in `@`, `/`, `-` or `_`, an optional `v`, three numbers, a prerelease, build metadata. */
const RELEASE_TAG =
  /^(?:(.{1,100}?)[@/_-])?[vV]?(\d{1,9})\.(\d{1,9})\.(\d{1,9})(?:-([0-9A-Za-z.-]{1,100}))?(?:\+[0-9A-Za-z.-]{1,100})?$/;

/** Image tags may drop parts (`1.2`) and carry a variant (`1.2.3-alpine`, `1.2.3-ls45`). */
const IMAGE_TAG = /^[vV]?(\d{1,9})(?:\.(\d{1,9}))?(?:\.(\d{1,9}))?(?:[-_.]([0-9A-Za-z.-]{1,100}))?$/;

/** A suffix that is a prerelease rather than a variant: `rc.1`, `beta2`, `alpha`, `pre`… */
const PRERELEASE_SUFFIX = /^(?:alpha|beta|rc|pre|preview|dev|a|b)(?:[.-]?\d+)?(?:[.-].*)?$/i;

const identifiers = (text: string | undefined): string[] => (text ? text.split('.').filter(Boolean) : []);

/** A release's git tag as a version; undefined when it is not semver behind a prefix. */
export function parseReleaseTag(tag: string): ReleaseVersion | undefined {
  if (typeof tag !== 'string' || tag.length > 256) return undefined;
  const match = RELEASE_TAG.exec(tag);
  if (!match) return undefined;
  const [, prefix, major, minor, patch, prerelease] = match;
  return {
    prefix: prefix ?? '',
    major: Number(major),
    minor: Number(minor),
    patch: Number(patch),
    prerelease: identifiers(prerelease),
  };
}

/**
 * An image tag as the version it was built from: `1.2.3-alpine` → 1.2.3, `1.2` → 1.2.0, `1.2.3-rc.1` →
 * 1.2.3-rc.1 (a prerelease suffix is kept, a variant dropped). Undefined for `latest`, dates with dashes…
 */
export function parseImageTag(tag: string): ReleaseVersion | undefined {
  if (typeof tag !== 'string' || tag.length > 128) return undefined;
  const match = IMAGE_TAG.exec(tag);
  if (!match) return undefined;
  const [, major, minor, patch, suffix] = match;
  const prerelease = suffix !== undefined && PRERELEASE_SUFFIX.test(suffix) ? identifiers(suffix) : [];
  return { prefix: '', major: Number(major), minor: Number(minor ?? 0), patch: Number(patch ?? 0), prerelease };
}

/** A query's `from` or `to`: strict semver with an optional `v` (no prefix, no variant). */
export function parseSemver(text: string): ReleaseVersion | undefined {
  const version = parseReleaseTag(text);
  return version && version.prefix === '' ? version : undefined;
}

function compareIdentifiers(a: string, b: string): number {
  const numeric = /^\d+$/;
  if (numeric.test(a) && numeric.test(b)) return Number(a) - Number(b);
  if (numeric.test(a)) return -1;
  if (numeric.test(b)) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Semver precedence (prefixes ignored): numbers, then a prerelease below its release, identifier by identifier. */
export function compareReleaseVersions(a: ReleaseVersion, b: ReleaseVersion): number {
  const numbers = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (numbers !== 0) return Math.sign(numbers);
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return b.prerelease.length - a.prerelease.length;
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const order = compareIdentifiers(a.prerelease[i] as string, b.prerelease[i] as string);
    if (order !== 0) return Math.sign(order);
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

export function formatVersion(version: ReleaseVersion): string {
  const core = `${version.major}.${version.minor}.${version.patch}`;
  return version.prerelease.length > 0 ? `${core}-${version.prerelease.join('.')}` : core;
}
