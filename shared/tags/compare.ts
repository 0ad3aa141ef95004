import { isDigit, type ParsedVersion } from './parse';
import type { BuildCounter, Prerelease } from './tail';

export type SemverDiff = 'major' | 'minor' | 'patch' | 'prerelease';

/**
 * What two tags must share to be alternatives of each other: prefix, part count, magnitude,
 * build-counter kinds, the suffix with its numbers masked (`-alpine3.19` and `-alpine3.20` are one
 * family, `-alpine` another) and whether a commit hash is present. A `p` patch level is left out:
 * checkmk publishes `2.4.0` and then `2.4.0p1` in one line. So is the part count after a date stamp:
 * ubuntu's `noble-20240904.1` is a respin in the same series as `noble-20240801`.
 */
export function familyKey(version: ParsedVersion): string {
  const { prefix, magnitude, hasHash } = version;
  return [prefix, partCount(version), magnitude, buildKinds(version), version.template, hasHash].join('|');
}

/** familyKey(a) === familyKey(b), without building strings: it runs once per tag of the repository. */
export function sameFamily(a: ParsedVersion, b: ParsedVersion): boolean {
  if (a.prefix !== b.prefix || a.magnitude !== b.magnitude || a.hasHash !== b.hasHash) return false;
  if (partCount(a) !== partCount(b)) return false;
  if (a.builds.length + b.builds.length > 0 && buildKinds(a) !== buildKinds(b)) return false;
  return a.template === b.template;
}

function partCount(version: ParsedVersion): number {
  return version.magnitude.startsWith('date') ? 0 : version.parts.length;
}

function buildKinds(version: ParsedVersion): string {
  return version.builds
    .filter((build) => build.marker !== 'p')
    .map((build) => build.marker)
    .join(',');
}

/** The numbers in the suffix (`-alpine3.20` → [3, 20]): the variant's own version, a secondary key. */
export function suffixNumbers(version: ParsedVersion): number[] {
  return (version.suffix.match(/\d+/g) ?? []).map(Number);
}

/** Numeric, part by part; a missing part counts as 0 (`1.2` equals `1.2.0`). */
export function compareNumbers(a: readonly number[], b: readonly number[]): number {
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const delta = (a[i] ?? 0) - (b[i] ?? 0);
    if (delta !== 0) return Math.sign(delta);
  }
  return 0;
}

/** A release is above any of its prereleases; ladder rank, then label, then number (none first). */
export function comparePrereleases(a: Prerelease | undefined, b: Prerelease | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  if (a.rank !== b.rank) return Math.sign(a.rank - b.rank);
  if (a.label !== b.label) return a.label < b.label ? -1 : 1;
  return compareOptional(a.num, b.num);
}

/** Counter by counter; a counter that is absent comes first (`2.3.0` < `2.3.0p1`). */
export function compareBuilds(a: readonly BuildCounter[], b: readonly BuildCounter[]): number {
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const delta = compareOptional(a[i]?.num, b[i]?.num);
    if (delta !== 0) return delta;
  }
  return 0;
}

/** Orders versions: numbers, then prerelease, then build counters. Suffix and hash do not order. */
export function compareVersions(a: ParsedVersion, b: ParsedVersion): number {
  return compareNumbers(a.parts, b.parts) || comparePrereleases(a.pre, b.pre) || compareBuilds(a.builds, b.builds);
}

/**
 * The level of the first difference. Parts past the third count as patch (plex's fourth part is a
 * build of the same release); a change of build counter only (`-ls123` → `-ls124`, `p13` → `p14`)
 * is a rebuild or vendor patch, reported as patch too. Undefined when the versions are equal.
 */
export function diffVersions(from: ParsedVersion, to: ParsedVersion): SemverDiff | undefined {
  const length = Math.max(from.parts.length, to.parts.length);
  for (let i = 0; i < length; i++) {
    if ((from.parts[i] ?? 0) !== (to.parts[i] ?? 0)) return i === 0 ? 'major' : i === 1 ? 'minor' : 'patch';
  }
  if (comparePrereleases(from.pre, to.pre) !== 0) return 'prerelease';
  return compareBuilds(from.builds, to.builds) !== 0 ? 'patch' : undefined;
}

/**
 * Semver's precedence of two prereleases of one version: identifiers in order, the label by ASCII
 * (`dev` < `rc`), then the number (absent first: `rc` < `rc.1`). It agrees with comparePrereleases on
 * the ladder (alpha < beta < rc is also their ASCII order), not on channels (semver puts `snapshot` above `rc`).
 */
export function compareSemverPrereleases(a: Prerelease, b: Prerelease): number {
  if (a.label !== b.label) return a.label < b.label ? -1 : 1;
  return compareOptional(a.num, b.num);
}

/**
 * A stable tag never moves to a prerelease. A prerelease may go stable; at its own version it may
 * move to any prerelease that is newer by semver's rules and by the ladder (`1.0.0-test1` →
 * `1.0.0-test2`, `1.0.0-dev` → `1.0.0-rc.1`); at a later version it climbs its ladder or keeps its channel.
 */
export function isPrereleaseAllowed(current: ParsedVersion, candidate: ParsedVersion): boolean {
  if (candidate.pre === undefined) return true;
  if (current.pre === undefined) return false;
  if (compareNumbers(current.parts, candidate.parts) === 0) {
    // Both orders must agree: `1.0.0-rc.1` is never "updated" to `1.0.0-snapshot` (semver's ASCII says newer).
    return (
      compareSemverPrereleases(candidate.pre, current.pre) > 0 && comparePrereleases(candidate.pre, current.pre) > 0
    );
  }
  // Up the ladder only: a beta may go to rc, an rc never back to a beta of a later version.
  if (current.pre.rank > 0) return candidate.pre.rank >= current.pre.rank;
  return candidate.pre.label === current.pre.label;
}

function compareOptional(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  return Math.sign(a - b);
}

const CHUNKS = /\d+|\D+/g;

/** Natural order (`-ls9` < `-ls10`), then code units: a total, deterministic order for ties. */
export function naturalCompare(a: string, b: string): number {
  const left = a.match(CHUNKS) ?? [];
  const right = b.match(CHUNKS) ?? [];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i] ?? '';
    const y = right[i] ?? '';
    const delta =
      isDigit(x.charCodeAt(0)) && isDigit(y.charCodeAt(0)) ? compareDigits(x, y) : x < y ? -1 : x > y ? 1 : 0;
    if (delta !== 0) return delta;
  }
  return left.length - right.length || (a < b ? -1 : a > b ? 1 : 0);
}

function compareDigits(x: string, y: string): number {
  const a = x.replace(/^0+/, '');
  const b = y.replace(/^0+/, '');
  if (a.length !== b.length) return Math.sign(a.length - b.length);
  return a < b ? -1 : a > b ? 1 : 0;
}
