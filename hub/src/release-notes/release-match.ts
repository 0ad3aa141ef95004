import {
  compareReleaseVersions,
  formatVersion,
  parseImageTag,
  parseReleaseTag,
  type ReleaseVersion,
} from './release-version';

/** One release as GitHub or GitLab publish it, in the shape the API serves (docs/release-notes.md). */
export interface Release {
  /** The git tag the release is of (`v1.2.3`, `app@1.2.3`). */
  tag: string;
  /** The release's semver without prefix (`1.2.3`), or null when its tag is not semver. */
  version: string | null;
  title: string;
  /** ISO 8601 publication date, or null for an unpublished one. */
  date: string | null;
  /** Markdown, as written upstream. */
  body: string;
  url: string | null;
  prerelease: boolean;
}

interface Parsed {
  release: Release;
  version: ReleaseVersion;
}

/**
 * How well a release tag's prefix fits the image: none (`v1.2.3`) fits best, then the image's own name
 * (`app@1.2.3` for `acme/app`), then any other prefix (a monorepo's component). Lower is better.
 */
function prefixRank(prefix: string, imageName: string): number {
  if (prefix === '') return 0;
  const base = imageName.split('/').at(-1)?.toLowerCase() ?? '';
  const bare = prefix.toLowerCase().split(/[@/]/).at(-1) ?? '';
  return bare === base ? 1 : 2;
}

function parsedReleases(releases: readonly Release[]): Parsed[] {
  const parsed: Parsed[] = [];
  for (const release of releases) {
    const version = parseReleaseTag(release.tag);
    if (version) parsed.push({ release, version });
  }
  return parsed;
}

/**
 * The releases of the image's family: when the repository has releases with no prefix or with the
 * image's name, only those; else, when all share one other prefix, those; else (several components,
 * none named like the image) none, rather than another component's notes.
 */
function family(parsed: readonly Parsed[], imageName: string): Parsed[] {
  const best = Math.min(...parsed.map((entry) => prefixRank(entry.version.prefix, imageName)));
  const ranked = parsed.filter((entry) => prefixRank(entry.version.prefix, imageName) === best);
  if (best < 2) return ranked;
  const prefixes = new Set(ranked.map((entry) => entry.version.prefix));
  return prefixes.size === 1 ? ranked : [];
}

/**
 * The release of an image tag: the one whose tag is the image tag itself, else the one whose version
 * is the tag's (`v` added or removed, a monorepo prefix, the variant of `1.2.3-alpine` dropped).
 */
export function findRelease(releases: readonly Release[], imageTag: string, imageName: string): Release | undefined {
  const exact = releases.find((release) => release.tag === imageTag);
  if (exact) return exact;
  const wanted = parseImageTag(imageTag);
  if (!wanted) return undefined;
  return family(parsedReleases(releases), imageName).find(
    (entry) => compareReleaseVersions(entry.version, wanted) === 0,
  )?.release;
}

/**
 * Every release after `from` up to and including `to`, oldest first (what moving from one to the
 * other brings). Prereleases count only when `to` is one: a final release's notes cover its own.
 */
export function releasesBetween(
  releases: readonly Release[],
  from: ReleaseVersion,
  to: ReleaseVersion,
  imageName: string,
): Release[] {
  const withPrereleases = to.prerelease.length > 0;
  const chosen = family(parsedReleases(releases), imageName).filter(
    (entry) =>
      compareReleaseVersions(entry.version, from) > 0 &&
      compareReleaseVersions(entry.version, to) <= 0 &&
      (withPrereleases || entry.version.prerelease.length === 0),
  );
  chosen.sort((a, b) => compareReleaseVersions(a.version, b.version));
  // Two tags of one version (`v1.2.3` and `1.2.3`) are one release.
  const seen = new Set<string>();
  return chosen
    .filter((entry) => {
      const key = formatVersion(entry.version);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((entry) => entry.release);
}

/** The version a release tag carries, for Release.version. */
export function releaseVersionOf(tag: string): string | null {
  const version = parseReleaseTag(tag);
  return version ? formatVersion(version) : null;
}
